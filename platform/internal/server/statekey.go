package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"

	"github.com/banmen/banmen/sdk"
	"github.com/gofiber/fiber/v2"
)

// The stateless game API hands its States to clients, which send them back.
// A State the plugin has to replay costs a replay of every move in it, so
// the host signs every State it hands out (HMAC-SHA256 with the host's, or
// the cluster's, state key) and refuses, with a 400 and before any plugin
// call, a State it did not sign. The plugins' contract is unchanged: they
// see the State without its tag. Room States never leave the host.

// stateTagLen is the bytes of the tag appended to every State handed out.
const stateTagLen = sha256.Size

// stateSigner signs and checks the States of the stateless API.
type stateSigner struct{ key []byte }

// newStateSigner signs with key; an empty key is a random one (a host
// whose tests build it directly).
func newStateSigner(key []byte) stateSigner {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return stateSigner{key: key}
}

func (s stateSigner) tag(variant string, st []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(variant))
	m.Write([]byte{0})
	m.Write(st)
	return m.Sum(nil)
}

// seal is st with its tag, for a client.
func (s stateSigner) seal(variant string, st sdk.State) sdk.State {
	if len(st) == 0 {
		return st
	}
	out := make(sdk.State, 0, len(st)+stateTagLen)
	out = append(out, st...)
	return append(out, s.tag(variant, st)...)
}

// open checks a State a client sent and returns it without its tag, or the
// 400 that refuses it.
func (s stateSigner) open(variant string, st sdk.State) (sdk.State, error) {
	if len(st) <= stateTagLen {
		return nil, errNotIssued
	}
	body, tag := st[:len(st)-stateTagLen], st[len(st)-stateTagLen:]
	if !hmac.Equal(tag, s.tag(variant, body)) {
		return nil, errNotIssued
	}
	return body, nil
}

var errNotIssued = &apiError{fiber.StatusBadRequest, "state_not_issued",
	"this game state was not issued by this site (or by another game, or before its key changed); start or import the game again"}
