// Package rules is the game of shogi behind the Banmen contract: the position
// and its fast move generator, SFEN, USI, KIF and CSA notation, the game
// record with every end-of-game rule, a modest computer player, and the
// search-facing API (search.go) through which the engine package plays: the
// plugin serves the engine's Variant, whose Suggest replaces the modest one.
//
// The package is pure: it keeps no game between calls, treats every State and
// every text as hostile input, and never panics on it. It must never import
// the platform or another plugin; it sees only the standard library and sdk.
package rules
