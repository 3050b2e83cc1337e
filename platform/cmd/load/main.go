// Command load measures the room server: R rooms of two players over
// loopback, through the real protocol (POST /api/v1/rooms and the room
// socket), against a host it starts itself from bin/ (temporary data
// directory, SQLite) or against -base. Every move is a legal move the
// player to move received in its View, checked by the rules plugin and
// committed before it is acknowledged. It prints figures and never judges
// them; it fails only on protocol errors and on clients that do not end on
// the server's version.
//
//	go run ./platform/cmd/load -rooms 1000 -duration 20s
//
// docs/operations.md ("Load test") says what each figure means.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}
