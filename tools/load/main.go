// Command load measures the room server: R rooms of two players over
// loopback, through the real protocol (POST /api/v1/rooms and the room
// socket), against a host it starts itself from bin/ (temporary data
// directory, SQLite) or against -base. Every move is a legal move the
// player to move received in its View, checked by the rules plugin and
// committed before it is acknowledged. It prints figures and never judges
// them; it fails only on protocol errors and on clients that do not end on
// the server's version. By default each room plays closed loop (its next
// move sent when the last is acknowledged); -rate offers a fixed number of
// moves per second over all rooms and also reports the round trip from
// each move's due time.
//
//	go -C tools run ./load -rooms 1000 -duration 20s
//	go -C tools run ./load -rooms 1000 -rate 10000   # paced: offered 10,000 moves/s
//	go -C tools run ./load yonin -yonin 100 -rooms 1000 -duration 30s
//	go -C tools run ./load attack -rooms 30 -duration 5s -halves 6   # alone and under floods, alternating
//
// docs/operations.md ("Load test") says what each figure means.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
)

// generatorGCPercent is the load generator's own GOGC unless the
// environment sets one. The generator shares the machine with the host it
// measures, and each of its collections took CPU from it in bursts; its
// heap (buffers and round-trip records) is a few tens of MB, so collecting
// at five times the live heap costs little memory.
const generatorGCPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(generatorGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cmd := run
	if len(os.Args) > 1 && os.Args[1] == "yonin" { // the Yonin mode (yonin.go)
		cmd, os.Args = runYonin, os.Args[1:]
	}
	if len(os.Args) > 1 && os.Args[1] == "attack" { // rooms alone, then under floods (attack.go)
		cmd, os.Args = runAttack, os.Args[1:]
	}
	if len(os.Args) > 1 && os.Args[1] == "attack-flood" { // the floods' own process (attack.go)
		if err := runFlood(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "load attack-flood:", err)
			os.Exit(1)
		}
		return
	}
	if err := cmd(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}
