// Game analysis for the board: the stream of POST /api/v1/games/{variant}/analyse
// (or a room's /api/v1/rooms/{room}/analyse), the evaluation graph drawn from
// its rows, and the text a screen reader reads for a ply. It knows no game
// rule: moves are the texts the caller gives, seats the Description's.
//
//   import { streamAnalysis, drawGraph, describePly, expected } from '/static/js/analysis.js';
//   const ctl = new AbortController();            // ctl.abort() cancels: the server stops too
//   await streamAnalysis(`/api/v1/games/shogi/analyse`, { state }, { signal: ctl.signal,
//     onRow: (row) => { rows.push(row); drawGraph(svg, rows, opts); } });
//
// A row is { ply, toMove, score: {seat, cp | mate}, scores: [...], best, pv, mark, over, error }
// (docs/protocol.md#analysis).

/** expected reads a score as its seat's expected share of the game, 0..1: a
 * mate given 1, a mate taken 0, centipawns on 1/(1+e^(-cp/300)), as the
 * server's marks do. */
export function expected(score) {
  if (!score) return 0.5;
  if (score.mate !== undefined && score.mate !== null) return score.mate > 0 ? 1 : 0;
  return 1 / (1 + Math.exp(-(score.cp ?? 0) / 300));
}

/** formatScore writes a score as engines do: "+3.20", "-0.45", "#3", "#-2". */
export function formatScore(score) {
  if (!score) return '';
  if (score.mate !== undefined && score.mate !== null) return `#${score.mate}`;
  const v = (score.cp ?? 0) / 100;
  return (v >= 0 ? '+' : '') + v.toFixed(2);
}

/**
 * streamAnalysis posts body to url and calls onRow with each row as it
 * arrives (blank heartbeat lines skipped), resolving when the stream ends.
 * signal cancels it (the connection closes, which cancels the server's
 * work). A refusal before the stream throws an Error with .status and
 * .code (503 analysis_busy carries .retryAfter in seconds).
 */
export async function streamAnalysis(url, body, { onRow, signal } = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) {
    const json = await res.json().catch(() => null);
    const err = new Error(json?.error?.message || res.statusText);
    err.status = res.status;
    err.code = json?.error?.code || 'internal';
    const retry = Number(res.headers.get('Retry-After'));
    if (retry > 0) err.retryAfter = retry;
    throw err;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onRow?.(JSON.parse(line));
    }
  }
  if (buf.trim()) onRow?.(JSON.parse(buf));
}

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attrs) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/**
 * drawGraph draws rows into svg (emptied first): for two seats one line,
 * the expected share of `seat` (default 0) from 0 at the bottom to 1 at the
 * top; for more, one line per seat in the seat's colour. Marked moves get
 * a dot (class "mark-dubious", "mark-mistake", "mark-blunder"), the ply
 * `current` a vertical rule. plies is the game's length (the x axis).
 * seats: [{ name, color }] from the Description.
 */
export function drawGraph(svg, rows, { seats, seat = 0, plies, current = -1, width = 600, height = 120 }) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  const n = Math.max(plies ?? 0, ...rows.map((r) => r.ply), 1);
  const x = (ply) => (ply / n) * width;
  const y = (share) => height - share * height;
  svg.append(el('line', { x1: 0, x2: width, y1: height / 2, y2: height / 2, class: 'graph-even' }));
  const shown = seats.length === 2 ? [seat] : seats.map((_, i) => i);
  for (const s of shown) {
    const points = rows
      .filter((r) => r.scores && r.scores[s])
      .map((r) => `${x(r.ply).toFixed(1)},${y(expected(r.scores[s])).toFixed(1)}`);
    if (points.length === 0) continue;
    svg.append(el('polyline', {
      points: points.join(' '),
      fill: 'none',
      stroke: seats[s]?.color || 'currentColor',
      'stroke-width': 2,
      'vector-effect': 'non-scaling-stroke',
      class: 'graph-line',
      'data-seat': s,
    }));
  }
  const marks = { '?!': 'mark-dubious', '?': 'mark-mistake', '??': 'mark-blunder' };
  for (const r of rows) {
    if (!marks[r.mark] || !r.scores) continue;
    const mover = r.ply > 0 ? (rows.find((p) => p.ply === r.ply - 1)?.toMove?.[0] ?? seat) : seat;
    const s = seats.length === 2 ? seat : mover;
    svg.append(el('circle', {
      cx: x(r.ply).toFixed(1), cy: y(expected(r.scores[s])).toFixed(1), r: 4,
      class: marks[r.mark], 'data-ply': r.ply,
    }));
  }
  if (current >= 0) {
    svg.append(el('line', { x1: x(current), x2: x(current), y1: 0, y2: height, class: 'graph-current' }));
  }
}

/**
 * describePly is the text alternative of one analysed ply, for a screen
 * reader and the graph's title: "move 23, Gote +3.20, best 7g7f ??" with
 * the caller's words (t) and move texts (moveText: best's display text).
 */
export function describePly(row, { seats, seat = 0, t = (k) => k, moveText = (m) => m }) {
  if (!row) return '';
  // "analysis.move" may place the number itself ("{n} 手目"); else it follows.
  const move = t('analysis.move', { n: row.ply });
  const parts = [move.includes(String(row.ply)) ? move : `${move} ${row.ply}`];
  if (row.over) {
    parts.push(t('analysis.over'));
  } else if (row.scores) {
    const shown = seats.length === 2 ? [row.score?.seat ?? seat] : seats.map((_, i) => i);
    for (const s of shown) parts.push(`${seats[s]?.name ?? s} ${formatScore(row.scores[s])}`);
    if (row.best) parts.push(`${t('analysis.best')} ${moveText(row.best)}`);
  }
  return parts.join(', ') + (row.mark ? ` ${row.mark}` : '');
}

/**
 * graphKeys lets ←/→ (and Home/End) move through the plies on the graph
 * (focusable, role slider), calling onSelect(ply); a click picks the
 * nearest ply. It returns a function that removes the listeners.
 */
export function graphKeys(svg, { plies, get, onSelect }) {
  svg.setAttribute('tabindex', '0');
  svg.setAttribute('role', 'slider');
  svg.setAttribute('aria-valuemin', '0');
  svg.setAttribute('aria-valuemax', String(plies));
  const key = (ev) => {
    const now = get();
    const next = { ArrowLeft: now - 1, ArrowRight: now + 1, Home: 0, End: plies }[ev.key];
    if (next === undefined) return;
    ev.preventDefault();
    const ply = Math.max(0, Math.min(plies, next));
    svg.setAttribute('aria-valuenow', String(ply));
    onSelect(ply);
  };
  const click = (ev) => {
    const box = svg.getBoundingClientRect();
    const ply = Math.round(((ev.clientX - box.left) / Math.max(box.width, 1)) * plies);
    onSelect(Math.max(0, Math.min(plies, ply)));
  };
  svg.addEventListener('keydown', key);
  svg.addEventListener('click', click);
  return () => {
    svg.removeEventListener('keydown', key);
    svg.removeEventListener('click', click);
  };
}
