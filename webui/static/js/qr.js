// QR codes (ISO/IEC 18004) drawn by the page itself, so that a room's
// invitation link can be scanned from another device without sending it to
// any outside service. One byte-mode segment of UTF-8 (with the ECI that says
// so when the text is not ASCII), versions 1 to 40, error correction L, M, Q
// or H, and the mask the standard's penalty rules choose.
//
//   import { qrSVG, qrMatrix } from '/static/js/qr.js';
//   box.innerHTML = qrSVG(link, { title: t('invite.qr') }); // 4-module quiet zone included
//   const { version, size, modules } = qrMatrix(link, { ecc: 'M' }); // modules[y][x], true = dark
//
// Both throw a RangeError when the text does not fit in version 40.

// The two format-information bits of each error-correction level.
const LEVEL_BITS = { L: 1, M: 0, Q: 3, H: 2 };

// Table 9, per level, for versions 1..40: error-correction codewords in each
// block, and the number of blocks. The blocks split the version's codewords
// as evenly as they can; the longer ones carry one more data codeword.
const EC_PER_BLOCK = {
  L: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  M: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  Q: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  H: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};
const BLOCKS = {
  L: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  M: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  Q: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  H: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
};

// GF(256) with the field polynomial x^8+x^4+x^3+x^2+1 (0x11d), by tables.
const EXP = new Uint8Array(510);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++, x = (x << 1) ^ (x & 0x80 ? 0x11d : 0)) {
  EXP[i] = EXP[i + 255] = x;
  LOG[x] = i;
}
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

// rsRemainder returns the n error-correction codewords of data: the remainder
// of data·x^n divided by the generator (x-α^0)(x-α^1)…(x-α^(n-1)).
function rsRemainder(data, n) {
  let gen = [1]; // coefficients, highest power first
  for (let i = 0; i < n; i++) {
    const next = new Array(gen.length + 1).fill(0);
    gen.forEach((c, j) => { next[j] ^= c; next[j + 1] ^= mul(c, EXP[i]); });
    gen = next;
  }
  const rem = new Array(n).fill(0);
  for (const d of data) {
    const f = d ^ rem.shift();
    rem.push(0);
    for (let j = 0; j < n; j++) rem[j] ^= mul(gen[j + 1], f);
  }
  return rem;
}

// bch returns value followed by the k bits of the remainder of value·x^k divided by poly.
function bch(value, poly, k) {
  let r = value << k;
  for (let b = 31 - Math.clz32(r); b >= k; b--) if (r & (1 << b)) r ^= poly << (b - k);
  return (value << k) | r;
}

// alignmentCentres lists the row (and column) coordinates of the alignment
// patterns (Annex E): the first at 6, the last at size-7, the others evenly
// spaced back from the last by an even step (26 for version 32, the exception).
function alignmentCentres(version) {
  if (version === 1) return [];
  const size = 4 * version + 17, n = Math.floor(version / 7) + 2;
  const step = version === 32 ? 26 : Math.ceil((size - 13) / (2 * n - 2)) * 2;
  const out = [6];
  for (let i = n - 2; i >= 0; i--) out.push(size - 7 - i * step);
  return out;
}

// Grid holds the modules of one version, row by row (1 = dark), and knows
// which are function patterns (finders, timing, alignment, format and
// version information).
class Grid {
  constructor(version) {
    this.version = version;
    this.size = 4 * version + 17;
    const s = this.size;
    this.dark = new Uint8Array(s * s);
    this.fixed = new Uint8Array(s * s);
    for (const [x, y] of [[3, 3], [s - 4, 3], [3, s - 4]]) this.finder(x, y);
    const c = alignmentCentres(version); // before the timing patterns, which they agree with
    for (const y of c) for (const x of c) {
      if (!this.fixed[y * s + x]) this.square(x, y, 2, (dx, dy) => Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }
    for (let i = 8; i < s - 8; i++) { this.set(i, 6, i % 2 === 0); this.set(6, i, i % 2 === 0); }
    this.format('M', 0); // reserves its modules; each mask rewrites them
    if (version >= 7) {
      const bits = bch(version, 0x1f25, 12);
      for (let i = 0; i < 18; i++) {
        const a = s - 11 + (i % 3), b = Math.floor(i / 3), on = ((bits >> i) & 1) === 1;
        this.set(a, b, on);
        this.set(b, a, on);
      }
    }
  }

  set(x, y, on) {
    if (x < 0 || y < 0 || x >= this.size || y >= this.size) return;
    this.dark[y * this.size + x] = on ? 1 : 0;
    this.fixed[y * this.size + x] = 1;
  }

  square(cx, cy, r, isDark) {
    for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) this.set(cx + dx, cy + dy, isDark(dx, dy));
  }

  // finder draws a 7×7 finder pattern centred on (cx, cy) with its light separator.
  finder(cx, cy) {
    this.square(cx, cy, 4, (dx, dy) => {
      const d = Math.max(Math.abs(dx), Math.abs(dy));
      return d !== 2 && d !== 4;
    });
  }

  // format writes the 15 format bits (level, mask, BCH, XOR 0x5412) twice, bit 14 first.
  format(level, mask) {
    const bits = bch((LEVEL_BITS[level] << 3) | mask, 0x537, 10) ^ 0x5412;
    const s = this.size, bit = (i) => ((bits >> (14 - i)) & 1) === 1;
    const first = [[0, 8], [1, 8], [2, 8], [3, 8], [4, 8], [5, 8], [7, 8], [8, 8], [8, 7], [8, 5], [8, 4], [8, 3], [8, 2], [8, 1], [8, 0]];
    first.forEach(([x, y], i) => this.set(x, y, bit(i)));
    for (let i = 0; i < 7; i++) this.set(8, s - 1 - i, bit(i));
    for (let i = 7; i < 15; i++) this.set(s - 15 + i, 8, bit(i));
    this.set(8, s - 8, true); // the dark module
  }

  // place lays the codewords' bits in two-column strips from the bottom
  // right, up and down in turn, skipping the vertical timing pattern.
  place(codewords) {
    const s = this.size;
    let i = 0;
    for (let right = s - 1, up = true; right > 0; right -= 2, up = !up) {
      if (right === 6) right = 5;
      for (let k = 0; k < s; k++) {
        const y = up ? s - 1 - k : k;
        for (let x = right; x >= right - 1; x--) {
          if (this.fixed[y * s + x]) continue;
          this.dark[y * s + x] = ((codewords[i >> 3] ?? 0) >> (7 - (i & 7))) & 1; // remainder bits stay light
          i++;
        }
      }
    }
  }

  // masked returns the modules with data mask m applied and its format bits written.
  masked(level, m) {
    const s = this.size, test = MASKS[m], out = this.dark.slice();
    for (let y = 0; y < s; y++) for (let x = 0; x < s; x++) if (!this.fixed[y * s + x] && test(y, x)) out[y * s + x] ^= 1;
    const saved = this.dark;
    this.dark = out;
    this.format(level, m);
    this.dark = saved;
    return out;
  }
}

// The eight data masks (i = row, j = column): a module is flipped where true.
const MASKS = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

// penalty scores a masked symbol by the four rules of 7.8.3: runs of five
// or more, 2×2 blocks, finder-like 1:1:3:1:1 patterns beside four light
// modules (outside the symbol counts as light), and the dark proportion.
function penalty(m, s) {
  let score = 0, dark = 0;
  const line = new Uint8Array(s + 8); // one row or column, with four light modules each side
  for (let dir = 0; dir < 2; dir++) {
    for (let r = 0; r < s; r++) {
      for (let i = 0; i < s; i++) line[i + 4] = dir ? m[i * s + r] : m[r * s + i];
      for (let i = 1, run = 1; i <= s; i++) {
        if (i < s && line[i + 4] === line[i + 3]) run++;
        else { if (run >= 5) score += run - 2; run = 1; }
      }
      for (let i = 4; i + 7 <= s + 4; i++) {
        if (!(line[i] & ~line[i + 1] & line[i + 2] & line[i + 3] & line[i + 4] & ~line[i + 5] & line[i + 6] & 1)) continue;
        if (!(line[i - 4] | line[i - 3] | line[i - 2] | line[i - 1]) || !(line[i + 7] | line[i + 8] | line[i + 9] | line[i + 10])) score += 40;
      }
    }
  }
  for (let y = 0; y < s; y++) {
    for (let x = 0; x < s; x++) {
      const d = m[y * s + x];
      dark += d;
      if (x + 1 < s && y + 1 < s && d === m[y * s + x + 1] && d === m[(y + 1) * s + x] && d === m[(y + 1) * s + x + 1]) score += 3;
    }
  }
  return score + 10 * Math.floor(Math.abs(dark * 20 - s * s * 10) / (s * s));
}

// dataCodewords picks the smallest version that holds the segment (ECI if
// needed, byte mode, count, bytes) and returns its grid and data codewords,
// terminated and padded.
function dataCodewords(bytes, ascii, level) {
  const header = (ascii ? 0 : 12) + 4;
  for (let version = 1; version <= 40; version++) {
    const grid = new Grid(version), countBits = version < 10 ? 8 : 16;
    const total = grid.fixed.reduce((n, f) => n + 1 - f, 0) >> 3; // codewords: free modules / 8
    const ec = EC_PER_BLOCK[level][version - 1], nblocks = BLOCKS[level][version - 1];
    const capacity = (total - ec * nblocks) * 8;
    if (header + countBits + bytes.length * 8 > capacity) continue;
    const bits = [];
    const put = (v, n) => { for (let b = n - 1; b >= 0; b--) bits.push((v >> b) & 1); };
    if (!ascii) { put(0b0111, 4); put(26, 8); } // ECI 000026: UTF-8
    put(0b0100, 4);
    put(bytes.length, countBits);
    for (const b of bytes) put(b, 8);
    put(0, Math.min(4, capacity - bits.length)); // terminator
    put(0, (8 - (bits.length % 8)) % 8);
    const data = [];
    for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
    for (let pad = 0xec; data.length < capacity / 8; pad ^= 0xec ^ 0x11) data.push(pad);
    return { grid, data, total, ec, nblocks };
  }
  throw new RangeError(`qr: ${bytes.length} bytes do not fit in a version 40 symbol at level ${level}`);
}

// qrMatrix encodes text; opts.ecc is 'L', 'M' (the default), 'Q' or 'H'.
export function qrMatrix(text, opts = {}) {
  const level = opts.ecc ?? 'M';
  if (!Object.hasOwn(LEVEL_BITS, level)) throw new RangeError(`qr: unknown error-correction level ${level}`);
  const bytes = new TextEncoder().encode(String(text));
  const { grid, data, total, ec, nblocks } = dataCodewords(bytes, bytes.every((b) => b < 0x80), level);
  const shortLen = Math.floor(total / nblocks) - ec, longFrom = nblocks - (total % nblocks);
  const blocks = [];
  for (let b = 0, at = 0; b < nblocks; b++) {
    const n = shortLen + (b >= longFrom ? 1 : 0);
    blocks.push(data.slice(at, at + n));
    at += n;
  }
  const ecc = blocks.map((d) => rsRemainder(d, ec));
  const out = [];
  for (let i = 0; i <= shortLen; i++) for (const d of blocks) if (i < d.length) out.push(d[i]);
  for (let i = 0; i < ec; i++) for (const e of ecc) out.push(e[i]);
  grid.place(out);
  let best = null;
  for (let m = 0; m < 8; m++) {
    const modules = grid.masked(level, m), score = penalty(modules, grid.size);
    if (!best || score < best.score) best = { modules, score, mask: m };
  }
  const s = grid.size, rows = Array.from({ length: s }, (_, y) => Array.from(best.modules.subarray(y * s, y * s + s), Boolean));
  return { version: grid.version, size: s, mask: best.mask, modules: rows };
}

const escapeXML = (s) => String(s).replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

// qrSVG returns an <svg> of the symbol, dark on light with a quiet zone of
// four modules, its dark modules as one path. opts: ecc, title (the
// accessible name), and px (width and height; by default the SVG fills its box).
export function qrSVG(text, opts = {}) {
  const { size, modules } = qrMatrix(text, opts);
  const n = size + 8;
  let d = '';
  modules.forEach((row, y) => {
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue;
      let w = 1;
      while (x + w < size && row[x + w]) w++;
      d += `M${x + 4} ${y + 4}h${w}v1h-${w}z`;
      x += w - 1;
    }
  });
  const px = opts.px ? ` width="${Number(opts.px)}" height="${Number(opts.px)}"` : '';
  const title = opts.title ? `<title>${escapeXML(opts.title)}</title>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n} ${n}"${px} role="img" shape-rendering="crispEdges">` +
    `${title}<rect width="${n}" height="${n}" fill="#fff"/><path fill="#000" d="${d}"/></svg>`;
}
