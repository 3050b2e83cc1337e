// The state envelope of the sdk (sdk.SealState / sdk.OpenState), written
// again for Node: "BNM", a version byte, the variant ID's length and bytes,
// the payload, and a big-endian CRC-32 (IEEE) of all that. A Go variant's
// hostile-state checks and this one's give the same answers.

const MAGIC = Buffer.from("BNM", "latin1");

const table = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const x of b) c = table[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function seal(variant: string, version: number, payload: Uint8Array): Buffer {
  const id = Buffer.from(variant, "utf8");
  const body = Buffer.concat([MAGIC, Buffer.from([version, id.length]), id, Buffer.from(payload)]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(body));
  return Buffer.concat([body, sum]);
}

/** RuleError is a rejection by the rules (sdk.RuleError): code, i18n key "error." + code, message. */
export class RuleError extends Error {
  constructor(public code: string, message: string) {
    super(message);
  }
  get key(): string {
    return "error." + this.code;
  }
}

export function open(variant: string, s: Uint8Array): { version: number; payload: Buffer } {
  const b = Buffer.from(s);
  const n = MAGIC.length + 2;
  if (b.length < n + 4 || !b.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new RuleError("bad_state", "not a game state");
  }
  const body = b.subarray(0, b.length - 4);
  if (crc32(body) !== b.readUInt32BE(b.length - 4)) {
    throw new RuleError("bad_state", "game state is corrupt");
  }
  const version = b[MAGIC.length];
  const idLen = b[MAGIC.length + 1];
  if (body.length < n + idLen || body.subarray(n, n + idLen).toString("utf8") !== variant) {
    throw new RuleError("bad_state", "game state belongs to another game");
  }
  return { version, payload: body.subarray(n + idLen) };
}

/** clip shortens hostile text before it is quoted in a message (sdk.Clip). */
export function clip(s: string): string {
  const b = Buffer.from(s, "utf8");
  if (b.length <= 40) return s;
  let n = 40;
  while (n > 0 && (b[n] & 0xc0) === 0x80) n--;
  return b.subarray(0, n).toString("utf8") + "…";
}
