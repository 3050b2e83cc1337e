// Package engine is the Xiangqi computer player behind the plugin's Suggest:
// an iterative-deepening PVS alpha-beta search with quiescence, a Zobrist
// transposition table, move ordering (table move, MVV-LVA, killers,
// history), check extension, null-move pruning and late-move reductions,
// over a material and piece-square evaluation; the levels Easy, Medium and
// Hard; and, for Hard, an optional external UCCI engine.
//
// It must never judge a game: legality, repetition and results belong to
// package rules, whose Game says what a move would end. The search only
// scores such outcomes. It must never block past the caller's deadline, and
// it must never use clock-driven or global randomness: budgets are depths
// and node counts, Easy's chance comes from the position's hash, so the same
// state and level give the same move unless time runs out first (a deadline
// shorter than the level needs, or Hard's 1.8 s cap on a slow or busy
// machine).
//
// The plugin's environment may name an external engine for Hard
// (BANMEN_XIANGQI_ENGINE, BANMEN_XIANGQI_ENGINE_MOVETIME; see config.go).
package engine
