// Drawing pieces as SVG markup, in a 100-unit cell centred on 0,0. A piece's
// look comes only from the Description: its glyphs, its promoted form, its
// steps (for the beginner set) and its owner's colour.

/** esc makes text safe inside SVG or HTML markup. */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const PENTAGON = '0,-45 31,-33 38,43 -38,43 -31,-33';

/** kindOf finds a piece kind of the Description by ID. */
export function kindOf(desc, id) {
  return desc.pieces.find((p) => p.id === id);
}

/** glyphOf is the character a piece shows for its owner. */
export function glyphOf(kind, owner, promoted) {
  const g = promoted && kind.promoted ? kind.promoted.glyphs : kind.glyphs;
  if (!g || g.length === 0) return kind.letter || kind.id;
  return g[owner >= 0 && owner < g.length ? owner : 0];
}

/** drawingOf is a piece's own drawing for its owner (sanitized SVG markup by the host), or ''. */
export function drawingOf(kind, owner, promoted) {
  const d = promoted && kind.promoted ? kind.promoted.drawing : kind.drawing;
  if (!d || d.length === 0) return '';
  return d[owner >= 0 && owner < d.length ? owner : 0];
}

/** nameKeyOf is the i18n key of a piece's name. */
export function nameKeyOf(kind, promoted) {
  return promoted && kind.promoted ? kind.promoted.nameKey : kind.nameKey;
}

/** letterOf is a piece's international symbol (Description's Letter), its glyph where it has none. */
export function letterOf(kind, owner, promoted) {
  const l = promoted && kind.promoted ? kind.promoted.letter : kind.letter;
  return l || glyphOf(kind, owner, promoted);
}

/**
 * pieceSVG draws one piece. facing is in quarter turns clockwise as the
 * piece appears on screen; upright pieces keep their text upright but their
 * beginner marks still point the way the piece moves. set is "glyphs" (the
 * characters) or "intl" (international symbols); ink "duo" draws the piece
 * in its seat's colour, "mono" in one ink with promoted pieces in red (the
 * stylesheet's colours), as on a real shogi set.
 */
export function pieceSVG(desc, cell, facing, { beginner = false, set = 'glyphs', ink = 'duo', color = '#222', royalCheck = false } = {}) {
  const kind = kindOf(desc, cell.kind);
  if (!kind) return '';
  const deg = ((facing % 4) + 4) % 4 * 90;
  const upright = desc.board.upright;
  const intl = set === 'intl';
  const text = intl ? letterOf(kind, cell.owner, cell.promoted) : glyphOf(kind, cell.owner, cell.promoted);
  const glyph = esc(text);
  const steps = (cell.promoted && kind.promoted ? kind.promoted.steps : kind.steps) || [];
  const mono = ink === 'mono' && !upright;
  const markColor = mono ? (cell.promoted ? '#b3261e' : '#1f1b16') : color;
  const marks = beginner && !cell.flipped ? stepMarks(steps, markColor) : '';
  const check = royalCheck ? '<circle class="check" r="48"/>' : '';
  // Latin letters are wider than a character: two of them ("+R") are smaller.
  let size = beginner ? 30 : 44;
  if (intl) size = text.length > 1 ? (beginner ? 24 : 32) : (beginner ? 30 : 42);
  const font = intl ? ' latin' : '';
  const drawing = drawingOf(kind, cell.owner, cell.promoted);
  if (drawing && !cell.flipped) {
    // The variant's own drawing (a disc, a stone, a mark), in its owner's
    // colour as currentColor; upright boards keep it upright.
    return `<g class="piece drawn" color="${esc(color)}">${check}<g transform="rotate(${upright ? 0 : deg})">${drawing}</g>`
      + (marks ? `<g transform="rotate(${deg})">${marks}</g>` : '') + '</g>';
  }
  if (upright) {
    return `<g class="piece disc">${check}<circle r="44" class="disc-face" stroke="${esc(color)}"/>`
      + `<circle r="37" fill="none" stroke="${esc(color)}" stroke-width="2"/>`
      + (marks ? `<g transform="rotate(${deg})">${marks}</g>` : '')
      + `<text class="glyph${font}" y="${beginner ? 10 : 15}" font-size="${size}" fill="${esc(color)}">${glyph}</text></g>`;
  }
  if (cell.flipped) {
    return `<g class="piece flipped" transform="rotate(${deg})"><polygon points="${PENTAGON}" class="back" stroke="${esc(color)}"/>`
      + `<circle r="9" fill="${esc(color)}" cy="5"/></g>`;
  }
  const ink2 = cell.promoted ? ' promoted' : '';
  const paint = mono ? '' : ` fill="${esc(color)}"`;
  const edge = mono ? '' : ` stroke="${esc(color)}"`;
  return `<g class="piece${mono ? ' mono' : ''}">${check}<g transform="rotate(${deg})"><polygon points="${PENTAGON}" class="wood"${edge}/>`
    + marks
    + `<text class="glyph${ink2}${font}" y="${beginner ? 13 : intl ? 15 : 17}" font-size="${size}"${paint}>${glyph}</text></g></g>`;
}

// stepMarks shows how a piece moves: a dot for a step, a bar for a slide,
// a ring for a jump, placed in the direction of the move.
function stepMarks(steps, color) {
  let out = '';
  for (const s of steps) {
    const len = Math.hypot(s.dx, s.dy) || 1;
    const ux = s.dx / len;
    const uy = s.dy / len;
    if (s.jump) {
      out += `<circle cx="${(s.dx * 14).toFixed(1)}" cy="${(s.dy * 16).toFixed(1)}" r="6" fill="none" stroke="${esc(color)}" stroke-width="3.5"/>`;
    } else if (s.slide) {
      out += `<line x1="${(ux * 22).toFixed(1)}" y1="${(uy * 22).toFixed(1)}" x2="${(ux * 36).toFixed(1)}" y2="${(uy * 36).toFixed(1)}" stroke="${esc(color)}" stroke-width="8" stroke-linecap="round"/>`;
    } else {
      out += `<circle cx="${(ux * 29).toFixed(1)}" cy="${(uy * 29).toFixed(1)}" r="6.5" fill="${esc(color)}"/>`;
    }
  }
  return `<g class="steps">${out}</g>`;
}
