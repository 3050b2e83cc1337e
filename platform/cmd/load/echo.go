package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
)

// echoRate is the reference figure: n loopback WebSocket connections, each
// sending a move-sized message and waiting for its echo, for d; server and
// clients in this process, no JSON, no rules, no store. It tells how fast
// this machine is at the bare transport, so the room figures can be
// compared across machines.
func echoRate(ctx context.Context, n int, d time.Duration) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	up := websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			mt, b, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if ws.WriteMessage(mt, b) != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "ws://" + ln.Addr().String() + "/"
	conns := make([]*websocket.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, _, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
		if err != nil {
			return 0, err
		}
		conns = append(conns, c)
	}
	msg := []byte(`{"type":"move","id":"1a2b","version":123,"move":"7g7f"}`)
	var count atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(d)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(end.Add(10 * time.Second))
			for time.Now().Before(end) {
				if c.WriteMessage(websocket.TextMessage, msg) != nil {
					return
				}
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds(), nil
}
