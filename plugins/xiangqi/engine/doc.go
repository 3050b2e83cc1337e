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
// for a given state and level it must answer the same move (no clock-driven
// or global randomness), unless a deadline shorter than the level's own
// budget cuts it short.
package engine
