package socket

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	fiberws "github.com/gofiber/contrib/websocket"
)

// TestDirectWritesKeepOrderWhenTheSocketFills: senders write their messages
// themselves until the socket is full; what does not fit goes to the
// writer first, and a client that reads late gets every message whole and
// in order. Every message is sent from the same buffer, overwritten after
// each Send: the room lends what it sends for the call only.
func TestDirectWritesKeepOrderWhenTheSocketFills(t *testing.T) {
	conns := make(chan *conn, 1)
	release := make(chan struct{})
	h := &Handler{cfg: Config{Queue: 1 << 20, PingInterval: time.Hour, WriteTimeout: time.Minute}}
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c := newConn(&fiberws.Conn{Conn: ws}, h)
		c.raw = rawConn(ws.NetConn())
		if c.raw == nil {
			t.Error("no descriptor under a TCP connection")
		}
		go c.writer()
		conns <- c
		<-release
		c.Close(CloseNormal, "")
		<-c.done
		ws.Close()
	}))
	defer srv.Close()
	dialer := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		nc, err := net.Dial(network, addr)
		if err == nil {
			nc.(*net.TCPConn).SetReadBuffer(256 << 10) // a window update needs room for a segment (64 KiB on loopback)
		}
		return nc, err
	}}
	ws, _, err := dialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c := <-conns
	pad := strings.Repeat("x", 1000)
	var lent, lent2 []byte
	scribble := func(b []byte) {
		for i := range b {
			b[i] = '#'
		}
	}
	n := 0
	for ; n < 100_000; n++ {
		lent = fmt.Appendf(lent[:0], `{"n":%d,"pad":"%s"}`, n, pad)
		if !c.Send(lent) {
			t.Fatalf("message %d refused", n)
		}
		scribble(lent)
		c.mu.Lock()
		partial := c.partial
		c.mu.Unlock()
		if partial > 0 && n%2 == 1 {
			break
		}
	}
	if c.partial == 0 {
		t.Fatalf("the socket never filled in %d messages", n)
	}
	// And a few more while the writer holds the rest, two at a time.
	for range 5 {
		lent = fmt.Appendf(lent[:0], `{"n":%d,"pad":"%s"}`, n+1, pad)
		lent2 = fmt.Appendf(lent2[:0], `{"n":%d,"pad":"%s"}`, n+2, pad)
		c.SendAll(lent, lent2)
		scribble(lent)
		scribble(lent2)
		n += 2
	}
	t.Logf("the socket filled after %d messages", n)
	close(release)
	for i := 0; i <= n; i++ {
		_, m, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if want := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, pad); string(m) != want {
			t.Fatalf("message %d = %.40q…, want %.40q…", i, m, want)
		}
	}
	if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, CloseNormal) {
		t.Fatalf("after the messages: %v, want the close frame", err)
	}
}
