// The board's appearance, chosen by the person and remembered in this
// browser (banmen.prefs): the theme (theme.js), the board (plain or wood),
// the pieces' ink (one colour, told apart by direction and with promoted
// pieces in red, or each seat in its colour), the piece set (the
// characters or international symbols) and the move marks of the beginner
// set, and sound. Only presentation: nothing here knows a game rule.

import { $ } from './ui.js';

/** inkDefault is the pieces' ink before any choice: two seats facing each other read as on a real board. */
function inkDefault(desc) {
  return desc.seats.length === 2 ? 'mono' : 'duo';
}

/**
 * setupLook wires the appearance panel to board, from and into prefs (a
 * Store); sound is the page's Sound (sound.js), or null.
 */
export function setupLook(board, desc, prefs, sound) {
  const load = () => prefs.load() || {};
  const save = (k, v) => { const p = load(); p[k] = v; prefs.save(p); };
  const p = load();
  const look = {
    board: p.board === 'wood' ? 'wood' : 'plain',
    ink: p[`ink.${desc.id}`] || inkDefault(desc),
    set: p.set === 'intl' ? 'intl' : 'glyphs',
    beginner: Boolean(p.beginner),
  };
  const apply = () => {
    document.body.dataset.boardStyle = look.board;
    document.body.dataset.ink = desc.board.upright ? 'duo' : look.ink;
    board.setLook({ ...look, ink: desc.board.upright ? 'duo' : look.ink });
  };
  apply();

  const theme = window.banmenTheme;
  const sel = (id, value, f) => {
    const el = $(id);
    if (!el) return;
    el.value = value;
    el.addEventListener('change', () => f(el.value));
  };
  if (theme) {
    sel('look-theme', theme.get(), (v) => theme.set(v));
    theme.onChange(() => { if ($('look-theme')) $('look-theme').value = theme.get(); });
  }
  sel('look-board', look.board, (v) => { look.board = v; save('board', v); apply(); });
  sel('look-ink', look.ink, (v) => { look.ink = v; save(`ink.${desc.id}`, v); apply(); });
  sel('look-set', look.set, (v) => { look.set = v; save('set', v); apply(); });
  const beginner = $('beginner');
  if (beginner) {
    beginner.checked = look.beginner;
    $('beginner-row').hidden = !desc.pieces.some((k) => (k.steps || []).length);
    beginner.addEventListener('change', () => { look.beginner = beginner.checked; save('beginner', look.beginner); apply(); });
  }
  const snd = $('sound-on');
  if (snd && sound) {
    snd.checked = !sound.muted;
    snd.addEventListener('change', () => sound.setMuted(!snd.checked));
  }
}
