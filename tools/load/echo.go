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

// echoFigures are what one run of the reference measured: echoed
// messages a second, and this process's CPU (both ends of every socket)
// per message.
type echoFigures struct {
	rate float64
	cpu  time.Duration
}

// echo is the reference figure: n loopback WebSocket connections, each
// sending a move-sized message and waiting for its echo, for d; server and
// clients in this process, no JSON, no rules, no store. It tells how fast
// this machine is at the bare transport, so the room figures can be
// compared across machines, and, run before and after the rooms play,
// whether the machine's speed changed meanwhile (a VM's does by a tenth
// or more within minutes).
func echo(ctx context.Context, n int, d time.Duration) (echoFigures, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return echoFigures{}, err
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
			return echoFigures{}, err
		}
		conns = append(conns, c)
	}
	msg := []byte(`{"type":"move","id":"1a2b","version":123,"move":"7g7f"}`)
	var count atomic.Int64
	var wg sync.WaitGroup
	cpu0 := selfCPU()
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
	elapsed, cpu := time.Since(start), selfCPU()-cpu0
	msgs := count.Load()
	return echoFigures{rate: float64(msgs) / elapsed.Seconds(), cpu: cpu / time.Duration(max(msgs, 1))}, nil
}
