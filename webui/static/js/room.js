// A room's page (Play with a friend): one board fed by the room's socket
// (docs/protocol.md, "Rooms"). The server keeps the game; this page sends a
// move text with the version it answers and draws what the server sends. A
// move counts as played only once the server has confirmed it: until then it
// is shown as pending. The board itself is board.js; the status, move list,
// dialogs and export are shared with the other modes (ui.js).

import { ApiError, postJSON } from './api.js';
import { setupAnalysis } from './analysis-ui.js';
import { Board } from './board.js';
import { makeT } from './i18n.js';
import { setupLook } from './look.js';
import { Nav } from './nav.js';
import { qrSVG } from './qr.js';
import { createRoom, dropSeatKey, keepSeatKey, seatKey, StorageOff } from './rooms.js';
import { Sound } from './sound.js';
import { Store } from './store.js';
import { $, makeUI } from './ui.js';

const data = JSON.parse(document.getElementById('board-data').textContent);
const desc = data.variant;
const t = makeT(data.strings);
const ui = makeUI({ t, desc });
const { announce, seatName } = ui;
// notice is ui.notice; an info notice goes by itself after a while: on a
// phone the notices float over the page (site.css), where one left there
// would hide what is under it. Warnings and errors stay until closed.
const INFO_NOTICE_MS = 8000;
const floating = matchMedia('(max-width: 55.99rem)');
function notice(text, kind = 'info', id = '', key = '') {
  const p = ui.notice(text, kind, id, key);
  if (p && kind === 'info' && floating.matches) setTimeout(() => p.remove(), INFO_NOTICE_MS);
  return p;
}
const roomID = data.room;
const prefs = new Store('banmen.prefs');
const body = document.body.dataset;

// The room as this page last heard it.
const room = {
  version: null, // the last version seen (null before the first welcome)
  round: 0,
  seat: -1, // ours; -1 while watching
  presence: null,
  newRound: null,
  view: null,
  history: [],
  broken: null,
  settings: null, // the options the room was created with (welcome)
  clock: null, // {seat, limit, remaining, at}: the time per move as last sent
};

// Computer seats (docs/protocol.md, "Computer seats"): a game whose
// description declares the host setting host.level has the computer in the
// free seats once the host starts, and for whoever is away.
const computerSeats = (desc.hostSettings || []).some((s) => s.key === 'host.level');

// A visitor without a seat in a room with host settings watches first: the
// page shows the settings and who holds each seat, and the visitor chooses
// to take the free seat or to watch ("watch" in hello). Two-player rooms
// seat the first guest on opening. choice: undecided | watch | take.
let choice = computerSeats && !seatKey(roomID) ? 'undecided' : 'take';

// humanSeats is how many people the room was created for (host.human_seats,
// with computer seats only; null: every seat): once that many are seated
// the page stops inviting. The server applies it: it starts the game by
// itself then (presence.started), with the computer in the other seats, and
// seats nobody more.
const humanSeatsSpec = computerSeats ? (desc.hostSettings || []).find((s) => s.key === 'host.human_seats') : null;
function humanSeatsOf() {
  if (!humanSeatsSpec || !room.settings) return null;
  const n = Number(room.settings['host.human_seats'] ?? humanSeatsSpec.default);
  return Number.isInteger(n) && n >= 1 && n < desc.seats.length ? n : null;
}

// pending is our move sent (or to be sent) and not yet confirmed:
// {id, move, text, alt, seat, version}. One at a time: the board is locked
// meanwhile.
let pending = null;
let seq = 0;
const nextID = (kind) => `${kind}${++seq}`;
// Other actions in flight, by id, to say which one a refusal was.
const actions = new Map();

// ---- the connection

// state: connecting | open | reconnecting | replaced | moved | gone | stopped
const conn = { ws: null, state: 'connecting', attempt: 0, timer: 0, tick: 0, retryAt: 0, code: '', lastHeard: 0, pinger: 0 };
const BACKOFF = [500, 1000, 2000, 4000, 8000, 15000];

function connect() {
  clearTimeout(conn.timer);
  clearInterval(conn.tick);
  setConn('connecting');
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${proto}//${location.host}${data.socket}`);
  conn.ws = ws;
  ws.onopen = () => {
    const hello = { type: 'hello' };
    if (conn.code) hello.code = conn.code;
    else {
      const k = seatKey(roomID);
      if (k) hello.seatKey = k;
      else if (choice !== 'take') hello.watch = true;
    }
    if (room.version !== null) hello.version = room.version;
    ws.send(JSON.stringify(hello));
    conn.lastHeard = Date.now();
    clearInterval(conn.pinger);
    // Browsers cannot send WebSocket pings, nor see the server's: a silent
    // network is noticed by an application ping (twice per server ping
    // interval) that nothing answers for one whole interval. Such a
    // socket is dropped at once: its close handshake would never end.
    conn.pinger = setInterval(() => {
      if (ws !== conn.ws || ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - conn.lastHeard > PING_MS) { dropDead(ws); return; }
      ws.send(JSON.stringify({ type: 'ping', id: 'p' }));
    }, PING_MS / 2);
  };
  ws.onmessage = (e) => {
    if (ws !== conn.ws) return;
    conn.lastHeard = Date.now();
    let ev;
    try { ev = JSON.parse(e.data); } catch { return; }
    onEvent(ev);
  };
  ws.onclose = (e) => {
    if (ws !== conn.ws) return;
    clearInterval(conn.pinger);
    conn.ws = null;
    onClose(e.code);
  };
}

// PING_MS is the server's ping interval (limits.ping_interval).
const PING_MS = Math.max(1000, Number(data.pingMs) || 20000);

/** dropDead gives up a socket that went silent and reconnects. */
function dropDead(ws) {
  clearInterval(conn.pinger);
  conn.ws = null;
  try { ws.close(); } catch { /* closing a dead socket */ }
  onClose(1006);
  render();
}

function onClose(code) {
  const usedCode = conn.code;
  conn.code = '';
  if (room.seat >= 0 && room.presence) room.presence.seats[room.seat].connected = false;
  switch (code) {
    case 4001: // replaced by another tab, or the seat moved: do not reconnect
      stop(conn.state === 'moved' ? 'moved' : 'replaced');
      return;
    case 4003: // the key or code holds no seat here
      if (usedCode) {
        notice(t('room.code.bad'), 'error', '', 'room.code.bad');
      } else {
        dropSeatKey(roomID);
        notice(t('room.badKey'), 'warn', '', 'room.badKey');
      }
      room.version = null;
      setTimeout(connect, 0);
      return;
    case 4004:
      stop('gone');
      return;
    case 1008: case 1009:
      stop('stopped', t('room.protocolError'));
      return;
    case 4029:
      notice(t('room.tooMany'), 'error', 'toomany', 'room.tooMany');
      retry(60000);
      return;
    case 4010: // the room takes no more spectators for now
      notice(t('room.tooManyWatchers'), 'warn', 'toomany', 'room.tooManyWatchers');
      retry(30000);
      return;
    default:
      retry(BACKOFF[Math.min(conn.attempt, BACKOFF.length - 1)]);
      conn.attempt++;
  }
}

function retry(ms) {
  conn.retryAt = Date.now() + ms;
  setConn('reconnecting');
  conn.timer = setTimeout(connect, ms);
  clearInterval(conn.tick);
  conn.tick = setInterval(showConn, 1000);
}

function reconnectNow() {
  if (conn.state !== 'reconnecting') return;
  connect();
}

/** stop ends the connection for good (until the person asks again). */
function stop(state, text) {
  clearTimeout(conn.timer);
  clearInterval(conn.tick);
  const ws = conn.ws;
  conn.ws = null;
  ws?.close();
  setConn(state);
  const msg = {
    replaced: t('room.replaced'),
    moved: t('room.moved'),
    gone: t('room.gone.text'),
  }[state] ?? text ?? '';
  $('stopped-text').textContent = msg;
  $('stopped').hidden = false;
  $('use-here').hidden = state !== 'replaced' && state !== 'moved';
  $('new-room').hidden = state !== 'gone';
  if (pending) notPlayed(pending, t('room.conn.stopped'));
  render();
}

function setConn(state) {
  // Screen readers hear a change of state once, not every tick of the countdown.
  const was = conn.state;
  conn.state = state;
  if (state === 'reconnecting' && was !== 'reconnecting') announce(t('room.conn.reconnecting', { s: Math.ceil((conn.retryAt - Date.now()) / 1000) }));
  if (state === 'open' && (was === 'reconnecting' || was === 'connecting') && room.version !== null) announce(t('room.conn.open'));
  body.conn = state;
  if (state === 'open') conn.attempt = 0;
  if (state !== 'replaced' && state !== 'moved' && state !== 'gone' && state !== 'stopped') $('stopped').hidden = true;
  showConn();
  if (room.view) render();
}

function showConn() {
  const box = $('conn');
  box.dataset.state = conn.state;
  let text;
  switch (conn.state) {
    case 'open': text = t('room.conn.open'); break;
    case 'reconnecting': text = t('room.conn.reconnecting', { s: Math.max(1, Math.ceil((conn.retryAt - Date.now()) / 1000)) }); break;
    case 'connecting': text = t('room.conn.connecting'); break;
    default: text = t('room.conn.stopped');
  }
  $('conn-text').textContent = text;
  // Between two tries of a reconnection (connecting again after a drop)
  // the button stays, disabled: hidden and shown again it moved the board
  // under a finger every few seconds.
  const retrying = conn.state === 'reconnecting' || (conn.state === 'connecting' && conn.attempt > 0);
  $('reconnect').hidden = !retrying;
  $('reconnect').disabled = conn.state !== 'reconnecting';
}

function send(msg) {
  if (conn.state !== 'open' || !conn.ws) return false;
  conn.ws.send(JSON.stringify(msg));
  return true;
}

// ---- what the server says

// catchUpTo is the version the welcome said the room is at, while the
// events we missed are still arriving.
let catchUpTo = null;

function onEvent(ev) {
  switch (ev.type) {
    case 'welcome': onWelcome(ev); return;
    case 'move': case 'round': case 'request': case 'accept': case 'decline': case 'withdraw': case 'join': case 'rekey': case 'start': case 'name':
      onRoomEvent(ev);
      takeClock(ev);
      break;
    case 'presence':
      room.version = ev.version;
      room.presence = ev.presence;
      break;
    case 'ack': onAck(ev); break;
    case 'refused': onRefused(ev); break;
    case 'seatCode': showSeatCode(ev); break;
    case 'replaced':
      conn.state = ev.reason === 'moved' ? 'moved' : 'replaced';
      if (ev.reason === 'moved') dropSeatKey(roomID);
      return;
    case 'error':
      if (ev.code === 'bad_seat_key' || ev.code === 'room_not_found' || ev.code === 'too_many_attempts' || ev.code === 'too_many_watchers') return; // the close code says it
      if (ev.message) notice(t('room.error', { message: ev.message }), 'error', '', 'room.error');
      return;
    default:
      return; // pong
  }
  render();
}

function onWelcome(ev) {
  if (ev.seatKey && !keepSeatKey(roomID, ev.seatKey)) notice(t('room.storageOff'), 'warn', 'storage', 'room.storageOff');
  const wasSeat = room.seat;
  room.seat = ev.seat;
  room.round = ev.round;
  room.presence = ev.presence;
  room.newRound = ev.newRound ?? null;
  room.broken = ev.broken ?? null;
  room.settings = ev.settings ?? {};
  takeClock(ev);
  if (ev.resync === 'full') {
    room.view = ev.view;
    room.history = ev.view.history || [];
    room.version = ev.version;
    catchUpTo = null;
  } else {
    catchUpTo = ev.version;
  }
  body.seat = String(room.seat);
  if (wasSeat !== room.seat) orient();
  setConn('open');
  $('stopped').hidden = true;
  document.getElementById('notices').querySelector('[data-id="toomany"]')?.remove();
  if (room.broken) notice(t('room.broken'), 'error', 'broken', 'room.broken');
  if (catchUpTo === null || catchUpTo === room.version) caughtUp();
  render();
  body.ready = 'true';
}

/** caughtUp runs once the page knows everything the room did: a move still pending is sent (again). */
function caughtUp() {
  catchUpTo = null;
  if (!pending) return;
  // A move whose answer was lost is resent at the version it answered: the
  // server acknowledges it once (duplicate) if it was played, plays it if
  // nothing happened since, or refuses it as stale.
  send({ type: 'move', version: pending.version, move: pending.move, id: pending.id });
}

/** withCells is board with the cells a move changed (a live move event carries only those). */
function withCells(board, cells) {
  const b = board.slice();
  for (const c of cells || []) if (c.at >= 0 && c.at < b.length) b[c.at] = c.cell;
  return b;
}

function onRoomEvent(ev) {
  room.version = ev.version;
  if (ev.round) room.round = ev.round;
  const who = ev.seat;
  switch (ev.type) {
    case 'move':
      // Passing news (who joined, a declined round) ends with the next move.
      for (const n of $('notices').querySelectorAll('.notice-info')) n.remove();
      if (ev.played) room.history.push(ev.played);
      if (pending && who === room.seat && ev.move === pending.move && ev.version === pending.version + 1) pending = null;
      if (ev.view) {
        const wasOut = (room.view?.eliminated || []).includes(room.seat);
        if (ev.view.board === null && room.view) ev.view.board = withCells(room.view.board, ev.cells);
        room.view = ev.view;
        if (catchUpTo === null) announceMove(ev);
        // A mated player stays and watches the rest of the game.
        if (!wasOut && room.seat >= 0 && (ev.view.eliminated || []).includes(room.seat) && ev.view.status === 'playing') {
          notice(t('room.mated'), 'warn', 'mated', 'room.mated');
        }
      }
      break;
    case 'round':
      room.history = [];
      room.newRound = null;
      if (ev.view) room.view = ev.view;
      if (pending) notPlayed(pending, t('room.newRound.started'));
      ui.clearNotices();
      notice(t('room.newRound.started'), 'info', '', 'room.newRound.started');
      announce(t('room.newRound.started'));
      break;
    case 'request':
    case 'accept':
      room.newRound = ev.newRound;
      if (ev.type === 'request' && who !== room.seat) announce(t('room.newRound.offer', { seat: seatName(who) }));
      break;
    case 'decline':
      room.newRound = null;
      if (who !== room.seat) notice(t('room.newRound.declined', { seat: seatName(who) }), 'info', '', 'room.newRound.declined');
      break;
    case 'withdraw':
      room.newRound = null;
      if (who !== room.seat) notice(t('room.newRound.withdrawn', { seat: seatName(who) }), 'info', '', 'room.newRound.withdrawn');
      break;
    case 'start':
      if (ev.view) room.view = ev.view;
      if (room.presence) room.presence.started = true;
      notice(t('room.started'), 'info', '', 'room.started');
      announce(t('room.started'));
      break;
    case 'name': // untrusted text: only ever shown as text
      if (room.presence && room.presence.seats[who]) room.presence.seats[who].name = ev.name || '';
      break;
    case 'join':
      if (room.presence) room.presence.seats[who].taken = true;
      if (who !== room.seat) {
        notice(t('room.joined', { seat: seatName(who) }), 'info', '', 'room.joined');
        announce(t('room.joined', { seat: seatName(who) }));
      }
      break;
    default:
      break;
  }
  if (catchUpTo !== null && room.version >= catchUpTo) caughtUp();
}

/** takeClock keeps the time per move an event carries (events that change the turn always say it). */
function takeClock(ev) {
  if (ev.clock) room.clock = { ...ev.clock, at: Date.now() };
  else if (ev.view || ev.type === 'welcome') room.clock = null;
}

/** renderClock shows the seconds left to the seat to move; the server's clock decides. */
function renderClock() {
  const el = $('clock');
  const c = room.clock;
  const v = room.view;
  el.hidden = !c || !v || v.status !== 'playing';
  if (el.hidden) { body.clock = ''; return; }
  const left = Math.max(0, Math.ceil((c.remaining - (Date.now() - c.at)) / 1000));
  el.textContent = t('room.clock', { seat: seatName(c.seat), s: left });
  el.dataset.seat = String(c.seat);
  el.classList.toggle('clock-low', left <= 10);
  body.clock = String(left);
}
setInterval(renderClock, 500);

function announceMove(ev) {
  const v = room.view;
  const text = ev.played ? ui.moveLabel(ev.played) : ui.moveLabel({ move: ev.move, text: ev.move });
  let s = ev.claimed ? t('room.claimed', { seat: seatName(ev.seat) }) : t('ui.announce.move', { seat: seatName(ev.seat), move: text });
  if ((v.inCheck || []).length && v.status === 'playing') s += `. ${t('ui.check')}`;
  if (v.status === 'over') s += `. ${ui.resultText(v)}`;
  announce(s);
}

function onAck(ev) {
  room.version = ev.version;
  if (pending && ev.id === pending.id) pending = null;
  actions.delete(ev.id);
}

function onRefused(ev) {
  room.version = ev.version;
  const reason = refusalText(ev);
  if (pending && ev.id === pending.id) {
    notPlayed(pending, reason);
    return;
  }
  actions.delete(ev.id);
  notice(reason, 'error', '', ev.key || 'ui.error');
}

function refusalText(ev) {
  if (t.has(`room.refused.${ev.code}`)) return t(`room.refused.${ev.code}`);
  if (ev.key && t.has(ev.key)) return t(ev.key);
  return t('ui.error', { message: ev.message || ev.code });
}

function notPlayed(p, reason) {
  pending = null;
  const text = t('room.notPlayed', { move: p.text, reason });
  notice(text, 'error', '', 'room.notPlayed');
  announce(text);
}

// ---- acting

function play(m) {
  if (pending || nav.ply !== null) return; // never a move from an earlier position
  pending = { id: nextID('m'), move: m.move, text: m.text, alt: m.alt, seat: m.seat, version: room.version };
  if (conn.state === 'open') send({ type: 'move', version: pending.version, move: pending.move, id: pending.id });
  // Else it waits for the connection: caughtUp sends it.
  render();
}

function act(type) {
  const id = nextID(type[0]);
  actions.set(id, type);
  if (!send({ type, version: room.version, id })) notice(t('room.conn.offline'), 'warn', '', 'room.conn.offline');
}

async function resign() {
  if (!(await ui.confirm(t('room.confirmResign')))) return;
  act('resign');
}

async function claimWin() {
  if (!(await ui.confirm(t('room.confirmClaimWin')))) return;
  act('claimWin');
}

async function newRound() {
  const v = room.view;
  const inProgress = v && v.status === 'playing' && v.ply > 0;
  const alone = room.presence && room.presence.seats.filter((s) => s.taken).length === 1;
  if (inProgress && !(await ui.confirm(t(alone ? 'room.confirmNewRound' : 'room.confirmAskNewRound')))) return;
  act('newRound');
}

// ---- drawing

const board = new Board($('arena'), {
  desc,
  sound: new Sound(prefs),
  t,
  announce,
  promote: (moves) => ui.choosePromotion(room.view, moves),
  onMove: (m) => play(m),
  playable: (seat) => seat === room.seat,
  seatTag: (seat) => {
    const tags = [];
    if (seat === room.seat) tags.push(t('ui.you'));
    const p = room.presence?.seats[seat];
    if (p && p.computer) tags.push(p.taken ? t('room.seat.awayComputer') : t('room.seat.computer'));
    else if (p && !p.taken) tags.push(t('room.seat.free'));
    else if (p && !p.connected) tags.push(t('room.seat.away'));
    return tags.join(' · ');
  },
});

// nav shows earlier positions of the round, each the plugin's View that the
// server answers for the room at that ply; no move is made from them.
const nav = new Nav({
  viewAt: async (ply) => (await postJSON(`/api/v1/rooms/${encodeURIComponent(roomID)}/view`, { ply })).view,
  show: () => render(),
  t,
  enabled: Boolean(desc.rewind),
});
nav.onError = (err) => ui.noticeError(err);
ui.onPick = desc.rewind ? (ply) => nav.go(ply) : null;
ui.afterHistory = () => nav.sync();
let navRound = null;
// The analysis of an ended round (analysis-ui.js); its record stays on the server.
const analysis = setupAnalysis({
  t, desc, ui, board, nav,
  seat: () => Math.max(room.seat, 0), // a player's own side; a spectator sees the first seat's
  source: () => ({ key: `${roomID}:${room.round}`, url: `/api/v1/rooms/${encodeURIComponent(roomID)}/analyse`, body: {} }),
  // The line in the page's notation and the analysed record come from the
  // server too, which plays and writes the room's ended round.
  pvTexts: async (ply, pv) => {
    const { moves } = await postJSON(`/api/v1/rooms/${encodeURIComponent(roomID)}/analyse/line`, { ply, pv });
    return [...moves.map((h) => ui.moveLabel(h)), ...pv.slice(moves.length)];
  },
  exportText: (desc.notations || []).some((n) => n.id === 'kif')
    ? async (rows) => (await postJSON(`/api/v1/rooms/${encodeURIComponent(roomID)}/analyse/export`,
      { format: 'kif', lang: document.documentElement.lang, analysis: rows })).text
    : null,
});

/** orient puts the own side at the bottom (a spectator sees the first seat's side). */
function orient() {
  const s = room.seat >= 0 ? room.seat : 0;
  board.setRotation((4 - board.seatFacing(s)) % 4);
}

/** waitingFor is why moves wait: a free seat or a seat not connected (null when none). */
function waitingFor() {
  const p = room.presence;
  if (!p) return null;
  // With computer seats nobody is waited for once the game started.
  if (computerSeats && (p.started || p.seats.every((s) => s.taken))) return null;
  if (computerSeats) {
    const free = p.seats.findIndex((s) => !s.taken);
    return { key: room.seat === 0 ? 'room.waitStart' : 'room.waitHost', seat: room.seat === 0 ? free : 0 };
  }
  const free = p.seats.findIndex((s) => !s.taken);
  if (free >= 0) return { key: 'room.waitJoin', seat: free };
  const away = p.seats.findIndex((s, i) => !s.connected && i !== room.seat);
  if (away >= 0) return { key: 'room.waitReconnect', seat: away };
  return null;
}

function render() {
  const v = room.view;
  if (!v) return;
  const online = conn.state === 'open' || conn.state === 'connecting' || conn.state === 'reconnecting';
  const wait = conn.state === 'open' ? waitingFor() : null;
  // Moves while both are here; a move made while our own connection is
  // down waits for it (and is then confirmed, or said not to be played).
  board.setLocked(!online || room.seat < 0 || Boolean(pending) || Boolean(wait) || Boolean(room.broken) || catchUpTo !== null);
  if (navRound !== room.round) {
    navRound = room.round;
    nav.reset(v.ply);
  } else {
    nav.setLive(v.ply);
  }
  board.setViewing(nav.ply !== null);
  board.update(nav.view || v);
  body.version = String(room.version);
  body.round = String(room.round);
  body.pending = String(Boolean(pending));
  body.waiting = wait ? String(wait.seat) : '';
  ui.renderStatus(v, (line, s) => {
    if ((conn.state === 'reconnecting' || (conn.state === 'connecting' && room.version !== null)) && v.status === 'playing') {
      // The headline says it: a move made now waits for the connection.
      line.classList.add('waiting');
      const key = pending ? 'room.conn.lostPending' : 'room.conn.lost';
      line.append(document.createTextNode(t(key)));
      line.dataset.key = key;
      return true;
    }
    if (pending) {
      line.classList.add('thinking');
      line.append(ui.seatDot(pending.seat), document.createTextNode(t('room.pending.move', { move: ui.alt && pending.alt ? pending.alt : pending.text })));
      line.dataset.key = 'room.pending.move';
      return true;
    }
    if (wait && v.status === 'playing') {
      line.classList.add('waiting');
      line.append(ui.seatDot(wait.seat), document.createTextNode(t(wait.key, { seat: seatName(wait.seat) })));
      line.dataset.key = wait.key;
      return true;
    }
    if (s !== undefined && s === room.seat) {
      line.append(ui.seatDot(s), document.createTextNode(t('room.yourMove', { seat: seatName(s) })));
      line.dataset.key = 'room.yourMove';
      return true;
    }
    return false;
  });
  const pend = pending ? [{ seat: pending.seat, move: pending.move, text: pending.text, alt: pending.alt }] : [];
  ui.renderHistory(room.history, pend);
  renderPresence();
  renderControls(v);
  renderInvite();
  ui.renderResult(v, room.seat >= 0 ? [room.seat] : []);
  renderSettings();
  renderChoice();
  renderClock();
  renderGone(v);
  analysis.update(v);
}

/** renderChoice offers a visitor who watches the free seat (or watching). */
function renderChoice() {
  const seats = room.presence?.seats || [];
  // A room for fewer people than seats seats nobody more once they are
  // seated (the server's rule): its computer seats are not offered.
  const humanSeats = humanSeatsOf();
  const full = humanSeats !== null && seats.filter((s) => s.taken).length >= humanSeats;
  const free = full ? -1 : seats.findIndex((s) => !s.taken);
  const box = $('seat-choice');
  box.hidden = choice === 'take' || room.seat >= 0 || free < 0 || room.version === null || Boolean(room.broken);
  body.choice = box.hidden ? 'none' : choice;
  if (box.hidden) return;
  $('seat-choice-text').hidden = choice !== 'undecided';
  $('just-watch').hidden = choice !== 'undecided';
  $('take-seat').textContent = t('room.choice.take', { seat: seatName(free) });
  $('take-seat').disabled = conn.state !== 'open';
}

$('take-seat').addEventListener('click', () => {
  choice = 'take';
  $('seat-choice').hidden = true;
  // Say hello again, this time taking the next free seat.
  const old = conn.ws;
  conn.ws = null;
  if (old) old.close();
  connect();
});
$('just-watch').addEventListener('click', () => {
  choice = 'watch';
  render();
});

/** renderSettings lists the room's settings (the room's options over the declared defaults). */
let settingsDrawn = false;
function renderSettings() {
  if (settingsDrawn || !room.settings) return;
  const specs = [...(desc.options || []), ...(desc.hostSettings || [])].filter((o) => o.key !== 'host.first_seat');
  if (!specs.length || !computerSeats) return;
  settingsDrawn = true;
  const dl = $('room-settings-list');
  for (const o of specs) {
    const val = room.settings[o.key] ?? o.default;
    const dt = document.createElement('dt');
    dt.textContent = t.has(o.nameKey) ? t(o.nameKey) : o.name;
    const dd = document.createElement('dd');
    dd.dataset.key = o.key;
    if (o.type === 'bool') dd.textContent = t(val === 'true' ? 'room.settings.on' : 'room.settings.off');
    else if (o.none !== undefined && val === o.none) dd.textContent = t('ui.option.none');
    else if (o.seat) dd.textContent = seatName(Number(val));
    else dd.textContent = t.has(`${o.nameKey}.${val}`) ? t(`${o.nameKey}.${val}`) : val;
    dl.append(dt, dd);
  }
  $('room-settings-box').hidden = false;
  // A newcomer sees what they join.
  $('room-settings-box').open = choice === 'undecided' || (room.version !== null && room.view && room.view.ply === 0);
}

function renderPresence() {
  const ul = $('presence');
  ul.replaceChildren();
  const p = room.presence;
  if (!p) return;
  p.seats.forEach((s, i) => {
    const li = document.createElement('li');
    li.dataset.seat = String(i);
    li.dataset.state = s.computer ? 'computer' : !s.taken ? 'free' : s.connected ? 'connected' : 'away';
    const given = s.name ? ` · ${s.name}` : ''; // a player's name: text, never HTML
    const name = i === room.seat ? `${seatName(i)}${given} (${t('ui.you')})` : `${seatName(i)}${given}`;
    let state = !s.taken ? t('room.seat.free') : s.connected ? t('room.seat.connected') : s.gone ? t('room.seat.gone') : t('room.seat.away');
    if (s.computer) state = s.taken ? t('room.seat.awayComputer') : t('room.seat.computer');
    li.append(ui.seatDot(i), document.createTextNode(`${name}: ${state}`));
    ul.append(li);
  });
  const li = document.createElement('li');
  li.className = 'spectators';
  li.dataset.count = String(p.spectators);
  li.textContent = room.seat < 0 ? t('room.watchingYou', { n: p.spectators }) : t('room.watching', { n: p.spectators });
  ul.append(li);
  body.spectators = String(p.spectators);
}

function renderControls(v) {
  const seated = room.seat >= 0;
  const live = conn.state === 'open' && !room.broken;
  // Play begins once every seat is taken, or the host started with the
  // computer in the free ones (the server's rule): before that there is
  // nothing to resign or to start again.
  const p = room.presence;
  const begun = Boolean(p && (p.started || p.seats.every((s) => s.taken))) || v.ply > 0 || room.round > 1;
  $('resign').hidden = !desc.resign || !seated || v.status !== 'playing' || !begun;
  $('resign').disabled = !live;
  // The server says when the other player is gone (its clock, not ours).
  const gone = seated && desc.seats.length === 2 && Boolean(room.presence?.seats[1 - room.seat]?.gone);
  $('claim-win').hidden = !gone || v.status !== 'playing';
  $('claim-win').disabled = !live;
  $('name-form').hidden = !seated;
  if (seated && document.activeElement !== $('name-input')) $('name-input').value = room.presence?.seats[room.seat]?.name || '';
  $('name-form').querySelector('button').disabled = !live;
  const nr = room.newRound;
  // New round: in the controls during play, in the result panel after it
  // (one button at a time).
  $('new-round').hidden = !seated || Boolean(nr) || !begun || v.status !== 'playing';
  $('new-round').disabled = !live;
  $('result-new').hidden = !seated || Boolean(nr);
  $('result-new').disabled = !live;
  const box = $('consent');
  box.hidden = !nr;
  body.newRound = !nr ? 'none' : nr.by === room.seat ? 'mine' : 'theirs';
  if (nr) {
    const others = (room.presence?.seats || []).map((_, i) => i).filter((i) => i !== nr.by && !nr.accepted.includes(i));
    const mineToAnswer = seated && nr.by !== room.seat && !nr.accepted.includes(room.seat);
    let text;
    if (nr.by === room.seat) text = t('room.newRound.asked', { seats: ui.list(others.map(seatName)) });
    else text = t('room.newRound.offer', { seat: seatName(nr.by) });
    $('consent-text').textContent = text;
    $('accept').hidden = !mineToAnswer;
    $('decline').hidden = !mineToAnswer;
    $('withdraw').hidden = nr.by !== room.seat;
    for (const id of ['accept', 'decline', 'withdraw']) $(id).disabled = !live;
  }
  // Declarations the View lists as actions (none in shogi or xiangqi).
  const acts = $('actions');
  acts.replaceChildren();
  for (const m of (v.status === 'playing' ? v.legal : []).filter((x) => x.kind === 'action' && x.seat === room.seat)) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'button action';
    b.dataset.move = m.move; // for tests: which listed action it plays
    b.textContent = t.has(m.key) ? t(m.key) : m.text;
    b.disabled = Boolean(pending) || Boolean(waitingFor());
    b.addEventListener('click', () => play(m));
    acts.append(b);
  }
  const canStart = computerSeats && room.seat === 0 && room.presence && !room.presence.started && room.presence.seats.some((s) => !s.taken) && v.status === 'playing';
  $('start-row').hidden = !canStart;
  $('start-computer').disabled = !live;
  $('code-give').hidden = !seated;
  $('code-take').hidden = seated;
}

// ---- the opponent gone (two seats): after GONE_MS away the page offers to
// go on against the computer, from the room's position, on this device: a
// game of its own (the play page's); the room stays as it is and can go on
// when the opponent is back.
const GONE_MS = 40000;
let awaySince = null;
let goneTimer = 0;
function renderGone(v) {
  const p = room.presence;
  const other = room.seat === 0 ? 1 : 0;
  // (Our own connection dropping does not restart the count: the
  // presence we last heard stands until a new one comes.)
  const away = desc.seats.length === 2 && !computerSeats && room.seat >= 0 && p && p.seats[other]?.taken
    && !p.seats[other].connected && v.status === 'playing';
  if (!away) {
    awaySince = null;
    clearTimeout(goneTimer);
    $('gone').hidden = true;
    return;
  }
  if (awaySince === null) {
    awaySince = Date.now();
    clearTimeout(goneTimer);
    goneTimer = setTimeout(render, GONE_MS);
  }
  const gone = Date.now() - awaySince >= GONE_MS;
  body.gone = String(gone);
  // Without a computer player there is nothing to go on against.
  $('gone').hidden = !gone || !(desc.levels || []).length || !importable();
  $('gone-h').textContent = t('room.gone.h', { seat: seatName(other) });
}

/** importable is a notation the play page can read the room's record back from. */
function importable() {
  return (desc.notations || []).find((n) => n.import) || null;
}

async function goOn() {
  const n = importable();
  if (!n) return;
  $('go-on').disabled = true;
  try {
    const text = await exportText(n.id);
    sessionStorage.setItem(`banmen.goOn.${desc.id}`, JSON.stringify({ format: n.id, text, human: room.seat, room: location.pathname }));
    location.assign(`/${data.lang}/${desc.id}/play?mode=computer`);
  } catch (err) {
    ui.noticeError(err);
    $('go-on').disabled = false;
  }
}

// The invitation, while a seat is free: the link, Share, Copy and a QR code.
const inviteURL = `${location.origin}/${data.lang}/${desc.id}/room/${roomID}`;
let qrDrawn = false;
// A room just created (?new=1) shows its invitation from the start; the
// address keeps no trace of it.
if (new URLSearchParams(location.search).get('new') === '1') {
  $('invite-link').value = inviteURL;
  history.replaceState(history.state, '', location.pathname);
}
function renderInvite() {
  const p = room.presence;
  const seats = p?.seats || [];
  // The one who opens the link takes the first free seat (the server's
  // rule), from the computer once the host started.
  const free = seats.findIndex((s) => !s.taken);
  const humanSeats = humanSeatsOf();
  const enough = humanSeats !== null && seats.filter((s) => s.taken).length >= humanSeats;
  const inv = $('invite');
  if (free < 0 || room.seat < 0 || enough) {
    // No more invitation. One on screen says so and goes at the person's
    // next touch or key, not under their eyes: the page below it stays put.
    if (!inv.hidden && !inv.dataset.done) {
      inv.dataset.done = 'true';
      $('invite-text').textContent = t('room.invite.done');
      // After the touch or key has done what it does (its click lands
      // where it was aimed), and soon enough to count as its doing.
      const go = () => {
        removeEventListener('pointerup', go, true);
        removeEventListener('keyup', go, true);
        setTimeout(() => { if (inv.dataset.done) inv.hidden = true; }, 0);
      };
      addEventListener('pointerup', go, true);
      addEventListener('keyup', go, true);
    }
    return;
  }
  inv.hidden = false;
  delete inv.dataset.done;
  const key = seats[free].computer ? 'room.invite.textComputer' : 'room.invite.text';
  $('invite-text').textContent = t(key, { seat: seatName(free) });
  $('invite-text').dataset.seat = String(free);
  if (qrDrawn) return;
  qrDrawn = true;
  $('invite-link').value = inviteURL;
  const holder = $('qr').querySelector('.qr-code');
  // A whole number of pixels per module keeps the code crisp.
  const probe = qrSVG(inviteURL, { ecc: 'M' });
  const n = Number(/viewBox="0 0 (\d+)/.exec(probe)[1]);
  const per = Math.max(3, Math.floor(200 / n));
  holder.innerHTML = qrSVG(inviteURL, { ecc: 'M', title: t('room.qr'), px: n * per });
  $('share').hidden = typeof navigator.share !== 'function';
}

async function shareInvite() {
  try {
    await navigator.share({ title: document.title, text: t('room.shareText', { game: t(desc.nameKey) }), url: inviteURL });
  } catch (e) {
    if (e?.name !== 'AbortError') copyInvite();
  }
}

async function copyInvite() {
  const ok = await ui.copy(inviteURL);
  const text = ok ? t('room.copied') : t('room.copyFailed');
  if (!ok) $('invite-link').select();
  $('copy-status').textContent = text;
  announce(text);
}

// ---- seat codes

function showSeatCode(ev) {
  const c = ev.seatCode;
  $('code-value').textContent = `${c.slice(0, 4)}-${c.slice(4)}`;
  $('code-value').hidden = false;
  const at = new Date(ev.expires);
  $('code-expires').textContent = t('room.code.expires', { time: at.toLocaleTimeString(data.lang, { hour: '2-digit', minute: '2-digit' }) });
  $('code-expires').hidden = false;
  announce(t('room.code.said', { code: c.split('').join(' ') }));
}

function takeSeat(e) {
  e.preventDefault();
  const code = $('code-input').value.trim();
  if (!code) return;
  conn.code = code;
  $('code-input').value = '';
  room.version = null;
  const ws = conn.ws;
  conn.ws = null;
  ws?.close();
  connect();
}

// ---- export: the room's record as the server has it

async function exportText(format) {
  try {
    const res = await postJSON(`/api/v1/rooms/${encodeURIComponent(roomID)}/export`, { format, lang: document.documentElement.lang });
    return res.text;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) stop('gone');
    throw err;
  }
}

// ---- wiring

setupLook(board, desc, prefs, board.sound);
ui.pieceLook = () => board.look;
$('flip').addEventListener('click', () => board.setRotation(board.rotation + (desc.seats.length > 2 ? 1 : 2)));
$('resign').addEventListener('click', resign);
$('claim-win').addEventListener('click', claimWin);
$('name-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = nextID('n');
  actions.set(id, 'name');
  if (!send({ type: 'name', version: room.version, id, name: $('name-input').value.trim() })) notice(t('room.conn.offline'), 'warn', '', 'room.conn.offline');
});
$('new-round').addEventListener('click', newRound);
$('result-new').addEventListener('click', newRound);
$('go-on').addEventListener('click', goOn);
$('result-export').addEventListener('click', () => ui.openExport());
$('accept').addEventListener('click', () => act('accept'));
$('start-computer').addEventListener('click', () => act('start'));
$('decline').addEventListener('click', () => act('decline'));
$('withdraw').addEventListener('click', () => act('withdraw'));
$('reconnect').addEventListener('click', reconnectNow);
$('use-here').addEventListener('click', () => { $('stopped').hidden = true; room.version = null; connect(); });
$('new-room').addEventListener('click', async () => {
  $('new-room').disabled = true;
  try {
    location.assign(await createRoom(desc.id, data.lang));
  } catch (err) {
    $('new-room').disabled = false;
    if (err instanceof StorageOff) notice(t('room.storageOff'), 'error', 'storage', 'room.storageOff');
    else ui.noticeError(err);
  }
});
$('share').addEventListener('click', shareInvite);
$('copy-link').addEventListener('click', copyInvite);
$('code-show').addEventListener('click', () => send({ type: 'seatCode', id: nextID('c') }));
$('code-take').addEventListener('submit', takeSeat);
window.addEventListener('online', reconnectNow);
document.addEventListener('visibilitychange', () => { if (!document.hidden) reconnectNow(); });
// The back/forward cache keeps no page with an open socket: the page closes
// its socket when it is hidden away and opens one again when it comes back
// (catching up from the version it had).
addEventListener('pagehide', () => {
  clearTimeout(conn.timer);
  clearInterval(conn.tick);
  clearInterval(conn.pinger);
  const ws = conn.ws;
  conn.ws = null;
  ws?.close(1000);
  // Not 'reconnecting': coming back visible must not open a second socket
  // beside pageshow's (the two would replace each other's seat).
  conn.state = 'hidden';
});
addEventListener('pageshow', (e) => { if (e.persisted && conn.state === 'hidden') connect(); });
ui.setupNotation(prefs);
ui.setupExport(exportText);
orient();
body.ready = 'false';
connect();
