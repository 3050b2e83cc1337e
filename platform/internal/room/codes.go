package room

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/banmen/banmen/sdk"
)

// Seat codes, seat keys and room IDs: the random names the room hands out.

type seatCode struct {
	seat    sdk.Seat
	code    string
	expires time.Time
}

// codeAlphabet has no 0/O, 1/I/L: a code is read aloud or typed.
const codeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// newCode gives seat a fresh one-time code, replacing its previous one.
// Called with mu held.
func (r *Room) newCode(seat sdk.Seat) (string, time.Time) {
	now := r.m.cfg.Now()
	r.codes = slices.DeleteFunc(r.codes, func(c seatCode) bool { return c.seat == seat || !now.Before(c.expires) })
	b := make([]byte, 8)
	rand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	c := seatCode{seat: seat, code: string(b), expires: now.Add(r.m.cfg.SeatCodeTTL)}
	r.codes = append(r.codes, c)
	r.shareCode(c)
	return c.code, c.expires
}

// redeemCode uses up a valid code: a valid code is always accepted (the
// codes are too many to guess: 31^8), and only wrong ones count against
// the room, answered ErrTooManyAttempts once past the budget. The socket
// counts them per address too. Called with mu held.
func (r *Room) redeemCode(code string) (sdk.Seat, error) {
	now := r.m.cfg.Now()
	r.codeFails = slices.DeleteFunc(r.codeFails, func(t time.Time) bool { return now.Sub(t) >= r.m.cfg.SeatCodeTTL })
	code = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(code))
	seat, err := r.takeCode(code, now)
	if errors.Is(err, ErrBadCode) && len(r.codeFails) > r.m.cfg.SeatCodeAttempts {
		return -1, ErrTooManyAttempts
	}
	return seat, err
}

// takeCode uses up code if it is valid, or counts a failure.
func (r *Room) takeCode(code string, now time.Time) (sdk.Seat, error) {
	if r.m.cfg.Cluster != nil {
		return r.takeSharedCode(code, now)
	}
	found := -1
	for i, c := range r.codes {
		if subtle.ConstantTimeCompare([]byte(c.code), []byte(code)) == 1 && now.Before(c.expires) {
			found = i
		}
	}
	if found < 0 {
		r.codeFails = append(r.codeFails, now)
		return -1, ErrBadCode
	}
	seat := r.codes[found].seat
	r.codes = slices.Delete(r.codes, found, found+1)
	return seat, nil
}

// newID is a room ID: 128 random bits, URL-safe.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newKeyPair is a seat key (256 random bits) and the hash that is stored.
func newKeyPair() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	k := base64.RawURLEncoding.EncodeToString(b)
	return k, hashKey(k)
}

func hashKey(k string) []byte {
	h := sha256.Sum256([]byte(k))
	return h[:]
}

// ValidID tells whether s has the shape of a room ID (22 URL-safe base64
// characters), so junk never reaches the store.
func ValidID(s string) bool {
	if len(s) != 22 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}
