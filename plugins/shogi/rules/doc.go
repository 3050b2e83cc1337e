// Package rules is the game of shogi behind the Banmen contract: the position
// and its fast move generator, SFEN, USI, KIF and CSA notation, the game
// record with every end-of-game rule, and the search-facing API (search.go)
// through which the engine package plays. It has no computer player: the
// plugin serves the engine's Variant, which adds Suggest and the levels.
//
// The package is pure: it keeps no game between calls, treats every State and
// every text as hostile input, and never panics on it. It must never import
// the platform or another plugin; it sees only the standard library and sdk.
package rules
