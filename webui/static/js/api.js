// The stateless game API: the browser keeps the state and sends it back with
// every call.

/** ApiError is a refusal of the server, with its stable code and i18n key. */
export class ApiError extends Error {
  constructor(detail, status) {
    super(detail.message || detail.code);
    this.code = detail.code;
    this.key = detail.key || `error.${detail.code}`;
    this.status = status;
  }
}

/** postJSON posts body to url and resolves to the JSON answer; refusals throw ApiError. */
export async function postJSON(url, body) {
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError({ code: 'network', message: 'network' }, 0);
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(json?.error ?? { code: 'internal', message: res.statusText }, res.status);
  return json;
}

/** Api calls /api/v1/games/{variant}/… for one variant. */
export class Api {
  constructor(base) { this.base = base; }

  post(call, body) { return postJSON(`${this.base}/${call}`, body); }

  start(options) { return this.post('start', { options }); }
  play(state, seat, move) { return this.post('play', { state, seat, move }); }
  view(state) { return this.post('view', { state }); }
  rewind(state, ply) { return this.post('rewind', { state, ply }); }
  suggest(state, seat, level, thinkMillis) {
    return this.post('suggest', thinkMillis ? { state, seat, level, thinkMillis } : { state, seat, level });
  }
  export(state, format) { return this.post('export', { state, format, lang: document.documentElement.lang }); }
  import(format, text) { return this.post('import', { format, text }); }
}
