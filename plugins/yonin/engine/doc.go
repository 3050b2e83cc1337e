// Package engine is the Yonin Shogi computer player behind the plugin's
// Suggest: a paranoid search (the seat to move maximises its own score, every
// other seat minimises it) with iterative deepening, alpha-beta, a
// transposition table, capture quiescence and late-move reductions, over an
// evaluation of mates made, material on the board and in hand, and king
// safety; and the levels Easy, Medium and Hard.
//
// Who moves after a move is always what package rules says (check priority
// skips seats, mates hand pieces over and pass the turn on): the search
// plays moves on rules.Position and never assumes plain rotation.
//
// It must never judge a game: legality, mates, repetition and places belong
// to package rules; the search only scores their outcomes. It must never block
// past the caller's deadline, and it must never use clock-driven or global
// randomness: budgets are depths and node counts, and Easy's and Medium's
// variety comes from the position's hash, so the same state and level give
// the same move unless time runs out first (a deadline shorter than the level
// needs, or Hard's time cap on a slow or busy machine).
package engine
