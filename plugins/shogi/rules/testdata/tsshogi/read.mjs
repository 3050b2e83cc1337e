// Reads shogi records with tsshogi, a reader independent of Banmen, and
// prints, for each, the final position and who the record says won.
//
// stdin: a JSON array of {"format": "csa"|"kif"|"usi", "text": "..."}.
// stdout: a JSON array of {"error", "sfen", "plies", "end", "winner"}:
// sfen is the position after the last board move, end the record's closing
// special move (tsshogi's SpecialMoveType, "" for none) and winner "sente",
// "gote" or "" as that special move decides it for the side to move then,
// by tsshogi's own meaning of each type.
import { readFileSync } from "node:fs";
import { importCSA, importKIF, Record, Color, SpecialMoveType } from "tsshogi";

// What each closing special move says of the side to move.
const sideToMove = {
  [SpecialMoveType.RESIGN]: "loses",
  [SpecialMoveType.MATE]: "loses",
  [SpecialMoveType.TIMEOUT]: "loses",
  [SpecialMoveType.FOUL_LOSE]: "loses",
  [SpecialMoveType.LOSE_BY_DEFAULT]: "loses",
  [SpecialMoveType.FOUL_WIN]: "wins",
  [SpecialMoveType.ENTERING_OF_KING]: "wins",
  [SpecialMoveType.WIN_BY_DEFAULT]: "wins",
};

function read(format, text) {
  switch (format) {
    case "csa":
      return importCSA(text);
    case "kif":
      return importKIF(text);
    case "usi":
      return Record.newByUSI("position " + text);
  }
  return new Error("unknown format " + format);
}

// tsshogi before 2.3.2 read %+ILLEGAL_ACTION and %-ILLEGAL_ACTION the wrong
// way round (its commit 8bc0304, "Fix ILLEGAL_ACTION bug": the CSA standard
// says the named side committed the foul and loses). The registry here has
// 2.2.0 only: until the lock moves past the fix, swap its reading back.
const version = JSON.parse(
  readFileSync(new URL("./node_modules/tsshogi/package.json", import.meta.url), "utf8"),
).version.split(".").map(Number);
const illegalActionSwapped = version[0] < 2 || (version[0] === 2 && (version[1] < 3 || (version[1] === 3 && version[2] < 2)));
const swapFoul = {
  [SpecialMoveType.FOUL_WIN]: SpecialMoveType.FOUL_LOSE,
  [SpecialMoveType.FOUL_LOSE]: SpecialMoveType.FOUL_WIN,
};

const name = (c) => (c === Color.BLACK ? "sente" : "gote");

const out = JSON.parse(readFileSync(0, "utf8")).map(({ format, text }) => {
  const r = read(format, text);
  if (r instanceof Error) {
    return { error: r.message };
  }
  r.goto(Number.MAX_SAFE_INTEGER);
  const node = r.current;
  let end = "";
  let winner = "";
  let plies = node.ply;
  if (!("usi" in node.move) && "type" in node.move) {
    end = node.move.type;
    if (format === "csa" && illegalActionSwapped && /^%[+-]ILLEGAL_ACTION\s*$/m.test(text)) {
      end = swapFoul[end] ?? end;
    }
    plies--;
    const say = sideToMove[end];
    if (say === "loses") {
      winner = name(node.nextColor === Color.BLACK ? Color.WHITE : Color.BLACK);
    } else if (say === "wins") {
      winner = name(node.nextColor);
    }
  }
  return { error: "", sfen: r.position.sfen, plies, end, winner };
});
process.stdout.write(JSON.stringify(out));
