// The generic board: it draws a Description's geometry and a View's cells
// and hands as SVG, lets people pick a piece and a destination by mouse,
// touch, drag or keyboard, and hands back one of View.Legal. It knows no
// rule: what may move where is only what View.Legal lists.

import { esc, kindOf, nameKeyOf, pieceSVG } from './pieces.js';

const U = 100; // SVG units per cell
const M = 36; // margin for the coordinates
const SIDES = ['bottom', 'left', 'top', 'right'];
const SLIDE_MS = 220;
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

/**
 * Board renders into root (a .arena element) and calls onMove(legalMove)
 * when a move has been chosen; announce(text) speaks to screen readers.
 */
export class Board {
  constructor(root, { desc, t, onMove, announce, promote, playable, seatTag, sound }) {
    this.root = root;
    this.desc = desc;
    this.t = t;
    this.onMove = onMove;
    this.announce = announce;
    this.promote = promote; // async (candidates) => chosen or null
    // playable(seat) says whether the person at this screen plays a seat
    // (against the computer only seat 0); seatTag(seat) is a word shown by
    // the seat's name ("you", "computer").
    this.playable = playable || (() => true);
    this.seatTag = seatTag || (() => '');
    this.locked = false;
    this.sound = sound || null; // sound.js: a move, capture, check or end as it happens
    this.moving = null; // the piece sliding to its square: {i, from: [x, y], to: [x, y], anim}
    this.dragged = false; // the last move was dropped where it goes: nothing to slide
    this.shownLive = true; // the last View shown was the game's current one
    this.viewing = false; // an earlier position is shown: no move may be made
    this.W = desc.board.files;
    this.H = desc.board.ranks;
    this.rotation = 0;
    this.look = { beginner: false, set: 'glyphs', ink: 'duo' };
    this.view = null;
    this.selected = null; // {type:'cell', index} | {type:'hand', seat, kind}
    this.cursor = -1;
    this.busy = false;
    this.drag = null;
    this.build();
  }

  // ---- geometry

  /** seatFacing is the way a seat's pieces point: seats spread evenly round the board. */
  seatFacing(seat) { return (seat * 4) / this.desc.seats.length; }

  get VW() { return this.rotation % 2 ? this.H : this.W; }
  get VH() { return this.rotation % 2 ? this.W : this.H; }

  /** tc turns continuous board coordinates (x along files, y along ranks, as seen by seat 0) into screen ones. */
  tc(x, y) {
    const { W, H } = this;
    switch (this.rotation) {
      case 1: return [H - y, x];
      case 2: return [W - x, H - y];
      case 3: return [y, W - x];
      default: return [x, y];
    }
  }

  /** visual is the screen column and row of a cell index. */
  visual(i) {
    const [x, y] = this.tc((i % this.W) + 0.5, Math.floor(i / this.W) + 0.5);
    return [Math.floor(x), Math.floor(y)];
  }

  /** indexAt is the cell index shown at screen column vx, row vy. */
  indexAt(vx, vy) {
    for (let i = 0; i < this.W * this.H; i++) {
      const [x, y] = this.visual(i);
      if (x === vx && y === vy) return i;
    }
    return -1;
  }

  px(x) { return M + x * U; }

  coord(i) {
    const g = this.desc.board;
    const col = i % this.W;
    const row = Math.floor(i / this.W);
    return `${g.fileLabels?.[col] ?? col + 1}${g.rankLabels?.[row] ?? row + 1}`;
  }

  // ---- DOM

  build() {
    const { desc, t } = this;
    this.root.replaceChildren();
    this.root.dataset.seats = String(desc.seats.length);
    this.hands = [];
    for (const side of SIDES) {
      const h = document.createElement('div');
      h.className = `hand hand-${side}`;
      this.root.append(h);
      this.hands.push(h);
    }
    const wrap = document.createElement('div');
    wrap.className = 'board-wrap';
    this.wrap = wrap;
    this.svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    this.svg.setAttribute('class', 'board');
    this.svg.setAttribute('aria-hidden', 'true');
    // The wood option's tone and grain (look.js; site.css shows them).
    this.svg.innerHTML = '<defs><linearGradient id="wood-tone" x1="0" y1="0" x2="1" y2="1">'
      + '<stop offset="0" stop-color="#e6bd74"/><stop offset=".45" stop-color="#d9a95c"/><stop offset="1" stop-color="#e3b76b"/></linearGradient>'
      + '<pattern id="wood-grain" patternUnits="userSpaceOnUse" width="300" height="46">'
      + '<path d="M0 9C70 3 150 17 300 9M0 26C90 31 190 20 300 26M0 39C60 36 200 44 300 39" fill="none" stroke="#8a5a2b" stroke-opacity=".16" stroke-width="2.5"/>'
      + '</pattern></defs><g class="bg"></g><g class="marks"></g><g class="pieces"></g>';
    this.overlay = document.createElement('div');
    this.overlay.className = 'cells';
    this.overlay.setAttribute('role', 'group');
    this.overlay.setAttribute('aria-label', t('ui.board', { game: t(desc.nameKey) }));
    this.cells = [];
    for (let i = 0; i < this.W * this.H; i++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'cell';
      b.tabIndex = -1;
      b.dataset.index = String(i);
      this.overlay.append(b);
      this.cells.push(b);
    }
    this.cursor = this.indexAt(Math.floor(this.VW / 2), this.VH - 1);
    this.cells[this.cursor].tabIndex = 0;
    wrap.append(this.svg, this.overlay);
    this.root.append(wrap);
    this.renderHands();

    this.overlay.addEventListener('click', (e) => {
      // Pointer input is handled on pointerdown/up; a click with detail 0
      // comes from the keyboard or a screen reader.
      const b = e.target.closest('.cell');
      if (b && e.detail === 0) this.activateCell(Number(b.dataset.index), true);
    });
    this.overlay.addEventListener('keydown', (e) => this.onKey(e));
    this.overlay.addEventListener('focusin', (e) => {
      const b = e.target.closest('.cell');
      if (b) this.setCursor(Number(b.dataset.index), false);
    });
    wrap.addEventListener('pointerdown', (e) => this.onPointerDown(e, null));
    // A finger that plays a move (a tap on a target, or the end of a drag)
    // is followed by the click the browser makes for it when it lifts, on
    // whatever is under it by then: the promotion dialog that move opened.
    // Cancelling the touchend cancels that click (touch events go to where
    // the touch began, so this listener gets them).
    wrap.addEventListener('touchend', (e) => {
      if (this.playedByTouch) {
        this.playedByTouch = false;
        e.preventDefault();
      }
    }, { passive: false });
    this.layout();
  }

  /** layout places the static board and the cell buttons for the rotation. */
  layout() {
    const { W, H, VW, VH, desc } = this;
    const w = VW * U + 2 * M;
    const h = VH * U + 2 * M;
    this.svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    this.wrap.style.setProperty('--aspect', String(w / h));
    this.root.style.setProperty('--aspect', String(w / h));
    const g = desc.board;
    const P = (x, y) => { const [a, b] = this.tc(x, y); return [this.px(a), this.px(b)]; };
    const line = (x1, y1, x2, y2, cls = 'line') => {
      const [a, b] = P(x1, y1); const [c, d] = P(x2, y2);
      return `<line class="${cls}" x1="${a}" y1="${b}" x2="${c}" y2="${d}"/>`;
    };
    let bg = `<rect class="wood-bg" x="0" y="0" width="${w}" height="${h}" rx="14"/>`
      + `<rect class="wood-grain" x="0" y="0" width="${w}" height="${h}" rx="14" fill="url(#wood-grain)"/>`;
    let marks = '';
    if (g.points) {
      const river = (g.marks || []).find((m) => m.kind === 'river');
      for (let r = 0; r < H; r++) bg += line(0.5, r + 0.5, W - 0.5, r + 0.5);
      for (let c = 0; c < W; c++) {
        if (river && c > 0 && c < W - 1) {
          bg += line(c + 0.5, 0.5, c + 0.5, river.row + 0.5) + line(c + 0.5, river.row + 1.5, c + 0.5, H - 0.5);
        } else {
          bg += line(c + 0.5, 0.5, c + 0.5, H - 0.5);
        }
      }
      const [x1, y1] = P(0.5, 0.5); const [x2, y2] = P(W - 0.5, H - 0.5);
      bg += `<rect class="frame" x="${Math.min(x1, x2) - 8}" y="${Math.min(y1, y2) - 8}" width="${Math.abs(x2 - x1) + 16}" height="${Math.abs(y2 - y1) + 16}"/>`;
      for (const m of g.marks || []) {
        if (m.kind === 'palace') {
          marks += line(m.col + 0.5, m.row + 0.5, m.col + m.cols - 0.5, m.row + m.rows - 0.5)
            + line(m.col + m.cols - 0.5, m.row + 0.5, m.col + 0.5, m.row + m.rows - 0.5);
        } else if (m.kind === 'river' && this.t.has(`board.river.${desc.id}`) && this.rotation % 2 === 0) {
          const [cx, cy] = P(W / 2, m.row + 1);
          marks += `<text class="river" x="${cx}" y="${cy + 14}" font-size="40">${esc(this.t(`board.river.${desc.id}`))}</text>`;
        }
      }
    } else {
      const [x1, y1] = P(0, 0); const [x2, y2] = P(W, H);
      bg += `<rect class="grid" x="${Math.min(x1, x2)}" y="${Math.min(y1, y2)}" width="${Math.abs(x2 - x1)}" height="${Math.abs(y2 - y1)}"/>`;
      for (let r = 1; r < H; r++) bg += line(0, r, W, r);
      for (let c = 1; c < W; c++) bg += line(c, 0, c, H);
      for (const m of g.marks || []) {
        if (m.kind === 'star') {
          const [x, y] = P(m.col, m.row);
          marks += `<circle class="star" cx="${x}" cy="${y}" r="7"/>`;
        } else if (m.kind === 'zone') {
          const [a, b] = P(m.col, m.row); const [c, d] = P(m.col + (m.cols || 1), m.row + (m.rows || 1));
          const color = desc.seats[m.seat]?.color ?? '#000';
          marks += `<rect class="zone" fill="${esc(color)}" x="${Math.min(a, c)}" y="${Math.min(b, d)}" width="${Math.abs(c - a)}" height="${Math.abs(d - b)}"/>`;
        }
      }
    }
    // Coordinates along the top and the right edge, whichever cells are there now.
    for (let vx = 0; vx < VW; vx++) {
      const i = this.indexAt(vx, 0);
      const label = this.rotation % 2 ? g.rankLabels?.[Math.floor(i / W)] : g.fileLabels?.[i % W];
      if (label) bg += `<text class="coord" x="${this.px(vx + 0.5)}" y="${M - 10}">${esc(label)}</text>`;
    }
    for (let vy = 0; vy < VH; vy++) {
      const i = this.indexAt(VW - 1, vy);
      const label = this.rotation % 2 ? g.fileLabels?.[i % W] : g.rankLabels?.[Math.floor(i / W)];
      if (label) bg += `<text class="coord" x="${w - M / 2}" y="${this.px(vy + 0.5) + 8}">${esc(label)}</text>`;
    }
    this.svg.querySelector('.bg').innerHTML = bg;
    this.svg.querySelector('.marks').innerHTML = marks;
    for (let i = 0; i < this.cells.length; i++) {
      const [vx, vy] = this.visual(i);
      const s = this.cells[i].style;
      s.left = `${((M + vx * U) / w) * 100}%`;
      s.top = `${((M + vy * U) / h) * 100}%`;
      s.width = `${(U / w) * 100}%`;
      s.height = `${(U / h) * 100}%`;
    }
    // Each seat's hand sits on its own side of the board.
    const n = this.desc.seats.length;
    for (let seat = 0; seat < 4; seat++) {
      let h = this.hands[seat];
      if (seat >= n) { h.hidden = true; continue; }
      const side = SIDES[(this.seatFacing(seat) + this.rotation) % 4];
      if (h.dataset.side && h.dataset.side !== side) {
        // A hand that changes sides (the board turned) is a new element
        // there, drawn again by render: the page does not count a hand
        // flying across the board as its layout shifting.
        const fresh = h.cloneNode(false);
        h.replaceWith(fresh);
        this.hands[seat] = h = fresh;
      }
      h.dataset.side = side;
      h.dataset.seat = String(seat);
    }
    if (this.view) this.render();
  }

  setRotation(r) {
    this.rotation = ((r % 4) + 4) % 4;
    this.layout();
  }

  setBeginner(on) { this.setLook({ ...this.look, beginner: on }); }

  /** setLook sets how pieces are drawn: {beginner, set, ink} (see pieceSVG). */
  setLook(look) {
    this.look = { beginner: Boolean(look.beginner), set: look.set || 'glyphs', ink: look.ink || 'duo' };
    if (this.view) this.render();
  }

  /**
   * update shows a new View; the selection ends. A View one move after the
   * one shown slides the moved piece to its square (unless the person asks
   * for reduced motion) and, in the game's current position, makes its sound.
   */
  update(view) {
    const old = this.view;
    const live = !this.viewing;
    const wasLive = this.shownLive;
    this.shownLive = live;
    this.view = view;
    // The same position shown again (a room re-renders on every change of
    // its connection or presence) keeps a piece picked up: dropping it
    // lost the first tap of a move made meanwhile.
    if (!old || old.ply !== view.ply || old.position !== view.position || live !== wasLive) this.selected = null;
    this.busy = false;
    const lm = view.lastMove;
    const step = old && lm && view.ply === old.ply + 1;
    if (step) this.startSlide(lm);
    else {
      this.dragged = false;
      if (old && old.ply !== view.ply) this.moving = null;
    }
    this.render();
    if (!live || !wasLive || !old) return;
    let kind = '';
    if (old.status === 'playing' && view.status === 'over') kind = 'end';
    else if (step && (view.inCheck || []).length) kind = 'check';
    else if (step) kind = lm.kind === 'move' && old.board[lm.to]?.kind ? 'capture' : 'move';
    if (kind) this.sound?.play(kind);
  }

  // ---- animation

  /** startSlide prepares the slide of the last move's piece, from its square or its hand. */
  startSlide(lm) {
    this.moving = null;
    const dragged = this.dragged;
    this.dragged = false;
    if (dragged || lm.to < 0 || reducedMotion.matches) return;
    const [tvx, tvy] = this.visual(lm.to);
    const to = [this.px(tvx + 0.5), this.px(tvy + 0.5)];
    let from;
    if (lm.kind === 'move' && lm.from >= 0) {
      const [vx, vy] = this.visual(lm.from);
      from = [this.px(vx + 0.5), this.px(vy + 0.5)];
    } else if (lm.kind === 'drop') {
      const h = this.hands[lm.seat]?.getBoundingClientRect();
      const ctm = this.svg.getScreenCTM?.();
      if (!h || !ctm || !h.width) return;
      const pt = new DOMPoint(h.x + h.width / 2, h.y + h.height / 2).matrixTransform(ctm.inverse());
      from = [pt.x, pt.y];
    } else {
      return;
    }
    this.moving = { i: lm.to, from, to, started: performance.now() };
  }

  /** slide runs (or, after a redraw, continues) the slide on the piece's new element. */
  slide() {
    const m = this.moving;
    if (!m) return;
    const g = this.svg.querySelector(`.pieces [data-i="${m.i}"]`);
    if (!g?.animate) { this.moving = null; return; }
    const elapsed = performance.now() - m.started;
    if (elapsed >= SLIDE_MS) { this.moving = null; return; }
    const a = g.animate([
      { transform: `translate(${m.from[0]}px, ${m.from[1]}px)` },
      { transform: `translate(${m.to[0]}px, ${m.to[1]}px)` },
    ], { duration: SLIDE_MS, easing: 'cubic-bezier(.25,.7,.35,1)' });
    a.currentTime = elapsed;
    m.anim = a;
    a.finished.then(() => { if (this.moving === m) this.moving = null; }, () => {});
  }

  /** settled resolves once the piece of the last move has reached its square. */
  settled() {
    const a = this.moving?.anim;
    return a ? a.finished.then(() => {}, () => {}) : Promise.resolve();
  }

  // ---- legal moves

  legal() {
    if (!this.view || this.view.status !== 'playing' || this.locked || this.viewing) return [];
    return this.view.legal.filter((m) => this.playable(m.seat));
  }

  /** setLocked stops (or allows again) every choice of a move, e.g. while the computer thinks. */
  setLocked(on) {
    if (this.locked === on) return;
    this.locked = on;
    this.selected = null;
    this.drag?.ghost?.remove();
    this.root.classList.toggle('locked', on);
    if (this.view) this.render();
  }

  /** setViewing marks the View shown as an earlier position (nav.js): nothing may be played on it. */
  setViewing(on) {
    if (this.viewing === on) return;
    this.viewing = on;
    this.selected = null;
    this.drag?.ghost?.remove();
    this.root.classList.toggle('viewing', on);
  }

  // supplyDrops are the drops on cell i from an unlimited supply: drops of a
  // kind the seat holds none of in hand (the template's X and O, a disc, a
  // stone). Nothing is picked up first: tapping the cell plays it.
  supplyDrops(i) {
    const hands = this.view?.hands || [];
    return this.legal().filter((m) => m.kind === 'drop' && m.to === i
      && !(hands[m.seat] || []).some((hp) => hp.kind === m.drop && hp.count > 0));
  }

  movesOf(sel) {
    if (!sel) return [];
    return this.legal().filter((m) => (sel.type === 'cell'
      ? m.kind === 'move' && m.from === sel.index
      : m.kind === 'drop' && m.drop === sel.kind && m.seat === sel.seat));
  }

  // showLegal tells whether to mark where the picked-up piece may go: the
  // View says so in its own field (a variant's option), never in details.
  showLegal() {
    return !this.view?.hideLegal;
  }

  // ---- drawing

  render() {
    const v = this.view;
    const { desc, t } = this;
    const targets = new Map();
    for (const m of this.movesOf(this.selected)) targets.set(m.to, m);
    const showTargets = this.showLegal();
    const checked = new Set(v.inCheck || []);
    let out = '';
    const cellRect = (i, cls) => {
      const [vx, vy] = this.visual(i);
      return desc.board.points
        ? `<circle class="${cls}" cx="${this.px(vx + 0.5)}" cy="${this.px(vy + 0.5)}" r="${U * 0.46}"/>`
        : `<rect class="${cls}" x="${this.px(vx)}" y="${this.px(vy)}" width="${U}" height="${U}"/>`;
    };
    // Squares are tinted under the pieces; on points a piece hides its
    // point, so the marks become rings drawn over the pieces.
    const points = desc.board.points;
    const lm = v.lastMove;
    let over = '';
    const ring = (i, cls) => {
      const [vx, vy] = this.visual(i);
      return `<circle class="${cls}" cx="${this.px(vx + 0.5)}" cy="${this.px(vy + 0.5)}" r="${U * 0.48}"/>`;
    };
    for (const i of [lm?.from, lm?.to]) {
      if (i === undefined || i < 0) continue;
      if (points) over += ring(i, 'last-ring'); else out += cellRect(i, 'last');
    }
    if (this.selected?.type === 'cell') {
      if (points) over += ring(this.selected.index, 'sel-ring'); else out += cellRect(this.selected.index, 'sel');
    }
    for (let i = 0; i < v.board.length; i++) {
      const c = v.board[i];
      if (!c.kind) continue;
      const [vx, vy] = this.visual(i);
      const kind = kindOf(desc, c.kind);
      const color = desc.seats[c.owner]?.color ?? '#6b6256';
      const facing = (c.facing || 0) + this.rotation;
      out += `<g data-i="${i}" transform="translate(${this.px(vx + 0.5)},${this.px(vy + 0.5)})">`
        + pieceSVG(desc, c, facing, { ...this.look, color, royalCheck: kind?.royal && checked.has(c.owner) && !c.flipped })
        + '</g>';
    }
    out += over;
    if (showTargets) {
      for (const [to] of targets) {
        const [vx, vy] = this.visual(to);
        const cx = this.px(vx + 0.5); const cy = this.px(vy + 0.5);
        out += v.board[to].kind
          ? `<circle class="target capture" cx="${cx}" cy="${cy}" r="${U * 0.46}"/>`
          : `<circle class="target" cx="${cx}" cy="${cy}" r="${U * 0.15}"/>`;
      }
    }
    this.svg.querySelector('.pieces').innerHTML = out;
    this.slide();

    // Cell buttons: names for screen readers, state for styling and tests.
    for (let i = 0; i < this.cells.length; i++) {
      const c = v.board[i];
      const b = this.cells[i];
      const coord = this.coord(i);
      let label;
      if (!c.kind) label = t('ui.cell.empty', { coord });
      else {
        const seat = c.owner >= 0 ? t(desc.seats[c.owner].nameKey) : t('seat.nobody');
        const kind = kindOf(desc, c.kind);
        label = c.flipped ? t('ui.cell.flipped', { coord, seat })
          : t('ui.cell.piece', { coord, seat, piece: kind ? t(nameKeyOf(kind, c.promoted)) : c.kind });
      }
      if (targets.has(i)) label += `, ${t('ui.cell.target')}`;
      if (this.selected?.type === 'cell' && this.selected.index === i) label += `, ${t('ui.cell.selected')}`;
      b.setAttribute('aria-label', label);
      b.dataset.coord = coord;
      // The piece on the cell, for tests: its owner's seat and its kind.
      if (c.kind) {
        b.dataset.seat = String(c.owner);
        b.dataset.kind = c.kind;
      } else {
        delete b.dataset.seat;
        delete b.dataset.kind;
      }
      b.classList.toggle('movable', this.legal().some((m) => m.kind === 'move' && m.from === i) || this.supplyDrops(i).length > 0);
      b.classList.toggle('target', targets.has(i));
      b.classList.toggle('selected', this.selected?.type === 'cell' && this.selected.index === i);
    }
    this.renderHands();
    this.afterRender?.(); // a page's drawing over the board (analysis-ui.js: the best move's arrow)
  }

  renderHands() {
    // Before the first View the hands show their seats' names already, so
    // that nothing moves when the game arrives.
    const v = this.view || { toMove: [], hands: [], status: '', score: this.desc.seats.length > 2 ? [] : undefined };
    const { desc, t } = this;
    const n = desc.seats.length;
    for (let seat = 0; seat < n; seat++) {
      const h = this.hands[seat];
      const info = desc.seats[seat];
      const name = t(info.nameKey);
      const toMove = (v.toMove || []).includes(seat) && v.status === 'playing';
      const inCheck = (v.inCheck || []).includes(seat);
      const out = (v.eliminated || []).includes(seat);
      h.classList.toggle('to-move', toMove);
      h.classList.toggle('in-check', inCheck);
      h.classList.toggle('out', out);
      h.setAttribute('role', 'group');
      h.setAttribute('aria-label', t('ui.hand', { seat: name }));
      const head = document.createElement('div');
      head.className = 'hand-head';
      const dot = document.createElement('span');
      dot.className = 'seat-dot';
      dot.style.background = info.color;
      const label = document.createElement('span');
      label.className = 'seat-name';
      label.textContent = name;
      head.append(dot, label);
      const tag = this.seatTag(seat);
      if (tag) {
        const tg = document.createElement('span');
        tg.className = 'seat-tag';
        tg.textContent = tag;
        head.append(tg);
      }
      if (v.score && n > 2) {
        const sc = document.createElement('span');
        sc.className = 'score';
        sc.textContent = t('ui.mates', { n: v.score[seat] ?? 0 });
        head.append(sc);
      }
      if (out) {
        const m = document.createElement('span');
        m.className = 'badge';
        m.textContent = t('ui.mated');
        head.append(m);
      }
      const pieces = document.createElement('div');
      pieces.className = 'hand-pieces';
      for (const hp of (v.hands?.[seat] || [])) {
        const kind = kindOf(desc, hp.kind);
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'hand-piece';
        b.dataset.seat = String(seat);
        b.dataset.kind = hp.kind;
        const pname = kind ? t(kind.nameKey) : hp.kind;
        b.setAttribute('aria-label', t('ui.inHand', { piece: `${name} ${pname}`, n: hp.count }));
        const sel = this.selected?.type === 'hand' && this.selected.seat === seat && this.selected.kind === hp.kind;
        b.classList.toggle('selected', sel);
        b.setAttribute('aria-pressed', String(sel));
        const droppable = this.legal().some((m) => m.kind === 'drop' && m.seat === seat && m.drop === hp.kind);
        b.classList.toggle('movable', droppable);
        const facing = this.seatFacing(seat) + this.rotation;
        b.innerHTML = `<svg viewBox="-50 -50 100 100" aria-hidden="true">${pieceSVG(desc, { kind: hp.kind, owner: seat }, facing, { ...this.look, color: info.color })}</svg>`
          + (hp.count > 1 ? `<span class="count">${hp.count}</span>` : '');
        b.addEventListener('pointerdown', (e) => this.onPointerDown(e, { seat, kind: hp.kind }));
        b.addEventListener('click', (e) => { if (e.detail === 0) this.activateHand(seat, hp.kind, true); });
        pieces.append(b);
      }
      if (desc.hands && !(v.hands?.[seat] || []).length) {
        const empty = document.createElement('span');
        empty.className = 'hand-empty';
        empty.textContent = '—';
        pieces.append(empty);
      }
      const focused = document.activeElement?.closest?.('.hand-piece');
      const refocus = focused && h.contains(focused) ? focused.dataset.kind : null;
      h.replaceChildren(head, pieces);
      if (refocus) pieces.querySelector(`[data-kind="${CSS.escape(refocus)}"]`)?.focus();
    }
  }

  // ---- choosing

  select(sel, fromKeyboard) {
    this.selected = sel;
    this.render();
    const moves = this.movesOf(sel);
    const { t, desc } = this;
    let pname;
    if (sel.type === 'cell') {
      const c = this.view.board[sel.index];
      pname = t(nameKeyOf(kindOf(desc, c.kind), c.promoted));
    } else {
      pname = t(kindOf(desc, sel.kind).nameKey);
    }
    const tos = new Set(moves.map((m) => m.to));
    this.announce(tos.size ? t('ui.announce.select', { piece: pname, n: tos.size }) : t('ui.announce.noMoves', { piece: pname }));
    if (fromKeyboard && sel.type === 'hand' && tos.size) {
      // Keyboard users continue on the board, at the first square they may drop on.
      this.setCursor([...tos][0], true);
    }
  }

  deselect(quiet) {
    if (!this.selected) return;
    this.selected = null;
    this.render();
    if (!quiet) this.announce(this.t('ui.announce.cancel'));
  }

  activateCell(i, fromKeyboard) {
    if (this.busy || !this.view) return;
    const moves = this.movesOf(this.selected).filter((m) => m.to === i);
    if (moves.length) { this.choose(moves); return; }
    if (this.selected?.type === 'cell' && this.selected.index === i) { this.deselect(); return; }
    if (this.legal().some((m) => m.kind === 'move' && m.from === i)) { this.select({ type: 'cell', index: i }, fromKeyboard); return; }
    const supply = this.supplyDrops(i);
    if (supply.length) { this.selected = null; this.choose(supply); return; }
    this.deselect(!fromKeyboard);
  }

  activateHand(seat, kind, fromKeyboard) {
    if (this.busy || !this.view) return;
    if (this.selected?.type === 'hand' && this.selected.seat === seat && this.selected.kind === kind) { this.deselect(); return; }
    if (this.legal().some((m) => m.kind === 'drop' && m.seat === seat && m.drop === kind)) this.select({ type: 'hand', seat, kind }, fromKeyboard);
  }

  async choose(moves) {
    let m = moves[0];
    if (moves.length > 1) {
      this.busy = true;
      m = await this.promote(moves);
      this.busy = false;
      if (!m) { this.render(); return; }
    }
    this.busy = true;
    this.selected = null; // a move chosen ends the selection, played or not
    this.onMove(m);
  }

  // ---- keyboard

  setCursor(i, focus) {
    if (i < 0) return;
    if (this.cursor >= 0) this.cells[this.cursor].tabIndex = -1;
    this.cursor = i;
    this.cells[i].tabIndex = 0;
    if (focus) this.cells[i].focus();
  }

  onKey(e) {
    const b = e.target.closest('.cell');
    if (!b) return;
    const d = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[e.key];
    if (d) {
      e.preventDefault();
      const [vx, vy] = this.visual(Number(b.dataset.index));
      const nx = Math.min(this.VW - 1, Math.max(0, vx + d[0]));
      const ny = Math.min(this.VH - 1, Math.max(0, vy + d[1]));
      this.setCursor(this.indexAt(nx, ny), true);
    } else if (e.key === 'Escape') {
      this.deselect();
    }
  }

  // ---- pointer: tap-tap and drag, for mouse, pen and touch alike

  cellAt(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const w = this.VW * U + 2 * M;
    const h = this.VH * U + 2 * M;
    const x = ((clientX - r.left) / r.width) * w;
    const y = ((clientY - r.top) / r.height) * h;
    const vx = Math.floor((x - M) / U);
    const vy = Math.floor((y - M) / U);
    if (vx < 0 || vy < 0 || vx >= this.VW || vy >= this.VH) return -1;
    return this.indexAt(vx, vy);
  }

  onPointerDown(e, hand) {
    if (e.button !== 0 || this.busy || !this.view) return;
    let sel;
    let wasSelected;
    if (hand) {
      if (!this.legal().some((m) => m.kind === 'drop' && m.seat === hand.seat && m.drop === hand.kind)) return;
      wasSelected = this.selected?.type === 'hand' && this.selected.seat === hand.seat && this.selected.kind === hand.kind;
      sel = { type: 'hand', ...hand };
    } else {
      const i = this.cellAt(e.clientX, e.clientY);
      if (i < 0) { this.deselect(true); return; }
      if (this.movesOf(this.selected).some((m) => m.to === i)) {
        e.preventDefault();
        this.playedByTouch = e.pointerType === 'touch';
        this.activateCell(i, false);
        return;
      }
      if (!this.legal().some((m) => m.kind === 'move' && m.from === i)) {
        if (this.supplyDrops(i).length) {
          e.preventDefault();
          this.playedByTouch = e.pointerType === 'touch';
          this.activateCell(i, false);
          return;
        }
        this.deselect(true);
        return;
      }
      wasSelected = this.selected?.type === 'cell' && this.selected.index === i;
      sel = { type: 'cell', index: i };
    }
    e.preventDefault();
    if (!wasSelected) this.select(sel, false);
    const drag = { sel, wasSelected, x: e.clientX, y: e.clientY, moved: false, ghost: null, id: e.pointerId };
    this.drag = drag;
    const move = (ev) => {
      if (ev.pointerId !== drag.id) return;
      if (!drag.moved && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 6) {
        drag.moved = true;
        drag.ghost = this.makeGhost(sel);
      }
      if (drag.ghost) drag.ghost.style.transform = `translate(${ev.clientX}px, ${ev.clientY}px)`;
    };
    const up = (ev) => {
      if (ev.pointerId !== drag.id) return;
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', up);
      drag.ghost?.remove();
      this.drag = null;
      if (ev.type === 'pointercancel') return;
      if (drag.moved) {
        const i = this.cellAt(ev.clientX, ev.clientY);
        const moves = this.movesOf(sel).filter((m) => m.to === i);
        this.playedByTouch = moves.length > 0 && ev.pointerType === 'touch';
        this.dragged = moves.length > 0;
        if (moves.length) this.choose(moves);
        else if (!(sel.type === 'cell' && sel.index === i)) this.deselect(true);
      } else if (drag.wasSelected) {
        this.deselect();
      }
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', up);
  }

  makeGhost(sel) {
    const { desc } = this;
    const cell = sel.type === 'cell' ? this.view.board[sel.index] : { kind: sel.kind, owner: sel.seat };
    const facing = sel.type === 'cell' ? (cell.facing || 0) + this.rotation : this.seatFacing(sel.seat) + this.rotation;
    const g = document.createElement('div');
    g.className = 'ghost';
    const size = this.svg.getBoundingClientRect().width / (this.VW + (2 * M) / U);
    g.style.width = `${size * 1.15}px`;
    g.style.height = `${size * 1.15}px`;
    g.innerHTML = `<svg viewBox="-50 -50 100 100" aria-hidden="true">${pieceSVG(desc, cell, facing, { ...this.look, color: desc.seats[cell.owner]?.color ?? '#444' })}</svg>`;
    document.body.append(g);
    return g;
  }
}
