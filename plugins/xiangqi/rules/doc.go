// Package rules is the complete, pure rule set of Xiangqi (Chinese chess) for
// Banmen: the position and its fast move generator (palace, flying general,
// elephant eye and river, horse leg, cannon screens, soldiers), perft, the
// game record with repetition and the 60-move rule, the FEN, UCCI and WXF
// notations, and the sdk.Variant that exposes them. It has no computer
// player: package engine adds Suggest and the levels.
//
// The package keeps no game between calls: everything travels in the sdk.State
// bytes, which are treated as hostile input. It must never import the
// platform or another plugin, never panic on bad input, and never hold global
// mutable state.
package rules
