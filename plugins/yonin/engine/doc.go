// Package engine is the Yonin Shogi computer player behind the plugin's
// Suggest, and its levels Easy, Medium and Hard. Easy and Medium run a
// shallow paranoid search (the seat to move maximises its own score, every
// other seat minimises it); Hard runs a best-reply search (brs.go): the
// root's moves alternate with the single reply, among all the opponents'
// moves, that is worst for the root, each opponent moving as if it were its
// turn, so that the root sees several of its own moves ahead. Both use
// iterative deepening, alpha-beta, a transposition table, capture
// quiescence, late-move reductions and check extensions, over an evaluation
// of mates made, material on the board and in hand, king safety and
// pressure on enemy kings.
//
// Who moves after a move is always what package rules says (check priority
// skips seats, mates hand pieces over and pass the turn on): the search
// plays moves on rules.Position and never assumes plain rotation. The
// best-reply search only chooses which seat moves when no seat is in check
// (rules.Position.SetTurn); a seat in check always answers first.
//
// It must never judge a game: legality, mates, repetition and places belong
// to package rules; the search only scores their outcomes. It must never block
// past the caller's deadline, and it must never use clock-driven or global
// randomness: budgets are depths and node counts, and Easy's and Medium's
// variety comes from the position's hash, so the same state and level give
// the same move unless time runs out first (a deadline shorter than the level
// needs, or Hard's time cap on a slow or busy machine).
package engine
