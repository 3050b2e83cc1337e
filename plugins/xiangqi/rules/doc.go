// Package rules is the complete, pure rule set of Xiangqi (Chinese chess) for
// Banmen: the position and its fast move generator (palace, flying general,
// elephant eye and river, horse leg, cannon screens, soldiers), perft, the
// game record with repetition and the 60-move rule, the FEN, UCCI and WXF
// notations, a modest computer player, and the sdk.Variant that exposes them.
//
// The package keeps no game between calls: everything travels in the sdk.State
// bytes, which are treated as hostile input. It must never import the
// platform or another plugin, never panic on bad input, and never hold global
// mutable state.
package rules
