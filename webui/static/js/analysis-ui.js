// The analysis panel of the board pages (play.js, room.js): once a game or a
// room's round is over, and only where the variant's Description says
// "analyse", it offers Analyse; it streams the rows (analysis.js), draws the
// evaluation graph, marks ?!, ? and ?? on the move list, and for the ply the
// page shows (nav.js) draws the best move as an arrow on the board and writes
// the score, the best move and its line in the page's notation. It knows no
// game rule: a move's squares and text come from the shown View's legal
// moves, the line's texts from the page (pvTexts).

import { describePly, drawGraph, formatScore, graphKeys, streamAnalysis } from './analysis.js';
import { $ } from './ui.js';

const MARKS = { '?!': 'dubious', '?': 'mistake', '??': 'blunder' };

/**
 * setupAnalysis builds the panel into the page's side column and returns
 * {update}, which the page calls after each redraw.
 *   source(): {key, url, body} of the game's analysis, or null (key changes
 *     with the game: a new game drops the rows);
 *   pvTexts(ply, pv): resolves to the line's display texts (optional);
 *   exportText(rows): resolves to the analysed record's text (optional);
 *   seat(): the seat whose view a two-player graph and score take (the
 *     person's, where the page knows it).
 */
export function setupAnalysis({ t, desc, ui, board, nav, source, pvTexts, exportText, seat = () => 0 }) {
  if (!desc.analyse) return { update() {} };
  const css = document.createElement('link');
  css.rel = 'stylesheet';
  css.href = new URL('../css/analysis.css', import.meta.url).href;
  document.head.append(css);

  const seats = desc.seats.map((s) => ({ name: t(s.nameKey), color: s.color }));
  const st = { key: null, rows: [], ctl: null, running: false, done: false, seat: 0, plies: 0, pv: new Map(), state: '' };

  const panel = document.createElement('section');
  panel.className = 'panel analysis';
  panel.id = 'analysis';
  panel.hidden = true;
  panel.setAttribute('aria-labelledby', 'analysis-h');
  panel.innerHTML = `<div class="panel-head"><h2 id="analysis-h"></h2></div>
<p class="analysis-buttons"><button type="button" class="button primary" id="analyse-go"></button>
<button type="button" class="button" id="analyse-cancel" hidden></button></p>
<p class="analysis-progress"><progress id="analyse-progress" hidden></progress> <span id="analyse-status" role="status"></span></p>
<svg class="analysis-graph" id="analysis-graph" hidden></svg>
<p class="analysis-text" id="analysis-text" hidden></p>
<p class="analysis-pv" id="analysis-pv" hidden></p>
<p class="muted analysis-legend" id="analysis-legend"></p>
<div class="analysis-export" id="analysis-export" hidden><button type="button" class="button" id="analyse-export"></button>
<textarea id="analysis-kif" rows="5" readonly hidden spellcheck="false"></textarea>
<button type="button" class="button" id="analysis-download" hidden></button></div>`;
  const side = document.querySelector('.side');
  side.prepend(panel);
  $('analysis-h').textContent = t('analysis.h');
  $('analyse-go').textContent = t('analysis.go');
  $('analyse-cancel').textContent = t('ui.cancel');
  $('analysis-legend').textContent = t('analysis.legend');
  $('analyse-progress').setAttribute('aria-label', t('analysis.h'));
  $('analyse-export').textContent = t('analysis.export');
  $('analysis-kif').setAttribute('aria-label', t('analysis.export'));
  $('analysis-download').textContent = t('ui.download');
  const svg = $('analysis-graph');
  svg.setAttribute('aria-label', t('analysis.graph'));
  svg.classList.add('analysis-graph');

  // The end-of-game panel offers it too.
  const resultGo = document.createElement('button');
  resultGo.type = 'button';
  resultGo.className = 'button';
  resultGo.id = 'result-analyse';
  resultGo.textContent = t('analysis.go');
  document.querySelector('#result .result-buttons')?.append(resultGo);

  let unkeys = null;
  const keysFor = (plies) => {
    unkeys?.();
    unkeys = graphKeys(svg, { plies, get: () => nav.at(), onSelect: (ply) => nav.go(ply) });
  };
  // The graph's arrows are the graph's: nav's page-wide keys would step twice.
  svg.addEventListener('keydown', (e) => { if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) e.stopPropagation(); });

  const rowAt = (ply) => st.rows.find((r) => r.ply === ply);
  /** legalOf is the shown View's legal move of text m, when the View lists it. */
  const legalOf = (m) => (board.view?.legal || []).find((x) => x.move === m);
  const label = (x) => (ui.alt && x.alt ? x.alt : x.text);
  const moveText = (m) => { const x = legalOf(m); return x ? label(x) : m; };

  function setStatus(text) { $('analyse-status').textContent = text; }

  function reset() {
    st.ctl?.abort();
    st.ctl = null;
    st.running = false;
    st.done = false;
    st.rows = [];
    st.pv.clear();
    $('analysis-kif').hidden = true;
    $('analysis-download').hidden = true;
    setStatus('');
  }

  async function start() {
    const src = source();
    if (!src || st.running) return;
    reset();
    st.key = src.key;
    st.plies = nav.live;
    st.seat = desc.seats.length === 2 ? seat() : 0;
    st.running = true;
    const ctl = new AbortController();
    st.ctl = ctl;
    keysFor(st.plies);
    document.body.dataset.analysis = 'running';
    // The button pressed goes away: the keyboard's focus goes to Cancel.
    const focused = [$('analyse-go'), resultGo].includes(document.activeElement);
    draw();
    if (focused) $('analyse-cancel').focus();
    try {
      await streamAnalysis(src.url, { ...src.body, seat: st.seat }, {
        signal: ctl.signal,
        onRow: (row) => {
          if (st.ctl !== ctl) return;
          if (row.error) throw Object.assign(new Error(row.error.message), { code: row.error.code });
          st.rows.push(row);
          draw();
        },
      });
      if (st.ctl !== ctl) return;
      st.running = false;
      st.done = true;
      document.body.dataset.analysis = 'done';
      setStatus(t('analysis.done', { n: st.rows.length }));
    } catch (err) {
      if (st.ctl !== ctl) return;
      st.running = false;
      if (ctl.signal.aborted) {
        document.body.dataset.analysis = 'cancelled';
        setStatus(t('analysis.cancelled', { n: st.rows.length, total: st.plies + 1 }));
      } else {
        document.body.dataset.analysis = 'failed';
        setStatus(err.code === 'analysis_busy'
          ? t('analysis.busy', { s: err.retryAfter || 10 })
          : t('analysis.failed', { error: errorText(err) }));
      }
    }
    const cancelFocused = document.activeElement === $('analyse-cancel');
    draw();
    if (cancelFocused) $('analyse-go').focus();
  }

  /** errorText is a refusal in the page's words (error.<code>) where it has them. */
  function errorText(err) {
    if (err?.code && t.has(`error.${err.code}`)) return t(`error.${err.code}`);
    return ui.errorText ? ui.errorText(err) : String(err?.message ?? err);
  }

  function cancel() {
    st.ctl?.abort();
  }

  /** decorate writes the marks on the move list's moves. */
  function decorate() {
    for (const li of document.querySelectorAll('#history li[data-ply]')) {
      li.querySelector('.move-mark')?.remove();
      const row = rowAt(Number(li.dataset.ply));
      const kind = row && MARKS[row.mark];
      if (!kind) continue;
      const m = document.createElement('span');
      m.className = `move-mark mark-${kind}`;
      m.textContent = row.mark;
      m.title = t(`analysis.mark.${kind}`);
      const b = li.querySelector('.move-pick') || li;
      b.append(m);
      if (b.hasAttribute('aria-label') && !b.getAttribute('aria-label').endsWith(row.mark)) {
        b.setAttribute('aria-label', `${b.getAttribute('aria-label')} ${row.mark} (${t(`analysis.mark.${kind}`)})`);
      }
    }
  }
  const afterHistory = ui.afterHistory;
  ui.afterHistory = () => { afterHistory?.(); decorate(); };

  /** arrow draws the shown ply's best move on the board (its squares from the View's legal moves). */
  function arrow() {
    board.svg.querySelector('.analysis-arrow')?.remove();
    if (panel.hidden || !st.rows.length) return;
    const row = rowAt(nav.at());
    const m = row?.best && legalOf(row.best);
    if (!m || m.to < 0) return;
    const c = (i) => { const [vx, vy] = board.visual(i); return [board.px(vx + 0.5), board.px(vy + 0.5)]; };
    const u = board.px(1) - board.px(0);
    const [x2, y2] = c(m.to);
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    g.setAttribute('class', 'analysis-arrow');
    g.dataset.move = m.move;
    if (m.from >= 0) {
      const [x1, y1] = c(m.from);
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const [dx, dy] = [(x2 - x1) / len, (y2 - y1) / len];
      const head = u * 0.38;
      const [bx, by] = [x2 - dx * head, y2 - dy * head];
      const w = u * 0.2;
      g.innerHTML = `<line x1="${x1}" y1="${y1}" x2="${bx}" y2="${by}" stroke-width="${u * 0.13}" stroke-linecap="round"/>`
        + `<polygon points="${x2},${y2} ${bx - dy * w},${by + dx * w} ${bx + dy * w},${by - dx * w}"/>`;
    } else {
      g.innerHTML = `<circle cx="${x2}" cy="${y2}" r="${u * 0.4}" fill="none" stroke-width="${u * 0.1}"/>`;
    }
    board.svg.append(g);
  }
  const afterRender = board.afterRender;
  board.afterRender = () => { afterRender?.(); arrow(); };

  let pvToken = 0;
  /** line writes the shown ply's score, best move and line. */
  function line() {
    const ply = nav.at();
    const row = rowAt(ply);
    const text = $('analysis-text');
    const pvEl = $('analysis-pv');
    text.hidden = !st.rows.length;
    const desc = row ? describePly(row, { seats, seat: st.seat, t, moveText }) : t('analysis.notYet', { n: ply });
    text.textContent = desc;
    svg.setAttribute('aria-valuenow', String(ply));
    svg.setAttribute('aria-valuetext', desc);
    pvEl.hidden = !row?.pv?.length;
    if (pvEl.hidden) return;
    const shown = (texts) => { pvEl.textContent = t('analysis.pv', { line: texts.join(' ') }); };
    const known = st.pv.get(ply);
    if (known) { shown(known); return; }
    // At once the first move from the View, the rest as the engine wrote
    // them; then the page's texts when it can tell them.
    shown([moveText(row.pv[0]), ...row.pv.slice(1)]);
    if (!pvTexts || row.pv.length < 2) return;
    const my = ++pvToken;
    pvTexts(ply, row.pv).then((texts) => {
      if (!texts) return;
      st.pv.set(ply, texts);
      if (my === pvToken && nav.at() === ply) shown(texts);
    }).catch(() => {});
  }

  function draw() {
    const has = st.rows.length > 0 || st.running;
    svg.toggleAttribute('hidden', !has); // an SVG element has no hidden property
    // Done, Analyse is not offered again for the same game; cancelled or failed, it is.
    $('analyse-go').hidden = st.running || st.done;
    resultGo.hidden = st.running || st.done;
    $('analyse-cancel').hidden = !st.running;
    const prog = $('analyse-progress');
    prog.hidden = !st.running;
    prog.max = st.plies + 1;
    prog.value = st.rows.length;
    if (st.running) setStatus(t('analysis.running', { n: st.rows.length, total: st.plies + 1 }));
    if (has) {
      drawGraph(svg, st.rows, { seats, seat: st.seat, plies: st.plies, current: nav.at() });
      svg.querySelector('.graph-current')?.setAttribute('data-ply', String(nav.at()));
    }
    $('analysis-export').hidden = !exportText || st.running || !st.rows.length;
    document.body.dataset.analysisRows = String(st.rows.length);
    line();
    decorate();
    arrow();
  }

  async function doExport() {
    try {
      const text = await exportText(st.rows);
      const area = $('analysis-kif');
      area.value = text;
      area.hidden = false;
      $('analysis-download').hidden = false;
    } catch (err) {
      setStatus(t('analysis.failed', { error: errorText(err) }));
    }
  }

  function download() {
    const blob = new Blob([$('analysis-kif').value], { type: 'text/plain;charset=utf-8' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${desc.id}-analysed.kif`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  $('analyse-go').addEventListener('click', start);
  resultGo.addEventListener('click', () => { start(); svg.scrollIntoView?.({ block: 'nearest' }); });
  $('analyse-cancel').addEventListener('click', cancel);
  $('analyse-export').addEventListener('click', doExport);
  $('analysis-download').addEventListener('click', download);

  return {
    /** update follows the page: view is the game's current View. */
    update(view) {
      const src = view?.status === 'over' ? source() : null;
      if (!src || src.key !== st.key) {
        if (st.key !== null || st.running) reset();
        st.key = src ? src.key : null;
      }
      panel.hidden = !src;
      resultGo.hidden = !src || st.running || st.done;
      if (!src) { document.body.dataset.analysis = ''; arrow(); return; }
      draw();
    },
    formatScore,
  };
}
