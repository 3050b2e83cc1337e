// The game page, for Same device and Vs computer: it starts or resumes a
// game, keeps it in localStorage, sends the chosen moves to the server and
// shows the View it answers with. Against the computer the browser plays the
// computer's seats itself: whenever View.toMove is one of them it asks
// /suggest for a move and sends it to /play. The board itself is board.js.

import { Api, ApiError, postJSON } from './api.js';
import { setupAnalysis } from './analysis-ui.js';
import { Board } from './board.js';
import { makeT } from './i18n.js';
import { setupLook } from './look.js';
import { Nav } from './nav.js';
import { Sound } from './sound.js';
import { Store } from './store.js';
import { $, makeUI } from './ui.js';

const data = JSON.parse(document.getElementById('board-data').textContent);
const desc = data.variant;
const t = makeT(data.strings);
const api = new Api(data.api);
const store = new Store(data.storageKey);
const prefs = new Store('banmen.prefs');
const ui = makeUI({ t, desc });
const { announce, notice, clearNotices, errorText, noticeError, dialog, confirm, seatName } = ui;

// Against the computer the person plays the seat they chose (game.human:
// Sente, Red, South unless they chose another) and the computer every other one.
const vsComputer = data.mode === 'computer';
const isComputer = (seat) => vsComputer && seat !== game.human && seat !== undefined;
const levelStore = new Store('banmen.computer.level');

const game = { state: null, view: null, options: {}, human: 0 };

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

const sound = new Sound(prefs);
const board = new Board($('arena'), {
  desc,
  sound,
  t,
  announce,
  promote: (moves) => ui.choosePromotion(game.view, moves),
  onMove: (m) => play(m),
  playable: (seat) => !isComputer(seat),
  seatTag: (seat) => (vsComputer ? t(isComputer(seat) ? 'ui.computer' : 'ui.you') : ''),
});

// nav shows earlier positions of the game, each the plugin's View at that
// ply; a move is made only from the current one.
const nav = new Nav({
  viewAt: async (ply) => (await api.rewind(game.state, ply)).view,
  show: () => render(),
  t,
  enabled: Boolean(desc.rewind),
});
nav.onError = (err) => noticeError(err);
ui.onPick = desc.rewind ? (ply) => nav.go(ply) : null;
ui.afterHistory = () => nav.sync();

async function play(m) {
  if (nav.ply !== null) { render(); return; } // never from an earlier position
  const before = game.state;
  try {
    const res = await request(api.play(game.state, m.seat, m.move));
    if (game.state !== before) return; // a new game came meanwhile
    clearNotices();
    set(res, game.options);
    announce(moveText(m.seat, ui.moveLabel(m)));
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
  if (v.status === 'over') text += `. ${ui.resultText(v)}`;
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
// restFast: the person, out of the game, asked to play the rest at once.
let restFast = false;

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
      // Once the person is out (mated in Yonin) and asked for the rest at
      // once, the computers move quickly and without waiting for the slides.
      const { move } = await request(api.suggest(state, seat, level, restFast ? 200 : 0));
      if (my !== run || game.state !== state) return;
      const res = await request(api.play(state, seat, move));
      if (my !== run || game.state !== state) return;
      set(res, game.options);
      const h = game.view.history[game.view.history.length - 1];
      announce(moveText(seat, h ? ui.moveLabel(h) : move));
      // Several computer moves in a row (Yonin) are shown one after another.
      if (!restFast) await board.settled();
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

/** set takes a new game state; keep is how many first plies are the same game as before (all: a move appended). */
function set(res, options, keep) {
  game.state = res.state;
  game.view = res.view;
  game.options = options || {};
  if (keep === 0) nav.reset(game.view.ply);
  else nav.setLive(game.view.ply, keep ?? game.view.ply);
  save();
  startClock();
  render();
}

// ---- time per move (host.move_time): the page runs the countdown of the
// seat to move, and at zero the computer moves for that seat (a check
// priority answer is a turn like any other). A reload starts the turn's
// time again.
const clock = { timer: 0, tick: 0, deadline: 0, seat: null, state: null };

function startClock() {
  clearTimeout(clock.timer);
  clearInterval(clock.tick);
  clock.seat = null;
  const secs = Number(setting(game.options, 'host.move_time') || 0);
  const v = game.view;
  const seat = v?.toMove?.[0];
  if (!secs || v.status !== 'playing' || seat === undefined || isComputer(seat)) { showClock(); return; }
  clock.seat = seat;
  clock.state = game.state;
  clock.deadline = Date.now() + secs * 1000;
  clock.timer = setTimeout(timeUp, secs * 1000);
  clock.tick = setInterval(showClock, 500);
  showClock();
}

function showClock() {
  const el = $('clock');
  if (!el) return;
  el.hidden = clock.seat === null;
  document.body.dataset.clock = clock.seat === null ? '' : String(Math.max(0, Math.ceil((clock.deadline - Date.now()) / 1000)));
  if (clock.seat === null) return;
  const left = Math.max(0, Math.ceil((clock.deadline - Date.now()) / 1000));
  el.textContent = t('room.clock', { seat: seatName(clock.seat), s: left });
  el.classList.toggle('clock-low', left <= 10);
}

/** timeUp asks the computer's move for the seat whose time ran out and plays it. */
async function timeUp() {
  const seat = clock.seat;
  const state = clock.state;
  clearInterval(clock.tick);
  if (seat === null || game.state !== state || thinking !== null) return;
  const my = ++run;
  setThinking(seat);
  try {
    const { move } = await request(api.suggest(state, seat, level));
    if (my !== run) return;
    if (game.state !== state) { setThinking(null); return; }
    const res = await request(api.play(state, seat, move));
    if (my !== run) return;
    setThinking(null);
    if (game.state !== state) return;
    set(res, game.options);
    const h = game.view.history[game.view.history.length - 1];
    announce(moveText(seat, h ? (ui.alt && h.alt ? h.alt : h.text) : move));
    think();
  } catch (err) {
    if (my !== run) return;
    setThinking(null);
    notice(t('ui.computerFailed', { error: errorText(err) }), 'error', '', 'ui.computerFailed');
  }
}

function save() {
  const ok = store.save({ v: 1, state: game.state, options: game.options, human: game.human });
  if (!ok) notice(t('ui.storageOff'), 'warn', 'storage', 'ui.storageOff');
}

function render() {
  const v = game.view;
  board.setViewing(nav.ply !== null);
  board.update(nav.view || v);
  ui.renderStatus(v, (line, s) => {
    if (thinking === null) return false;
    line.classList.add('thinking');
    const dots = document.createElement('span');
    dots.className = 'thinking-dots';
    dots.setAttribute('aria-hidden', 'true');
    dots.append(document.createElement('i'), document.createElement('i'), document.createElement('i'));
    line.append(ui.seatDot(s), document.createTextNode(t('ui.thinking', { seat: seatName(thinking) })), dots);
    line.dataset.key = 'ui.thinking';
    return true;
  });

  // Actions (a declaration) and Resign, for the seat to move.
  const actions = $('actions');
  actions.replaceChildren();
  for (const m of (v.status === 'playing' ? v.legal : []).filter((x) => x.kind === 'action' && !isComputer(x.seat) && thinking === null)) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'button action';
    b.dataset.move = m.move; // for tests: which listed action it plays
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
  $('takeback').hidden = !desc.rewind;
  $('takeback').disabled = takebackTo() < 0;
  document.body.dataset.takeback = String(takebackTo());

  ui.renderResult(v, vsComputer ? [game.human] : []);
  // Out of a game the computers play on: offer the rest at once, or a new game.
  const out = vsComputer && v.status === 'playing' && (v.eliminated || []).includes(game.human);
  if ($('rest')) {
    $('rest').hidden = !out;
    $('rest-fast').disabled = restFast;
  }
  renderHistory();
  analysis.update(v);
}

// ---- takeback

/**
 * takebackTo is the ply a takeback returns to, -1 for none: on one device
 * the last move; against the computer the person's last move and every
 * computer reply after it.
 */
function takebackTo() {
  const h = game.view?.history || [];
  if (!h.length) return -1;
  if (!vsComputer) return h.length - 1;
  for (let i = h.length - 1; i >= 0; i--) if (h[i].seat === game.human) return i;
  return -1;
}

async function takeback() {
  const to = takebackTo();
  if (to < 0) return;
  const before = game.state;
  const n = game.view.ply - to;
  stopThinking();
  try {
    const res = await request(api.rewind(before, to));
    if (game.state !== before) return;
    clearNotices();
    set(res, game.options, to);
    announce(t('ui.takenBack', { n }));
    think();
  } catch (err) {
    noticeError(err);
  }
}

function renderHistory() { ui.renderHistory(game.view.history); }

// ---- new game, resume, import, export

async function start(options, human = game.human) {
  document.body.dataset.ready = 'false';
  restFast = false;
  try {
    const res = await api.start(options);
    stopThinking();
    clearNotices();
    game.human = human;
    orient();
    set(res, options, 0);
    announce(t('ui.toMove', { seat: seatName(game.view.toMove[0]) }));
    think();
  } catch (err) {
    noticeError(err);
  } finally {
    if (game.view) document.body.dataset.ready = 'true';
  }
}

// The host settings this page applies off line (time per move, rotate the
// first player); the others (players, level, first seat) are a room's.
const OFFLINE_SETTINGS = ['host.move_time', 'host.rotate_first'];

function optionSpecs() {
  const host = (desc.hostSettings || []);
  // A variant option that is a host setting by another key (the same name)
  // is set through the host setting: the first seat, which rotation moves.
  const hostNames = new Set(host.map((h) => h.nameKey));
  return [...(desc.options || []).filter((o) => !hostNames.has(o.nameKey)), ...host.filter((h) => OFFLINE_SETTINGS.includes(h.key))];
}

function optionFields() {
  const box = $('options-fields');
  box.replaceChildren();
  const specs = optionSpecs();
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
    } else if (o.type === 'int' && o.seat) {
      // A seat, by name.
      input = document.createElement('select');
      for (let i = o.min ?? 0; i <= (o.max ?? desc.seats.length - 1) && i < desc.seats.length; i++) {
        const opt = document.createElement('option');
        opt.value = String(i);
        opt.textContent = seatName(i);
        opt.selected = String(i) === cur;
        input.append(opt);
      }
    } else if (o.type === 'int') {
      input = document.createElement('input');
      input.type = 'number';
      input.min = String(o.min ?? 0);
      input.max = String(o.max ?? 0);
      input.value = cur;
      if (o.none !== undefined) {
        // "None" is a choice of its own; a number only when there is one.
        const pick = document.createElement('select');
        pick.id = `${id}-none`;
        pick.setAttribute('aria-label', label.textContent);
        for (const [v, k] of [['none', 'ui.option.none'], ['some', 'ui.option.some']]) {
          const opt = document.createElement('option');
          opt.value = v;
          opt.textContent = t(k);
          pick.append(opt);
        }
        pick.value = cur === o.none ? 'none' : 'some';
        if (cur === o.none) input.value = String(Math.max(o.min ?? 0, 1, Math.min(o.max ?? 100, 100)));
        input.hidden = pick.value === 'none';
        input.dataset.none = o.none;
        input.setAttribute('aria-label', label.textContent);
        pick.addEventListener('change', () => { input.hidden = pick.value === 'none'; });
        label.htmlFor = pick.id;
        const both = document.createElement('span');
        both.className = 'option-none';
        input.id = id;
        input.dataset.key = o.key;
        input.dataset.type = o.type;
        both.append(pick, input);
        row.append(label, both);
        box.append(row);
        continue;
      }
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

/** setting is a host setting's value in options, else its declared default ('' when undeclared). */
function setting(options, key) {
  const spec = (desc.hostSettings || []).find((h) => h.key === key);
  if (!spec) return '';
  return options[key] ?? spec.default;
}

/** rotated gives a new game the seat after the last game's first one, when rotation is on. */
function rotated(options) {
  if (setting(options, 'host.rotate_first') !== 'true' || !setting(options, 'host.first_seat') || !game.view) return options;
  const v = game.view;
  const first = v.history?.[0]?.seat ?? v.toMove?.[0] ?? 0;
  return { ...options, 'host.first_seat': String((first + 1) % desc.seats.length) };
}

function readOptions() {
  const out = {};
  for (const el of $('options-fields').querySelectorAll('[data-key]')) {
    out[el.dataset.key] = el.dataset.type === 'bool' ? String(el.checked) : el.hidden && el.dataset.none !== undefined ? el.dataset.none : String(el.value);
  }
  return out;
}

async function newGame() {
  const inProgress = game.view && game.view.ply > 0 && game.view.status === 'playing';
  const hasOptions = optionFields();
  if (hasOptions || vsComputer) {
    $('options-confirm').hidden = !inProgress;
    for (const r of document.querySelectorAll('#side-choices input')) r.checked = Number(r.value) === game.human;
    if (await dialog('options-dialog')) {
      const side = document.querySelector('#side-choices input:checked');
      await start(rotated(readOptions()), side ? Number(side.value) : game.human);
    }
    return;
  }
  if (inProgress && !(await confirm(t('ui.confirmNew')))) return;
  await start(rotated({}));
}

async function resign() {
  const s = vsComputer ? game.human : game.view.toMove[0];
  const q = vsComputer ? t('ui.confirmResignYou') : t('ui.confirmResign', { seat: seatName(s) });
  if (!(await confirm(q))) return;
  if (vsComputer && (thinking !== null || game.view.status !== 'playing')) return;
  await play({ seat: s, move: 'resign', text: t('ui.resign') });
}

async function doImport() {
  const text = $('import-text').value.trim();
  if (!text) return;
  if (game.view.ply > 0 && game.view.status === 'playing' && !(await confirm(t('ui.confirmImport')))) return;
  document.body.dataset.ready = 'false';
  try {
    const res = await api.import($('import-format').value, text);
    stopThinking();
    restFast = false;
    clearNotices();
    set(res, {}, 0);
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

// ---- preferences: rotation and the look of the board (look.js)

const pref = prefs.load() || {};
// Against the computer the person's side is always at the bottom.
function orient() {
  if (vsComputer) board.setRotation((4 - board.seatFacing(game.human)) % 4);
}
board.setRotation(vsComputer ? 0 : pref[`rotation.${desc.id}`] || 0);
$('flip').hidden = vsComputer;
setupLook(board, desc, prefs, sound);
ui.pieceLook = () => board.look;

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
$('takeback').addEventListener('click', takeback);
$('result-new').addEventListener('click', newGame);
$('rest-new')?.addEventListener('click', newGame);
// The move being chosen at the ordinary pace is chosen again, quickly.
$('rest-fast')?.addEventListener('click', () => { restFast = true; stopThinking(); render(); think(); });
$('result-export').addEventListener('click', () => ui.openExport());
$('import-go').addEventListener('click', doImport);
ui.setupNotation(prefs);
ui.setupExport(async (format) => (await api.export(game.state, format)).text);

// ---- analysis of the finished game (analysis-ui.js)

const analysis = setupAnalysis({
  t, desc, ui, board, nav,
  // Against the computer the graph takes the person's side.
  seat: () => (vsComputer ? game.human : 0),
  source: () => ({ key: game.state, url: `${data.api}/analyse`, body: { state: game.state } }),
  // The whole line in the page's notation, played from the position by
  // the server in one call (a move the rules refuse keeps the engine's text).
  pvTexts: async (ply, pv) => {
    const { moves } = await postJSON(`${data.api}/analyse/line`, { state: game.state, ply, pv });
    return [...moves.map((h) => ui.moveLabel(h)), ...pv.slice(moves.length)];
  },
  exportText: desc.notations.some((n) => n.id === 'kif')
    ? async (rows) => (await postJSON(`${data.api}/analyse/export`, { state: game.state, format: 'kif', lang: data.lang, analysis: rows })).text
    : null,
});

// ---- go: resume the saved game, else start one

/**
 * goOn takes over a room's position handed over by its page (Go on against
 * the computer): the person keeps their seat, the computer plays the other.
 * The game replaces this device's computer game; the room is untouched.
 */
async function goOn() {
  const key = `banmen.goOn.${desc.id}`;
  let hand;
  try {
    hand = JSON.parse(sessionStorage.getItem(key) || 'null');
    sessionStorage.removeItem(key);
  } catch { return false; }
  if (!vsComputer || !hand?.text) return false;
  try {
    const res = await api.import(hand.format, hand.text);
    const h = Number(hand.human);
    game.human = Number.isInteger(h) && h >= 0 && h < desc.seats.length ? h : 0;
    orient();
    set(res, {}, 0);
    const p = notice(t('ui.goOn'), 'info', 'goon', 'ui.goOn');
    if (p && typeof hand.room === 'string' && hand.room.startsWith('/')) {
      const a = document.createElement('a');
      a.href = hand.room;
      a.textContent = t('ui.goOn.back');
      p.insertBefore(document.createTextNode(' '), p.lastChild);
      p.insertBefore(a, p.lastChild);
    }
    document.body.dataset.ready = 'true';
    think();
    return true;
  } catch (err) {
    noticeError(err);
    return false;
  }
}

async function boot() {
  if (!store.ok) notice(t('ui.storageOff'), 'warn', 'storage', 'ui.storageOff');
  if (await goOn()) return;
  const saved = store.load();
  if (saved?.state) {
    try {
      const res = await api.view(saved.state);
      const h = Number(saved.human);
      game.human = vsComputer && Number.isInteger(h) && h >= 0 && h < desc.seats.length ? h : 0;
      orient();
      set(res, saved.options, 0);
      notice(t('ui.resumed'), 'info', '', 'ui.resumed');
      document.body.dataset.ready = 'true';
      // Reloaded while the computer was thinking: it thinks again.
      if (isComputer(game.view.toMove?.[0]) && game.view.status === 'playing') {
        announce(t('ui.thinking', { seat: seatName(game.view.toMove[0]) }));
      }
      think();
      return;
    } catch (err) {
      // 422: the plugin refused the saved game; state_not_issued: the site
      // did not sign it (saved before its key changed). Either way a new game.
      if (!(err instanceof ApiError) || (err.status !== 422 && err.code !== 'state_not_issued')) {
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
