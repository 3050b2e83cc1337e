package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Every way the harness touches the web UI is in this file: when the pages
// change, this is the one file to update. The hooks are ids, data attributes
// and ARIA attributes the UI keeps for people and tests alike; nothing here
// depends on layout or on a game rule.

// Pages are the named pages a step may open; {lang} and {variant} are filled.
var Pages = map[string]string{
	"home":    "/{lang}/",
	"landing": "/{lang}/{variant}/",
	"play":    "/{lang}/{variant}/play?mode=local",
	// computer is a game against the computer: the person has seat 0.
	"computer": "/{lang}/{variant}/play?mode=computer",
}

// Buttons are the named buttons a step may press.
var Buttons = map[string]string{
	"new-game":       "#new-game",
	"flip":           "#flip",
	"resign":         "#resign",
	"export":         "#export-go",
	"copy":           "#export-copy",
	"download":       "#export-download",
	"import":         "#import-go",
	"yes":            "dialog[open] #confirm-yes",
	"cancel":         `dialog[open] button[value="no"]`,
	"start":          "#options-start",
	"same-device":    "a.mode-local",
	"close-notice":   "#notices .notice-close",
	"export-panel":   "#export-box > summary",
	"import-panel":   "#import-box > summary",
	"beginner":       "#beginner",
	"notation-text":  `#notation-toggle [data-alt="false"]`,
	"notation-other": `#notation-toggle [data-alt="true"]`,
	"level":          "#level",
	"level-ok":       "dialog[open] #level-ok",
	"computer-move":  "#computer-move",
	// Online rooms: the landing page's Play with a friend, and the room
	// page's buttons.
	"play-friend": "button.mode-friend",
	"new-round":   "#new-round",
	"accept":      "#accept",
	"decline":     "#decline",
	"withdraw":    "#withdraw",
	"reconnect":   "#reconnect",
	"use-here":    "#use-here",
	"copy-link":   "#copy-link",
	// A game with room settings (Yonin): Create in the settings Play with
	// a friend asks, and the host's Start with the computer in the free
	// seats.
	"room-create":    "dialog[open] #room-settings-create",
	"start-computer": "#start-computer",
	// A visitor of a room with computer seats (Yonin) is asked to take
	// the free seat or watch (body[data-choice="undecided"]).
	"take-seat":  "#take-seat",
	"just-watch": "#just-watch",
}

// Fields are the named form fields of fill and select steps.
var Fields = map[string]string{
	"export-format": "#export-format",
	"export-text":   "#export-text",
	"import-format": "#import-format",
	"import-text":   "#import-text",
	// level is a group of radio buttons (the Difficulty dialog's).
	"level": "#level-choices",
}

// jsRoomSettingsOpen tells whether the landing page asks a room's settings.
const jsRoomSettingsOpen = `!!document.querySelector('#room-settings[open]')`

// jsRoomSetting sets one of the asked room settings by its key (a
// checkbox by "true"/"false", else the field's value) and tells whether the
// field took the value.
const jsRoomSetting = `((key, value) => {
	const el = [...document.querySelectorAll('#room-settings [data-key]')].find((e) => e.dataset.key === key);
	if (!el) return false;
	if (el.type === 'checkbox') { el.checked = value === 'true'; return true; }
	el.value = value;
	return el.value === value;
})(%q, %q)`

const (
	// selPlayReady is set by the play page once it shows a game.
	selPlayReady = `body[data-ready="true"]`
	// selBoardData is the page's JSON: storageKey, the variant's strings.
	selBoardData = "#board-data"
	selArena     = "#arena"
	selCell      = `#arena .cell[data-index="%d"]`
	selHand      = `#arena .hand-piece[data-seat="%d"][data-kind="%s"]`
	selPromote   = "#promote-dialog"
	// selChoice is the promotion dialog's button for a choice.
	selChoice  = `#promote-choices .promote-choice[data-promote="%t"]`
	selHistory = "#history li .move-text"
	// selNoticeKey finds a notice or a status line by its i18n key.
	selNoticeKey = `#notices .notice[data-key=%[1]q], #status [data-key=%[1]q]`
	selExportBox = "#export-box"
	selNotices   = "#notices"
	// selInvite is the room page's invitation link (shown while a seat is
	// free).
	selInvite = "#invite-link"
)

func isSelector(s string) bool { return strings.ContainsAny(s[:1], "#.[") || strings.Contains(s, " ") }

func buttonSelector(name string) string {
	if sel, ok := Buttons[name]; ok {
		return sel
	}
	return name
}

func fieldSelector(name string) string {
	if sel, ok := Fields[name]; ok {
		return sel
	}
	return name
}

func buttonNames() []string { return slices.Sorted(maps.Keys(Buttons)) }

func promoteSelector(promote bool) string { return fmt.Sprintf(selChoice, promote) }

func noticeSelector(key string) string { return fmt.Sprintf(selNoticeKey, key) }

func cellSelector(i int) string { return fmt.Sprintf(selCell, i) }

func handSelector(seat int, kind string) string { return fmt.Sprintf(selHand, seat, kind) }

// jsSnapshot reads, in one round trip, what expectations and moves need from
// the page. The game itself is read from where the page keeps it
// (localStorage under the page's storage key), so the harness can ask the
// site's API for its View rather than parse the board.
// Reading the text forces a layout, so only expectations ask for it (full).
const jsSnapshot = `((full) => {
  const b = document.body;
  let key = '', saved = null, d = null;
  try {
    d = JSON.parse(document.querySelector('#board-data')?.textContent || 'null');
    key = d?.storageKey || '';
    if (key) saved = JSON.parse(localStorage.getItem(key) || 'null');
  } catch (e) {}
  const list = full ? [...document.querySelectorAll('#history li .move-text')].map((e) => e.textContent) : [];
  return {
    ready: b.dataset.ready === 'true',
    busy: b.dataset.busy === 'true',
    data: full ? {...b.dataset} : null,
    keys: full ? [...document.querySelectorAll('#notices [data-key], #status [data-key]')].map((e) => e.dataset.key) : [],
    status: b.dataset.status || '',
    ply: b.dataset.ply === undefined ? -1 : Number(b.dataset.ply),
    storageKey: key,
    room: d?.room || '',
    pending: b.dataset.pending === 'true',
    state: saved && saved.state ? saved.state : '',
    moveList: list,
    text: full ? b.innerText : '',
    dialog: document.querySelector('dialog[open]')?.id || '',
    roomView: window.__harnessRoomView || null,
  };
})`

// jsCenter scrolls an element into view and returns its centre in CSS
// pixels of the viewport, or null when it is missing or not shown.
const jsCenter = `((sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  const r0 = e.getBoundingClientRect();
  // Off the screen, or under something else there (a sticky header over
  // the board's top row once the page is scrolled): bring it to the middle.
  const hit = document.elementFromPoint(r0.left + r0.width / 2, r0.top + r0.height / 2);
  if (r0.top < 0 || r0.left < 0 || r0.bottom > innerHeight || r0.right > innerWidth || (hit && hit !== e && !e.contains(hit) && !hit.contains(e))) e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return null;
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height};
})`

// jsRadio finds, in a group, the radio button of a value: it returns a
// selector for what to press (its label, else itself), or ” when the group
// has no such choice, and whether it is checked.
const jsRadio = `((group, value) => {
  const g = document.querySelector(group);
  const r = g && [...g.querySelectorAll('input[type="radio"]')].find((e) => e.value === value);
  if (!r) return {sel: '', checked: false, have: g ? [...g.querySelectorAll('input[type="radio"]')].map((e) => e.value) : []};
  const v = JSON.stringify(value);
  const sel = r.closest('label') ? group + ' label:has(input[type="radio"][value=' + v + '])' : group + ' input[type="radio"][value=' + v + ']';
  const all = [...g.querySelectorAll('input[type="radio"]')];
  const at = all.indexOf(all.includes(document.activeElement) ? document.activeElement : all.find((e) => e.checked));
  return {sel, checked: r.checked, have: [], behind: all.indexOf(r) < at};
})`

// jsFocusPast tells whether Tab should start again from the top to reach
// sel: the focused element comes after it in the page (Tab would have to go
// round the end), is no longer shown, or is nowhere (the body) while the
// browser keeps a starting point for Tab where a hidden element was.
const jsFocusPast = `((sel) => {
  const a = document.activeElement, e = document.querySelector(sel);
  if (!e || (a && a.matches(sel))) return false;
  if (!a || a === document.body || a.getClientRects().length === 0) return true;
  return !!(a.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING);
})`

// jsFocusTop lets the focus go and puts the caret at the top of the page, as
// a click there does: the next Tab starts from the top (Firefox starts from
// the caret; a blur alone leaves it where the focus was).
const jsFocusTop = `(() => {
  document.activeElement?.blur();
  const s = getSelection();
  s.removeAllRanges();
  s.collapse(document.body, 0);
})()`

// jsSetValue sets a field's value as a script would (no events).
const jsSetValue = `((sel, v) => { document.querySelector(sel).value = v })`

// jsCutNoticed tells whether a page has noticed its network cut: a room
// page once its connection is no longer open; any other page at once.
const jsCutNoticed = `(!location.pathname.includes('/room/') || document.body.dataset.conn !== 'open')`

// jsNextFrame resolves once the page has laid out and painted what it
// changed so far (a hidden page, which paints nothing, after 250 ms).
const jsNextFrame = `new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r())); setTimeout(r, 250); })`

// jsFrameBy resolves once a frame of the page has begun (its animations
// moved on, its layout brought up to date by the next script), or, on a
// hidden page, after 250 ms: half jsNextFrame's wait, for what is done at
// every press.
const jsFrameBy = `new Promise((r) => { requestAnimationFrame(() => r()); setTimeout(r, 250); })`

// jsNextTask resolves once the tasks the page queued so far have run.
const jsNextTask = `new Promise((r) => setTimeout(r, 0))`

// jsFocusIs tells whether the focused element matches a selector.
const jsFocusIs = `((sel) => !!document.activeElement && document.activeElement.matches(sel))`

// jsFocusDescribe names the focused element for a message: its tag, id,
// classes and the data attributes of a cell or hand piece.
const jsFocusDescribe = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return 'nothing (the body)';
  let s = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + [...e.classList].map((c) => '.' + c).join('');
  for (const k of ['index', 'coord', 'seat', 'kind']) if (e.dataset[k] !== undefined) s += '[data-' + k + '="' + e.dataset[k] + '"]';
  const label = e.getAttribute('aria-label');
  if (label) s += ' "' + label + '"';
  if (e.getAttribute('aria-selected') === 'true' || e.getAttribute('aria-pressed') === 'true') s += ' (selected)';
  return s;
})()`

// jsFocusCenter is the centre of the focused element, for keyboard steps.
const jsFocusCenter = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const r = e.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height};
})()`

// jsVisible tells whether an element exists and is shown.
const jsVisible = `((sel) => {
  const e = document.querySelector(sel);
  if (!e || e.closest('[hidden]')) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
})`

// jsExport runs the moves panel's export in format and returns the text
// once it is shown. It opens the panel as a person would.
const jsOpenExport = `((format) => {
  const box = document.querySelector('#export-box');
  if (box && !box.open) box.querySelector('summary').click();
  const sel = document.querySelector('#export-format');
  if (![...sel.options].some((o) => o.value === format)) return 'no export format ' + format + ' (have ' + [...sel.options].map((o) => o.value).join(', ') + ')';
  sel.value = format;
  sel.dispatchEvent(new Event('change', {bubbles: true}));
  const t = document.querySelector('#export-text');
  t.value = '';
  return '';
})`

const jsExportText = `(() => { const t = document.querySelector('#export-text'); return t && !t.hidden ? t.value : ''; })()`

// jsSocketHook runs before a page's own scripts: it keeps the page's
// WebSockets in window.__harnessSockets so network: cut can close them, and
// while window.__harnessCut is set a new one fails at once without reaching
// the server, as on a dead network. It logs every message sent and received
// (the last 2000, for the trace) in window.__harnessMessages, and keeps the
// status and result of the last view the server sent in
// window.__harnessRoomView: a room's own result, which no exported record
// can always say (who resigned out of turn).
const jsSocketHook = `(() => {
  const Real = window.WebSocket;
  if (!Real || Real.__harness) return;
  window.__harnessSockets = [];
  window.__harnessMessages = [];
  window.__harnessRoomView = null;
  window.__harnessCut = false;
  function Hooked(url, protocols) {
    if (window.__harnessCut) {
      const fake = {readyState: 3, send() {}, close() {}, onopen: null, onmessage: null, onclose: null, onerror: null};
      setTimeout(() => fake.onclose && fake.onclose({code: 1006}), 20);
      return fake;
    }
    const ws = new Real(url, protocols);
    window.__harnessSockets.push(ws);
    const log = (dir, data) => {
      const m = window.__harnessMessages;
      m.push({t: Date.now(), dir, data: typeof data === 'string' ? data : '(binary)'});
      if (m.length > 2000) m.splice(0, m.length - 2000);
    };
    const send = ws.send;
    ws.send = function (data) { log('sent', data); return send.call(this, data); };
    ws.addEventListener('open', () => log('open', url));
    ws.addEventListener('close', (e) => log('close', String(e.code)));
    ws.addEventListener('message', (e) => {
      log('received', e.data);
      try {
        const ev = JSON.parse(e.data);
        if (ev && ev.view) window.__harnessRoomView = {version: ev.version, status: ev.view.status, ply: ev.view.ply, result: ev.view.result || null};
      } catch (err) {}
    });
    return ws;
  }
  Hooked.CONNECTING = 0; Hooked.OPEN = 1; Hooked.CLOSING = 2; Hooked.CLOSED = 3;
  Hooked.prototype = Real.prototype;
  Hooked.__harness = true;
  window.WebSocket = Hooked;
})();`

// jsSocketMessages is what the page's sockets sent and received (the
// hook's log).
const jsSocketMessages = `(window.__harnessMessages || [])`

// jsSocketCut cuts (closing every socket, resolving once they are closed)
// or restores a tab's sockets.
const jsSocketCut = `((cut) => {
  window.__harnessCut = cut;
  if (!cut) return;
  const open = (window.__harnessSockets || []).filter((ws) => ws.readyState !== 3);
  return Promise.all(open.map((ws) => new Promise((done) => {
    ws.addEventListener('close', done);
    ws.close();
  })));
})`

// jsInvite is the invitation link the room page shows, or ” while none is.
const jsInvite = `(() => { const e = document.querySelector('#invite-link'); return e && !e.closest('[hidden]') ? e.value : ''; })()`
