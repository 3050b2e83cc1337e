// Package engine is the shogi computer player behind the contract's
// Suggest: an iterative-deepening principal-variation search with
// quiescence, a transposition table, killer and history move ordering, check
// extension, mate and repetition scores, and a small hand-written
// evaluation; the levels Easy, Medium and Hard on top of it; and, for Hard,
// an optional external USI engine (BANMEN_SHOGI_ENGINE) with the built-in
// search as its fallback. The analysis (sdk.Analyser) adds a mate search of
// checks, a df-pn proof-number search whose table keeps proofs by the
// attacker's smallest hand, so that futile interpositions cost little
// (mate.go).
//
// It plays through the rules package's search-facing API (DoMove,
// GenerateMoves, Hash, ...) and never judges a rule itself: every move it
// returns is one the rules generated, or an external engine's move checked
// against them. It keeps no game between calls and must never import the
// platform or another plugin; it sees only the standard library, sdk,
// sdk/extengine and the shogi rules.
package engine
