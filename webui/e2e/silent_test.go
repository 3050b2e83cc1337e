package e2e

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/banmen/banmen/configs"
	"github.com/banmen/banmen/platform/hosttest"
)

// frozenProxy forwards TCP to a target until frozen: then nothing passes
// either way and nothing is closed, as on a network that went silent.
type frozenProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	frozen bool
	thaw   chan struct{}
}

func newFrozenProxy(t *testing.T, target string) *frozenProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &frozenProxy{ln: ln, target: target, thaw: make(chan struct{})}
	close(p.thaw)
	var conns []net.Conn
	var cmu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		p.Thaw()
		cmu.Lock()
		for _, c := range conns {
			c.Close()
		}
		cmu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			cmu.Lock()
			conns = append(conns, c, u)
			cmu.Unlock()
			go p.pipe(u, c)
			go p.pipe(c, u)
		}
	}()
	return p
}

// pipe copies src to dst, holding every chunk while the proxy is frozen.
func (p *frozenProxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			thaw := p.thaw
			p.mu.Unlock()
			<-thaw
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *frozenProxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen {
		p.frozen, p.thaw = true, make(chan struct{})
	}
}

func (p *frozenProxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen {
		p.frozen = false
		close(p.thaw)
	}
}

func (p *frozenProxy) URL() string { return "http://" + p.ln.Addr().String() }

// TestSilentNetwork: the guest's network goes silent (a proxy that stops
// forwarding and closes nothing). Within about two of the server's ping
// intervals (2 s here) the guest's page says in its main status that the
// connection is lost and that its move (made meanwhile) is not sent yet;
// when the network comes back it reconnects and the move is played.
func TestSilentNetwork(t *testing.T) {
	bin := os.Getenv("BANMEN_BIN")
	if bin == "" {
		t.Skip("needs BANMEN_BIN (make build)") // building the host here takes minutes
	}
	conf := strings.Replace(string(configs.Default), "ping_interval: 20s", "ping_interval: 2s", 1)
	if conf == string(configs.Default) {
		t.Fatal("configs/default.yaml has no ping_interval: 20s to change")
	}
	path := filepath.Join(t.TempDir(), "fast-pings.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := hosttest.StartWith(context.Background(), bin, "-config", path)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	proxy := newFrozenProxy(t, strings.TrimPrefix(srv.URL, "http://"))

	host := person(t, 1366, 900)
	do(t, host, chromedp.Navigate(srv.URL+"/en/shogi/"))
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	waitNavigated(t, host, `location.pathname.startsWith('/en/shogi/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	path = eval[string](t, host, `location.pathname`)
	w, h, opts := phone()
	guest := person(t, w, h, opts...)
	openRoom(t, guest, proxy.URL()+path)
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected'`)
	roomMove(t, host, shogiCell("7g"), shogiCell("7f"))
	waitPly(t, guest, 1)

	proxy.Freeze()
	clickSquares(t, guest, shogiCell("3c"), shogiCell("3d"))
	wait(t, guest, `document.body.dataset.pending === 'true'`)
	wait(t, guest, `document.querySelector('#status .status-line')?.dataset.key === 'room.conn.lostPending' && document.body.dataset.conn !== 'open'`)
	if s := statusText(guest); !strings.Contains(s, "Connection lost — your move is not sent yet") {
		t.Errorf("the guest's status says %q", s)
	}
	proxy.Thaw()
	wait(t, guest, `document.body.dataset.conn === 'open' && document.body.dataset.pending === 'false' && document.body.dataset.ply === '2'`)
	waitPly(t, host, 2)
}
