// The game page, for Same device and Vs computer: it starts or resumes a
// game, keeps it in localStorage, sends the chosen moves to the server and
// shows the View it answers with. Against the computer the browser plays the
// computer's seats itself: whenever View.toMove is one of them it asks
// /suggest for a move and sends it to /play. The board itself is board.js.

import { Api, ApiError } from './api.js';
import { Board } from './board.js';
import { makeT } from './i18n.js';
import { glyphOf, kindOf, pieceSVG } from './pieces.js';
import { Store } from './store.js';

const data = JSON.parse(document.getElementById('board-data').textContent);
const desc = data.variant;
const t = makeT(data.strings);
const api = new Api(data.api);
const store = new Store(data.storageKey);
const prefs = new Store('banmen.prefs');
const $ = (id) => document.getElementById(id);

// Against the computer the person plays the first seat (Sente, Red, South)
// and the computer every other one.
const vsComputer = data.mode === 'computer';
const HUMAN = 0;
const isComputer = (seat) => vsComputer && seat !== HUMAN && seat !== undefined;
const levelStore = new Store('banmen.computer.level');

const game = { state: null, view: null, options: {} };
let alt = false; // show the alternative move texts (western shogi names, UCCI)

// ---- announcements and notices

const live = $('live');
let saying = 0; // the timer of the text about to be shown
function announce(text) {
  // Clearing first makes a repeated text be spoken again. A text not shown
  // yet is dropped: it must never land after a newer one (a piece picked up
  // and a move answered within the pause would say the pickup last).
  clearTimeout(saying);
  live.textContent = '';
  saying = setTimeout(() => { live.textContent = text; }, 30);
}

function notice(text, kind = 'info', id = '', key = '') {
  const box = $('notices');
  if (id && box.querySelector(`[data-id="${id}"]`)) return;
  const p = document.createElement('p');
  p.className = `notice notice-${kind}`;
  if (id) p.dataset.id = id;
  if (key) p.dataset.key = key; // the i18n key, for tests
  p.textContent = text;
  const x = document.createElement('button');
  x.type = 'button';
  x.className = 'notice-close';
  x.setAttribute('aria-label', t('ui.close'));
  x.textContent = '×';
  x.addEventListener('click', () => p.remove());
  p.append(x);
  box.append(p);
}

function clearNotices() {
  for (const p of $('notices').querySelectorAll('.notice:not([data-id="storage"])')) p.remove();
}

/** errorKey is the i18n key of errorText's message. */
function errorKey(err) {
  if (err instanceof ApiError) {
    if (err.code === 'network') return 'ui.network';
    return t.has(err.key) ? err.key : 'ui.error';
  }
  return 'ui.error';
}

/** noticeError shows an error as a notice. */
function noticeError(err) { notice(errorText(err), 'error', '', errorKey(err)); }

function errorText(err) {
  if (err instanceof ApiError) {
    if (err.code === 'network') return t('ui.network');
    return t.has(err.key) ? t(err.key) : t('ui.error', { message: err.message });
  }
  return t('ui.error', { message: String(err?.message ?? err) });
}

// ---- dialogs

// dialog opens a modal dialog and resolves to whether it was confirmed. The
// close event is delivered asynchronously: if the dialog is reopened before
// the last close reached its listener, that answer is settled at once and the
// stale event is ignored by the new opening (the dialog is open again then).
function dialog(id) {
  const d = $(id);
  d.settlePending?.();
  return new Promise((resolve) => {
    const settle = () => {
      d.removeEventListener('close', onClose);
      d.settlePending = null;
      resolve(d.returnValue === 'yes');
    };
    const onClose = () => { if (!d.open) settle(); };
    d.settlePending = settle;
    d.returnValue = '';
    d.addEventListener('close', onClose);
    d.showModal();
  });
}

function confirm(text) {
  $('confirm-text').textContent = text;
  return dialog('confirm-dialog');
}

async function choosePromotion(moves) {
  const box = $('promote-choices');
  box.replaceChildren();
  let chosen = null;
  const from = game.view.board[moves[0].from];
  for (const m of [...moves].sort((a, b) => Number(Boolean(b.promote)) - Number(Boolean(a.promote)))) {
    const b = document.createElement('button');
    b.type = 'submit';
    b.value = 'yes';
    b.className = 'promote-choice';
    b.dataset.promote = String(Boolean(m.promote));
    const cell = { ...from, promoted: Boolean(m.promote) || (from.promoted && !m.promote) };
    const kind = kindOf(desc, from.kind);
    b.innerHTML = `<svg viewBox="-50 -50 100 100" aria-hidden="true">${pieceSVG(desc, cell, 0, { color: desc.seats[from.owner]?.color })}</svg>`;
    const label = document.createElement('span');
    label.textContent = `${m.promote ? t('ui.promote') : t('ui.noPromote')} (${glyphOf(kind, from.owner, cell.promoted)})`;
    b.append(label);
    b.addEventListener('click', () => { chosen = m; });
    box.append(b);
  }
  const ok = await dialog('promote-dialog');
  return ok ? chosen : null;
}

// ---- the game

// busy counts the move and suggestion requests in flight; body[data-busy]
// tells tests to wait.
let busy = 0;
document.body.dataset.busy = 'false';
async function request(p) {
  document.body.dataset.busy = String(++busy > 0);
  try {
    return await p;
  } finally {
    document.body.dataset.busy = String(--busy > 0);
  }
}

const board = new Board($('arena'), {
  desc,
  t,
  announce,
  promote: choosePromotion,
  onMove: (m) => play(m),
  playable: (seat) => !isComputer(seat),
  seatTag: (seat) => (vsComputer ? t(isComputer(seat) ? 'ui.computer' : 'ui.you') : ''),
});

async function play(m) {
  const before = game.state;
  try {
    const res = await request(api.play(game.state, m.seat, m.move));
    if (game.state !== before) return; // a new game came meanwhile
    clearNotices();
    set(res, game.options);
    announce(moveText(m.seat, alt && m.alt ? m.alt : m.text));
    think();
  } catch (err) {
    board.update(game.view);
    noticeError(err);
  }
}

/** moveText is what the live region says after a move: the move, a check, the result, who thinks next. */
function moveText(seat, move) {
  const v = game.view;
  let text = t('ui.announce.move', { seat: seatName(seat), move });
  if ((v.inCheck || []).length && v.status === 'playing') text += `. ${t('ui.check')}`;
  if (v.status === 'over') text += `. ${resultText(v)}`;
  else if (isComputer(v.toMove?.[0])) text += `. ${t('ui.thinking', { seat: seatName(v.toMove[0]) })}`;
  return text;
}

// ---- the computer's seats

// level is the computer's strength: the one last chosen in this browser,
// else Medium.
let level = pickLevel(levelStore.load());
// thinking is the seat whose move is being chosen, or null; run counts the
// thinking runs, so an answer for an abandoned run (a new game, an import,
// a new level) is dropped.
let thinking = null;
let run = 0;

function pickLevel(l) {
  const levels = desc.levels || [];
  if (levels.includes(l)) return l;
  return levels.includes('medium') ? 'medium' : levels[Math.floor(levels.length / 2)];
}

function levelName(l) { return t.has(`ui.level.${l}`) ? t(`ui.level.${l}`) : l; }

function setThinking(seat) {
  thinking = seat;
  const on = seat !== null;
  board.setLocked(on);
  document.body.dataset.thinking = String(on);
  $('status').setAttribute('aria-busy', String(on));
  $('arena').setAttribute('aria-busy', String(on));
  if (game.view) render();
}

/** stopThinking abandons the current thinking run, if any. */
function stopThinking() {
  run++;
  if (thinking !== null) setThinking(null);
}

/**
 * think plays the computer's seats until it is the person's turn or the game
 * is over. Yonin may give several computer seats a move in a row, and check
 * priority may hand the turn back early: only View.toMove decides.
 */
async function think() {
  if (!vsComputer) return;
  const my = ++run;
  while (my === run && game.view.status === 'playing' && isComputer(game.view.toMove?.[0])) {
    const seat = game.view.toMove[0];
    const state = game.state;
    setThinking(seat);
    try {
      const { move } = await request(api.suggest(state, level));
      if (my !== run || game.state !== state) return;
      const res = await request(api.play(state, seat, move));
      if (my !== run || game.state !== state) return;
      set(res, game.options);
      const h = game.view.history[game.view.history.length - 1];
      announce(moveText(seat, h ? (alt && h.alt ? h.alt : h.text) : move));
    } catch (err) {
      if (my !== run) return;
      setThinking(null);
      notice(t('ui.computerFailed', { error: errorText(err) }), 'error', '', 'ui.computerFailed');
      return;
    }
  }
  if (my === run) setThinking(null);
}

function showLevel() {
  if (!vsComputer) return;
  $('level').textContent = t('ui.difficultyIs', { level: levelName(level) });
  document.body.dataset.level = level;
}

async function chooseLevel() {
  for (const r of document.querySelectorAll('#level-choices input')) r.checked = r.value === level;
  if (!(await dialog('level-dialog'))) return;
  const chosen = document.querySelector('#level-choices input:checked')?.value;
  if (!chosen || chosen === level) return;
  level = chosen;
  levelStore.save(level);
  showLevel();
  announce(t('ui.levelChanged', { level: levelName(level) }));
  // A move being chosen at the old strength is chosen again at the new one.
  if (thinking !== null) think();
}

function set(res, options) {
  game.state = res.state;
  game.view = res.view;
  game.options = options || {};
  save();
  render();
}

function save() {
  const ok = store.save({ v: 1, state: game.state, options: game.options });
  if (!ok) notice(t('ui.storageOff'), 'warn', 'storage', 'ui.storageOff');
}

function seatName(s) { return t(desc.seats[s]?.nameKey ?? String(s)); }

function list(names) {
  return names.reduce((a, b) => (a ? t('ui.and', { a, b }) : b), '');
}

/** resultKey is the i18n key of the head of resultText. */
function resultKey(v) {
  const r = v.result;
  if (!r) return 'ui.gameOver';
  if (r.draw || !(r.winners || []).length) return 'ui.draw';
  return r.winners.length === 1 ? 'ui.wins' : 'ui.winTeam';
}

function resultText(v) {
  const r = v.result;
  if (!r) return t('ui.gameOver');
  const why = t.has(r.reason) ? t(r.reason) : r.reason;
  let head;
  if (r.draw || !(r.winners || []).length) head = t('ui.draw');
  else if (r.winners.length === 1) head = t('ui.wins', { seat: seatName(r.winners[0]) });
  else head = t('ui.winTeam', { seats: list(r.winners.map(seatName)) });
  return `${head} — ${why}`;
}

function render() {
  const v = game.view;
  board.update(v);
  document.body.dataset.status = v.status;
  document.body.dataset.ply = String(v.ply);
  document.body.dataset.toMove = v.status === 'playing' ? (v.toMove || []).join(',') : '';
  document.body.dataset.position = v.position;

  // Status: the side to move, check, or the result with places.
  const st = $('status');
  st.replaceChildren();
  const line = document.createElement('p');
  line.className = 'status-line';
  if (v.status === 'over') {
    line.textContent = resultText(v);
    line.dataset.key = resultKey(v);
    if (v.result?.reason) line.dataset.reason = v.result.reason;
    st.append(line);
    const places = v.result?.places || [];
    if (places.length > 2) {
      const ol = document.createElement('ol');
      ol.className = 'places';
      ol.setAttribute('aria-label', t('ui.places'));
      const order = places.map((p, s) => [p, s]).sort((a, b) => a[0] - b[0]);
      for (const [p, s] of order) {
        const li = document.createElement('li');
        li.textContent = t('ui.place', { place: p, seat: seatName(s) });
        li.style.borderColor = desc.seats[s].color;
        ol.append(li);
      }
      st.append(ol);
    }
  } else {
    const s = (v.toMove || [])[0];
    const dot = document.createElement('span');
    dot.className = 'seat-dot';
    if (s !== undefined) dot.style.background = desc.seats[s].color;
    if (thinking !== null) {
      line.classList.add('thinking');
      const dots = document.createElement('span');
      dots.className = 'thinking-dots';
      dots.setAttribute('aria-hidden', 'true');
      dots.append(document.createElement('i'), document.createElement('i'), document.createElement('i'));
      line.append(dot, document.createTextNode(t('ui.thinking', { seat: seatName(thinking) })), dots);
      line.dataset.key = 'ui.thinking';
    } else {
      line.append(dot, document.createTextNode(s !== undefined ? t('ui.toMove', { seat: seatName(s) }) : ''));
      if (s !== undefined) line.dataset.key = 'ui.toMove';
    }
    if ((v.inCheck || []).length) {
      const c = document.createElement('strong');
      c.className = 'check-flag';
      c.textContent = ` ${t('ui.check')}`;
      line.append(c);
    }
    st.append(line);
    for (const key of v.notices || []) {
      if (key === 'notice.check') continue;
      const p = document.createElement('p');
      p.className = 'status-notice';
      p.dataset.key = key;
      p.textContent = t(key);
      st.append(p);
    }
  }

  // Actions (a declaration) and Resign, for the seat to move.
  const actions = $('actions');
  actions.replaceChildren();
  for (const m of (v.status === 'playing' ? v.legal : []).filter((x) => x.kind === 'action' && !isComputer(x.seat) && thinking === null)) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'button action';
    b.textContent = t.has(m.key) ? t(m.key) : m.text;
    b.addEventListener('click', () => play(m));
    actions.append(b);
  }
  if (vsComputer && v.status === 'playing' && thinking === null && isComputer(v.toMove?.[0])) {
    // The computer could not move (the server did not answer): try again.
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'button primary';
    b.id = 'computer-move';
    b.textContent = t('ui.computerMove');
    b.addEventListener('click', () => { clearNotices(); think(); });
    actions.append(b);
  }
  $('resign').hidden = !desc.resign || v.status !== 'playing';
  // Against the computer only the person resigns, on their own turn.
  $('resign').disabled = vsComputer && (thinking !== null || isComputer(v.toMove?.[0]));

  renderHistory();
}

function renderHistory() {
  const v = game.view;
  const ol = $('history');
  ol.replaceChildren();
  const hasAlt = v.history.some((h) => h.alt && h.alt !== h.text);
  $('notation-toggle').hidden = !hasAlt;
  for (const [i, h] of v.history.entries()) {
    const li = document.createElement('li');
    li.dataset.move = h.move;
    const dot = document.createElement('span');
    dot.className = 'seat-dot';
    dot.style.background = desc.seats[h.seat]?.color ?? '#888';
    dot.title = seatName(h.seat);
    const num = document.createElement('span');
    num.className = 'ply';
    num.textContent = t('ui.moveNumber', { n: i + 1 });
    const txt = document.createElement('span');
    txt.className = 'move-text';
    txt.textContent = alt && h.alt ? h.alt : h.text;
    li.append(num, dot, txt);
    ol.append(li);
  }
  $('no-moves').hidden = v.history.length > 0;
  ol.scrollTop = ol.scrollHeight;
}

// ---- new game, resume, import, export

async function start(options) {
  document.body.dataset.ready = 'false';
  try {
    const res = await api.start(options);
    stopThinking();
    clearNotices();
    set(res, options);
    announce(t('ui.toMove', { seat: seatName(game.view.toMove[0]) }));
    think();
  } catch (err) {
    noticeError(err);
  } finally {
    if (game.view) document.body.dataset.ready = 'true';
  }
}

function optionFields() {
  const box = $('options-fields');
  box.replaceChildren();
  const specs = (desc.options || []).filter((o) => !o.host);
  for (const o of specs) {
    const id = `opt-${o.key}`;
    const row = document.createElement('div');
    row.className = `field field-${o.type}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = t.has(o.nameKey) ? t(o.nameKey) : o.name;
    const cur = game.options[o.key] ?? o.default;
    let input;
    if (o.type === 'bool') {
      input = document.createElement('input');
      input.type = 'checkbox';
      input.checked = cur === 'true';
    } else if (o.type === 'int') {
      input = document.createElement('input');
      input.type = 'number';
      input.min = String(o.min ?? 0);
      input.max = String(o.max ?? 0);
      input.value = cur;
    } else {
      input = document.createElement('select');
      for (const c of o.choices || []) {
        const opt = document.createElement('option');
        opt.value = c;
        opt.textContent = t.has(`${o.nameKey}.${c}`) ? t(`${o.nameKey}.${c}`) : c;
        opt.selected = c === cur;
        input.append(opt);
      }
    }
    input.id = id;
    input.dataset.key = o.key;
    input.dataset.type = o.type;
    if (o.type === 'bool') row.append(input, label); else row.append(label, input);
    box.append(row);
  }
  return specs.length > 0;
}

function readOptions() {
  const out = {};
  for (const el of $('options-fields').querySelectorAll('[data-key]')) {
    out[el.dataset.key] = el.dataset.type === 'bool' ? String(el.checked) : String(el.value);
  }
  return out;
}

async function newGame() {
  const inProgress = game.view && game.view.ply > 0 && game.view.status === 'playing';
  if (optionFields()) {
    $('options-confirm').hidden = !inProgress;
    if (await dialog('options-dialog')) await start(readOptions());
    return;
  }
  if (inProgress && !(await confirm(t('ui.confirmNew')))) return;
  await start({});
}

async function resign() {
  const s = vsComputer ? HUMAN : game.view.toMove[0];
  const q = vsComputer ? t('ui.confirmResignYou') : t('ui.confirmResign', { seat: seatName(s) });
  if (!(await confirm(q))) return;
  if (vsComputer && (thinking !== null || game.view.status !== 'playing')) return;
  await play({ seat: s, move: 'resign', text: t('ui.resign') });
}

function fillFormats() {
  const label = (n) => (t.has(`notation.${n.id}`) ? t(`notation.${n.id}`) : n.name);
  for (const [id, only] of [['export-format', false], ['import-format', true]]) {
    const sel = $(id);
    for (const n of desc.notations.filter((x) => !only || x.import)) {
      const o = document.createElement('option');
      o.value = n.id;
      o.textContent = label(n);
      sel.append(o);
    }
  }
  $('import-box').hidden = !desc.notations.some((n) => n.import);
}

async function doExport() {
  const format = $('export-format').value;
  try {
    const res = await api.export(game.state, format);
    $('export-text').value = res.text;
    $('export-text').hidden = false;
    $('export-copy').disabled = false;
    $('export-download').disabled = false;
  } catch (err) {
    noticeError(err);
  }
}

async function copyExport() {
  const text = $('export-text').value;
  try {
    await navigator.clipboard.writeText(text);
    announce(t('ui.copied'));
    $('export-status').textContent = t('ui.copied');
  } catch {
    $('export-text').select();
    $('export-status').textContent = t('ui.copyFailed');
  }
}

function downloadExport() {
  const n = desc.notations.find((x) => x.id === $('export-format').value);
  const blob = new Blob([$('export-text').value], { type: n.mediaType || 'text/plain' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${desc.id}-${new Date().toISOString().slice(0, 10)}${n.extension || '.txt'}`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function doImport() {
  const text = $('import-text').value.trim();
  if (!text) return;
  if (game.view.ply > 0 && game.view.status === 'playing' && !(await confirm(t('ui.confirmImport')))) return;
  document.body.dataset.ready = 'false';
  try {
    const res = await api.import($('import-format').value, text);
    stopThinking();
    clearNotices();
    set(res, {});
    $('import-text').value = '';
    announce(t('ui.imported'));
    notice(t('ui.imported'), 'info', '', 'ui.imported');
    think();
  } catch (err) {
    noticeError(err);
  } finally {
    document.body.dataset.ready = 'true';
  }
}

// ---- preferences: rotation and the beginner pieces

const pref = prefs.load() || {};
// Against the computer the person's side is always at the bottom.
const rot = vsComputer ? 0 : pref[`rotation.${desc.id}`] || 0;
board.setRotation(rot);
$('flip').hidden = vsComputer;
board.setBeginner(Boolean(pref.beginner));
$('beginner').checked = Boolean(pref.beginner);
$('beginner-row').hidden = !desc.pieces.some((p) => (p.steps || []).length);

function savePref(k, v) {
  const p = prefs.load() || {};
  p[k] = v;
  prefs.save(p);
}

$('flip').addEventListener('click', () => {
  const step = desc.seats.length > 2 ? 1 : 2;
  board.setRotation(board.rotation + step);
  savePref(`rotation.${desc.id}`, board.rotation);
});
$('beginner').addEventListener('change', (e) => {
  board.setBeginner(e.target.checked);
  savePref('beginner', e.target.checked);
});
$('new-game').addEventListener('click', newGame);
if (vsComputer) {
  $('level').addEventListener('click', chooseLevel);
  // Enter on a choice means OK (the form's first button is Cancel).
  $('level-choices').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); $('level-ok').click(); }
  });
  showLevel();
}
$('resign').addEventListener('click', resign);
$('export-go').addEventListener('click', doExport);
$('export-copy').addEventListener('click', copyExport);
$('export-download').addEventListener('click', downloadExport);
$('import-go').addEventListener('click', doImport);
for (const b of document.querySelectorAll('#notation-toggle button')) {
  b.addEventListener('click', () => {
    alt = b.dataset.alt === 'true';
    for (const x of document.querySelectorAll('#notation-toggle button')) x.setAttribute('aria-pressed', String(x === b));
    renderHistory();
  });
}
const textKey = t.has(`moves.text.${desc.id}`) ? `moves.text.${desc.id}` : 'moves.text';
const altKey = t.has(`moves.alt.${desc.id}`) ? `moves.alt.${desc.id}` : 'moves.alt';
document.querySelector('#notation-toggle [data-alt="false"]').textContent = t(textKey);
document.querySelector('#notation-toggle [data-alt="true"]').textContent = t(altKey);
fillFormats();

// ---- go: resume the saved game, else start one

async function boot() {
  if (!store.ok) notice(t('ui.storageOff'), 'warn', 'storage', 'ui.storageOff');
  const saved = store.load();
  if (saved?.state) {
    try {
      const res = await api.view(saved.state);
      set(res, saved.options);
      notice(t('ui.resumed'), 'info', '', 'ui.resumed');
      document.body.dataset.ready = 'true';
      // Reloaded while the computer was thinking: it thinks again.
      if (isComputer(game.view.toMove?.[0]) && game.view.status === 'playing') {
        announce(t('ui.thinking', { seat: seatName(game.view.toMove[0]) }));
      }
      think();
      return;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) {
        // The saved game may be fine: keep it and let a reload try again.
        noticeError(err);
        return;
      }
      {
        notice(t('ui.badSave'), 'warn', '', 'ui.badSave');
      }
    }
  }
  await start({});
  document.body.dataset.ready = 'true';
}

boot();
