// Package store keeps online rooms durable: a room's settings, the hashes of
// its seat keys, and the log of its confirmed actions. The log is the truth
// of a room; everything else the host holds about a room is rebuilt from it.
//
// Implementations arbitrate concurrent writers in the database itself: an
// action names the room version it creates, and a second action for the same
// version is a conflict, never applied twice. An append is durable before it
// returns.
//
// The package must never know a game rule or hold a seat key: it stores only
// hashes, and moves as the opaque text the rules plugin accepted.
package store

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned for a room that does not exist (or was purged).
var ErrNotFound = errors.New("room not found")

// ErrConflict is returned when an action's version is not the room's next
// version: another action got there first, or the action is a duplicate.
var ErrConflict = errors.New("room version conflict")

// ErrExists is returned when a room ID is already taken.
var ErrExists = errors.New("room already exists")

// Room is a room's fixed settings and where its log stands.
type Room struct {
	ID      string
	Variant string
	// Options are the rules options the room was created with.
	Options map[string]string
	// Seats is the number of seats (len of the variant's Description.Seats).
	Seats int
	// RulesVersion is the variant's rules version when the room was
	// created; empty when the variant did not declare one.
	RulesVersion string
	Created      time.Time
	// Touched is the time of the last action (or the creation).
	Touched time.Time
	// Version is the number of confirmed actions in the log.
	Version int64
}

// SeatKey is the hash of the key that holds a seat.
type SeatKey struct {
	Seat int
	Hash []byte
}

// Action is one confirmed entry of a room's log.
type Action struct {
	Room string
	// Version is the room version this action creates: the previous
	// version plus one. The first action of a room has version 1.
	Version int64
	// Kind says what happened ("move", "claim", ...): the room engine's
	// vocabulary, stored as given.
	Kind string
	Seat int
	// Move is the move text for moves, empty otherwise.
	Move string
	At   time.Time
	// KeyHash, when set, becomes the seat's key hash in the same
	// transaction (a seat claimed or moved to another device). It is not
	// part of the log and never read back with the actions.
	KeyHash []byte
}

// Store is a durable home for rooms. Every method is safe for concurrent use.
type Store interface {
	// CreateRoom stores a new room at version 0 with seat 0 held by
	// hostKeyHash. A taken ID is ErrExists.
	CreateRoom(ctx context.Context, r Room, hostKeyHash []byte) error
	// Room returns a room's settings, touch time and version.
	Room(ctx context.Context, id string) (Room, error)
	// SeatKeys returns the key hashes of the seats that are held.
	SeatKeys(ctx context.Context, id string) ([]SeatKey, error)
	// Actions returns the room's actions with versions above after, in
	// order.
	Actions(ctx context.Context, id string, after int64) ([]Action, error)
	// Append commits one action: a.Version must be the room's version plus
	// one, else ErrConflict and nothing changes; an unknown room is
	// ErrNotFound. It sets the room's touch time to a.At and, when
	// a.KeyHash is set, the seat's key hash. It returns once the action is
	// durable.
	Append(ctx context.Context, a Action) error
	// Touch sets a room's touch time.
	Touch(ctx context.Context, id string, at time.Time) error
	// Purge deletes every room last touched before cutoff, with its seats
	// and log, and returns their IDs. Running it twice is harmless.
	Purge(ctx context.Context, cutoff time.Time) ([]string, error)
	// Close releases the store; pending appends finish first.
	Close() error
}
