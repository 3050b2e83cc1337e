package main

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

// TestAppendRequestIsJSONMarshal: the requests the seats write are the
// bytes json.Marshal makes of the client's RoomRequest, for every byte a
// move could hold.
func TestAppendRequestIsJSONMarshal(t *testing.T) {
	moves := []string{"", "7g7f", "P*5e", "8h2b+", `a"b`, `a\b`, "<&>", "日本", "\xff", "\u2028"}
	for c := range 256 {
		moves = append(moves, "x"+string(rune(c)), "y"+string([]byte{byte(c)}))
	}
	for i, m := range moves {
		for _, typ := range []string{"move", "resign", "newRound", "accept"} {
			v := int64(i * 1000)
			id := int64(i*7 + 1)
			got, lo, hi := appendRequest(nil, typ, id, v, []byte(m))
			want, _ := json.Marshal(client.RoomRequest{Type: typ, ID: strconv.FormatInt(id, 36), Version: &v, Move: sdk.Move(m)})
			if string(got) != string(want) || string(got[lo:hi]) != strconv.FormatInt(id, 36) {
				t.Errorf("%q: %s, want %s (id %q)", m, got, want, got[lo:hi])
			}
		}
	}
}
