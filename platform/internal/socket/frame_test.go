package socket

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fasthttp/websocket"
)

// readFrames sends b raw from a real WebSocket server connection and reads
// n messages back with the library's client, as a browser would parse them.
func readFrames(t *testing.T, b []byte, n int) []string {
	t.Helper()
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		ws.NetConn().Write(b)
		ws.ReadMessage() // until the client closes
		ws.Close()
	}))
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.SetReadLimit(1 << 20)
	var out []string
	for range n {
		mt, m, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("frame %d: %v", len(out), err)
		}
		if mt != websocket.TextMessage {
			t.Fatalf("frame %d: type %d", len(out), mt)
		}
		out = append(out, string(m))
	}
	return out
}

func TestAppendTextFrameLengths(t *testing.T) {
	// Every length encoding and its edges.
	var buf []byte
	var want []string
	for _, n := range []int{0, 1, 125, 126, 127, 0xffff, 0x10000, 200_000} {
		m := strings.Repeat("x", n)
		want = append(want, m)
		buf = appendTextFrame(buf, []byte(m))
	}
	got := readFrames(t, buf, len(want))
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: %d bytes back, want %d", i, len(got[i]), len(want[i]))
		}
	}
}

func TestFramesTakesEverythingQueued(t *testing.T) {
	c := newConn(nil, &Handler{cfg: Config{Queue: 8}})
	for _, m := range []string{`{"type":"move"}`, `{"type":"ack"}`, `{"type":"presence"}`} {
		c.Send([]byte(m))
	}
	buf := c.frames(appendTextFrame(nil, []byte(`{"type":"first"}`)))
	if len(c.pend) != 0 {
		t.Fatalf("%d messages left in the queue", len(c.pend))
	}
	got := readFrames(t, buf, 4)
	want := []string{`{"type":"first"}`, `{"type":"move"}`, `{"type":"ack"}`, `{"type":"presence"}`}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestFramesStopsAtTheBatchLimit(t *testing.T) {
	c := newConn(nil, &Handler{cfg: Config{Queue: 8}})
	big := bytes.Repeat([]byte("y"), maxBatchBytes/2)
	for range 4 {
		c.Send(big)
	}
	buf := c.frames(appendTextFrame(nil, big))
	if len(c.pend) != 3 {
		t.Fatalf("%d messages left in the queue, want 3 (the batch stops past %d bytes)", len(c.pend), maxBatchBytes)
	}
	readFrames(t, buf, 2)
}

// TestSendAllLeavesTogether: SendAll's messages are one queue entry, framed
// as the writer frames single messages.
func TestSendAllLeavesTogether(t *testing.T) {
	c := newConn(nil, &Handler{cfg: Config{Queue: 8}})
	c.Send([]byte(`{"type":"presence"}`))
	c.SendAll([]byte(`{"type":"move"}`), []byte(`{"type":"ack"}`))
	if len(c.pend) != 2 {
		t.Fatalf("%d queue entries, want 2", len(c.pend))
	}
	buf := c.frames(nil)
	got := readFrames(t, buf, 3)
	want := []string{`{"type":"presence"}`, `{"type":"move"}`, `{"type":"ack"}`}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d = %q, want %q", i, got[i], want[i])
		}
	}
}
