// Move list navigation: the position after any earlier move, by a click on
// the move list, the ⏮ ◀ ▶ ⏭ buttons or ←/→/Home/End. The browser computes
// no position: each one is the plugin's View of the game at that ply
// (sdk.Rewinder), fetched through viewAt(ply) and kept while the game's
// first plies stay the same. While a past position is shown the board takes
// no move (Board.setViewing): a move is only ever made from the game's
// current position.

import { $ } from './ui.js';

export class Nav {
  /**
   * viewAt(ply) resolves to the View after ply moves; show() redraws the
   * page (nav.view is the past View shown, or null); t is the strings.
   */
  constructor({ viewAt, show, t, enabled = true }) {
    this.viewAt = viewAt;
    this.show = show;
    this.t = t;
    this.enabled = enabled;
    this.ply = null; // the ply shown, null: the game's current position
    this.view = null;
    this.live = 0; // the game's current ply
    this.cache = new Map();
    this.token = 0;
    this.epoch = 0; // counts resets: a position fetched for an older game is dropped
    const box = $('nav');
    if (box) box.hidden = !enabled;
    for (const [id, to] of [['nav-first', () => 0], ['nav-prev', () => this.at() - 1], ['nav-next', () => this.at() + 1], ['nav-last', () => this.live]]) {
      $(id)?.addEventListener('click', () => this.go(to()));
    }
    $('nav-back')?.addEventListener('click', () => this.back());
    document.addEventListener('keydown', (e) => this.onKey(e));
  }

  /** at is the ply shown. */
  at() { return this.ply ?? this.live; }

  /** setLive tells the game's current ply; keep is how many first plies are unchanged (all when omitted). */
  setLive(ply, keep = ply) {
    this.live = ply;
    for (const k of this.cache.keys()) if (k > keep) this.cache.delete(k);
    if (this.ply !== null && (this.ply > keep || this.ply >= ply)) this.back(true);
    this.sync();
  }

  /** reset forgets every position (a new game, an import, a new round). */
  reset(ply = 0) {
    this.epoch++;
    this.cache.clear();
    this.live = ply;
    this.back(true);
  }

  async go(ply) {
    if (!this.enabled) return;
    ply = Math.max(0, Math.min(ply, this.live));
    if (ply === this.live) { this.back(); return; }
    const my = ++this.token;
    const epoch = this.epoch;
    let v = this.cache.get(ply);
    if (!v) {
      document.body.dataset.navBusy = 'true';
      try {
        v = await this.viewAt(ply);
      } catch (err) {
        if (my === this.token) {
          document.body.dataset.navBusy = 'false';
          this.onError?.(err);
        }
        return;
      }
      if (epoch !== this.epoch) return;
      this.cache.set(ply, v);
    }
    if (my !== this.token || ply > this.live) return;
    document.body.dataset.navBusy = 'false';
    this.ply = ply;
    this.view = v;
    this.sync();
    this.show();
  }

  /** back returns to the game's current position; quiet: the caller redraws. */
  back(quiet) {
    this.token++;
    document.body.dataset.navBusy = 'false';
    const was = this.ply !== null;
    this.ply = null;
    this.view = null;
    this.sync();
    if (was && !quiet) this.show();
  }

  sync() {
    const { t } = this;
    const viewing = this.ply !== null;
    document.body.dataset.viewing = viewing ? String(this.ply) : '';
    const bar = $('viewing');
    if (bar) {
      bar.hidden = !viewing;
      if (viewing) {
        $('viewing-text').textContent = this.ply === 0 ? t('ui.nav.start') : t('ui.nav.viewing', { n: this.ply, total: this.live });
      }
    }
    const at = this.at();
    if ($('nav-first')) {
      $('nav-first').disabled = at === 0;
      $('nav-prev').disabled = at === 0;
      $('nav-next').disabled = at >= this.live;
      $('nav-last').disabled = at >= this.live;
    }
    for (const li of document.querySelectorAll('#history li')) {
      const on = viewing && Number(li.dataset.ply) === this.ply;
      if (on) li.setAttribute('aria-current', 'step'); else li.removeAttribute('aria-current');
    }
    if (viewing) document.querySelector('#history li[aria-current]')?.scrollIntoView({ block: 'nearest' });
  }

  onKey(e) {
    if (!this.enabled || e.altKey || e.ctrlKey || e.metaKey) return;
    const el = e.target;
    // Text fields and open dialogs keep their keys, and the board its
    // arrows (Home and End work there too).
    if (el.closest?.('input, textarea, select, dialog, [contenteditable]')) return;
    if (document.querySelector('dialog[open]')) return;
    if (el.closest?.('.cells') && e.key.startsWith('Arrow')) return;
    const to = { ArrowLeft: this.at() - 1, ArrowRight: this.at() + 1, Home: 0, End: this.live }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(to);
  }
}
