// Three Men's Morris, the rules: a 3×3 board of points; each player first
// places three men (drops from an unlimited supply), then moves one man a
// step to a neighbouring empty point (diagonals included). Three of one's
// men in a row, a column or a diagonal win; a player who cannot move loses;
// after 60 plies the game is drawn. Pure: every call decodes the game from
// its state and checks it, nothing is kept between calls.

import * as fs from "fs";
import * as path from "path";
import { RuleError, clip, open, seal } from "./state";

export const ID = "morris";
const STATE_VERSION = 1;
const MAX_PLIES = 60;
const MEN = 3;
const KINDS = ["R", "B"];
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const FILES = ["a", "b", "c"];

// The wire's shapes (sdk/internal/wire/wire.proto, field names as written).
export interface LegalMove {
  seat: number; kind: string; move: string; text: string; from: number; to: number; drop?: string;
}
export interface View {
  ply: number; status: string; position: string;
  board: { kind: string; owner: number }[];
  to_move: number[];
  last_move?: LegalMove;
  history: { seat: number; move: string; text: string }[];
  legal: LegalMove[];
  result?: { winners: number[]; places: number[]; reason: string; draw: boolean };
}

const root = path.join(__dirname, "..");
const readJSON = (p: string) => JSON.parse(fs.readFileSync(p, "utf8"));

/** texts are the variant's strings per language, from texts/<lang>.json. */
function texts(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const f of fs.readdirSync(path.join(root, "texts")).sort()) {
    if (f.endsWith(".json")) out[f.slice(0, -5)] = readJSON(path.join(root, "texts", f));
  }
  return out;
}

const look = (name: string) => fs.readFileSync(path.join(root, "looks", name), "utf8").trim();

/** description is the sdk.Description, as the JSON a Go plugin's Describe sends. */
export const description = {
  id: ID, name: "Three Men's Morris", nameKey: "variant.morris", rulesVersion: "1",
  seats: [
    { name: "Red", nameKey: "seat.morris.red", color: "#c0392b" },
    { name: "Blue", nameKey: "seat.morris.blue", color: "#1f5f99" },
  ],
  board: { files: 3, ranks: 3, points: true, upright: true, fileLabels: FILES, rankLabels: ["3", "2", "1"] },
  pieces: [
    { id: "R", name: "red man", nameKey: "piece.morris.red", glyphs: ["●"], drawing: [look("man.svg")] },
    { id: "B", name: "blue man", nameKey: "piece.morris.blue", glyphs: ["●"], drawing: [look("man.svg")] },
  ],
  notations: [{ id: "moves", name: "Moves", import: true, mediaType: "text/plain; charset=utf-8", extension: ".txt" }],
  resign: true,
  hands: false,
  texts: texts(),
  card: look("card.svg"),
};

const pointName = (p: number) => FILES[p % 3] + String(3 - Math.floor(p / 3));

function parsePoint(s: string): number {
  if (s.length !== 2) return -1;
  const c = FILES.indexOf(s[0]);
  const r = "321".indexOf(s[1]);
  return c < 0 || r < 0 ? -1 : r * 3 + c;
}

// A move's byte in the state: a drop on p is p, a step from f to t is
// 16 + f*9 + t, a resignation 200 + seat.
const RESIGN = 200;

class Game {
  codes: number[] = [];
  board = new Array<number>(9).fill(-1);
  placed = [0, 0];
  resigned = -1;
  winner = -1;
  reason = "";
  draw = false;

  get ply(): number { return this.codes.length; }
  get toMove(): number { return this.codes.length % 2; }
  get over(): boolean { return this.resigned >= 0 || this.winner >= 0 || this.draw; }

  legal(): LegalMove[] {
    const seat = this.toMove;
    const out: LegalMove[] = [];
    if (this.placed[seat] < MEN) {
      for (let p = 0; p < 9; p++) if (this.board[p] < 0) out.push(dropMove(seat, p));
      return out;
    }
    for (let f = 0; f < 9; f++) {
      if (this.board[f] !== seat) continue;
      for (let t = 0; t < 9; t++) {
        if (t !== f && this.board[t] < 0 && Math.abs((t % 3) - (f % 3)) <= 1 && Math.abs(Math.floor(t / 3) - Math.floor(f / 3)) <= 1) {
          out.push(stepMove(seat, f, t));
        }
      }
    }
    return out;
  }

  /** apply plays a listed move given by its byte, or throws. */
  apply(code: number): void {
    const seat = this.toMove;
    const m = this.legal().find((l) => codeOf(l) === code);
    if (!m) throw new RuleError("illegal_move", `move byte ${code} is not legal now`);
    if (m.kind === "drop") this.placed[seat]++;
    else this.board[m.from] = -1;
    this.board[m.to] = seat;
    this.codes.push(code);
    if (LINES.some((l) => l.every((p) => this.board[p] === seat))) {
      this.winner = seat;
      this.reason = "result.morris.three";
    } else if (this.ply >= MAX_PLIES) {
      this.draw = true;
      this.reason = "result.draw";
    } else if (this.legal().length === 0) {
      this.winner = seat;
      this.reason = "result.morris.blocked";
    }
  }

  encode(): Buffer {
    const p = [...this.codes];
    if (this.resigned >= 0) p.push(RESIGN + this.resigned);
    return seal(ID, STATE_VERSION, Uint8Array.from(p));
  }

  view(): View {
    const v: View = {
      ply: this.ply, status: "playing", position: "",
      board: this.board.map((s) => (s < 0 ? { kind: "", owner: -1 } : { kind: KINDS[s], owner: s })),
      to_move: [], history: [], legal: [],
    };
    v.position = this.board.map((s) => ".rb"[s + 1]).join("").replace(/(...)(...)(...)/, "$1/$2/$3") + " " + "rb"[this.toMove];
    const replay = new Game();
    for (const c of this.codes) {
      const m = replay.legal().find((l) => codeOf(l) === c)!;
      v.history.push({ seat: m.seat, move: m.move, text: m.text });
      v.last_move = m;
      replay.apply(c);
    }
    if (this.resigned >= 0) {
      v.ply++;
      v.history.push({ seat: this.resigned, move: "resign", text: "resign" });
      v.result = win(1 - this.resigned, "result.resignation");
    } else if (this.winner >= 0) {
      v.result = win(this.winner, this.reason);
    } else if (this.draw) {
      v.result = { winners: [], places: [1, 1], reason: this.reason, draw: true };
    } else {
      v.to_move = [this.toMove];
      v.legal = this.legal();
      return v;
    }
    v.status = "over";
    return v;
  }
}

function win(w: number, reason: string) {
  const places = [2, 2];
  places[w] = 1;
  return { winners: [w], places, reason, draw: false };
}

function dropMove(seat: number, p: number): LegalMove {
  return { seat, kind: "drop", move: pointName(p), text: pointName(p), from: -1, to: p, drop: KINDS[seat] };
}

function stepMove(seat: number, f: number, t: number): LegalMove {
  const m = pointName(f) + "-" + pointName(t);
  return { seat, kind: "move", move: m, text: m, from: f, to: t };
}

const codeOf = (m: LegalMove) => (m.kind === "drop" ? m.to : 16 + m.from * 9 + m.to);

/** decode opens a state and replays it through the rules: it comes from a browser. */
function decode(s: Uint8Array): Game {
  const { version, payload } = open(ID, s);
  if (version !== STATE_VERSION) throw new RuleError("bad_state", `unknown state version ${version}`);
  const g = new Game();
  payload.forEach((c, i) => {
    if (g.over) throw new RuleError("bad_state", "a move after the end");
    if (c === RESIGN || c === RESIGN + 1) {
      if (i !== payload.length - 1) throw new RuleError("bad_state", "a move after a resignation");
      g.resigned = c - RESIGN;
      return;
    }
    try {
      g.apply(c);
    } catch {
      throw new RuleError("bad_state", `bad move byte ${c} at ${i}`);
    }
  });
  return g;
}

function checkOptions(opts: Record<string, string>) {
  for (const k of Object.keys(opts || {})) throw new RuleError("bad_option", `unknown option ${JSON.stringify(clip(k))}`);
}

export function start(opts: Record<string, string>): [Buffer, View] {
  checkOptions(opts);
  const g = new Game();
  return [g.encode(), g.view()];
}

export function play(s: Uint8Array, seat: number, move: string): [Buffer, View] {
  const g = decode(s);
  if (g.over) throw new RuleError("game_over", "the game is over");
  if (seat !== 0 && seat !== 1) throw new RuleError("not_your_turn", `no seat ${seat}`);
  if (move === "resign") {
    g.resigned = seat;
    return [g.encode(), g.view()];
  }
  if (seat !== g.toMove) throw new RuleError("not_your_turn", `seat ${seat} is not to move`);
  const m = g.legal().find((l) => l.move === move);
  if (!m) {
    const parts = move.split("-");
    if (parts.length > 2 || parts.some((p) => parsePoint(p) < 0)) {
      throw new RuleError("bad_move", `${JSON.stringify(clip(move))} is not a point or a step`);
    }
    throw new RuleError("illegal_move", `${move} is not legal now`);
  }
  g.apply(codeOf(m));
  return [g.encode(), g.view()];
}

export function view(s: Uint8Array): View {
  return decode(s).view();
}

export function exportGame(s: Uint8Array, format: string): string {
  const g = decode(s);
  if (format !== "moves") throw new RuleError("bad_format", `unknown format ${JSON.stringify(clip(format))}`);
  const v = g.view();
  return v.history.map((h) => h.move).join(" ");
}

export function importGame(format: string, text: string): [Buffer, View] {
  if (format !== "moves") throw new RuleError("bad_format", `unknown format ${JSON.stringify(clip(format))}`);
  let [s, v] = start({});
  const words = text.split(/\s+/).filter((w) => w !== "");
  if (words.length > MAX_PLIES + 1) throw new RuleError("bad_notation", "more moves than a game holds");
  words.forEach((w, i) => {
    try {
      [s, v] = play(s, v.to_move.length ? v.to_move[0] : 0, w);
    } catch (e) {
      throw new RuleError("bad_notation", `move ${i + 1} ${JSON.stringify(clip(w))}: ${(e as Error).message}`);
    }
  });
  return [s, v];
}
