// Package rules is Yonin Shogi, the four-player shogi of Banmen, behind the
// sdk game contract: the board and its pieces with their owners and facings,
// the move generator, check priority, mates and their credit, the endings
// with places, the position and move notations, the game record and perft.
// It has no computer player: package engine adds Suggest and the levels.
//
// The package is pure: it keeps no game between calls, every game travels in
// the sdk.State bytes, and those bytes are validated as hostile input. It must
// never import the platform or another plugin, never panic on input, and never
// depend on anything but the standard library and the sdk package.
package rules
