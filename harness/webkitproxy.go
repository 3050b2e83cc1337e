package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// webkitProxy is the HTTP proxy a WebKit actor's browser goes through. The
// WebDriver protocol WebKitGTK speaks (classic) has no preload scripts, no
// console events and no network emulation, so the proxy does what the
// DevTools protocol and BiDi do for the other engines:
//   - it adds <script src="/__harness/preload.js"> at the top of every HTML
//     page, which runs the harness's preload (the WebSocket hook) before
//     the page's own scripts, as a script of the page's own origin (the
//     site's Content-Security-Policy allows 'self' only);
//   - it takes the console: the preload sends console calls and uncaught
//     errors to /__harness/console (a beacon of the page's own origin),
//     which never reaches the site;
//   - it cuts the network (offline): requests fail as on a dead network,
//     and open WebSockets are closed;
//   - it notes the HTTP status of each page loaded.
//
// A path under /__harness/ of any site is the proxy's own.
type webkitProxy struct {
	ln      net.Listener
	srv     *http.Server
	preload string
	console func(consoleEntry)
	fwd     *http.Transport

	mu      sync.Mutex
	offline bool
	tunnels map[net.Conn]bool
	status  int // of the last page (document) loaded
	scripts map[string]string
	next    int
}

// webkitConsoleHook runs first in every page: it sends each console call
// and uncaught error to the proxy, which hands them to the harness.
const webkitConsoleHook = `(() => {
  if (window.__harnessConsole) return;
  window.__harnessConsole = true;
  const send = (e) => { try { navigator.sendBeacon('/__harness/console', JSON.stringify(e)); } catch (err) {} };
  for (const kind of ['log', 'info', 'warn', 'error', 'debug']) {
    const orig = console[kind];
    console[kind] = function (...args) {
      send({kind, text: args.map((a) => { try { return typeof a === 'string' ? a : (a instanceof Error ? String(a) : JSON.stringify(a)); } catch (err) { return String(a); } }).join(' '), jsError: kind === 'error', t: Date.now()});
      return orig.apply(this, args);
    };
  }
  addEventListener('error', (e) => send({kind: 'exception', text: 'Uncaught ' + (e.error ? String(e.error) : e.message), url: e.filename || '', line: e.lineno || 0, jsError: true, t: Date.now()}));
  addEventListener('unhandledrejection', (e) => send({kind: 'exception', text: 'Uncaught (in promise) ' + String(e.reason), jsError: true, t: Date.now()}));
})();
`

func startWebkitProxy(preload string, console func(consoleEntry)) (*webkitProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &webkitProxy{ln: ln, preload: webkitConsoleHook + preload, console: console,
		tunnels: map[net.Conn]bool{}, scripts: map[string]string{},
		// The site's responses are read as they are (no compression
		// asked), so that a page can be given the preload.
		// A connection each: a kept-alive one the site has just closed
		// fails a move's POST, which cannot be sent again.
		fwd: &http.Transport{Proxy: nil, DisableCompression: true, DisableKeepAlives: true}}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *webkitProxy) addr() string { return p.ln.Addr().String() }

func (p *webkitProxy) close() {
	p.srv.Close()
	p.setOffline(true) // closes the tunnels
	p.fwd.CloseIdleConnections()
}

// setOffline cuts the network (every open connection closed, new ones
// failing) or gives it back.
func (p *webkitProxy) setOffline(off bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.offline = off
	if off {
		for c := range p.tunnels {
			c.Close()
		}
		p.tunnels = map[net.Conn]bool{}
		p.fwd.CloseIdleConnections()
	}
}

func (p *webkitProxy) isOffline() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.offline
}

// lastStatus is the status of the last page loaded; resetStatus forgets it.
func (p *webkitProxy) lastStatus() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

func (p *webkitProxy) resetStatus() {
	p.mu.Lock()
	p.status = 0
	p.mu.Unlock()
}

// addScript serves code as a script of the page's own origin and returns
// its path.
func (p *webkitProxy) addScript(code string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	name := fmt.Sprintf("/__harness/run/%d.js", p.next)
	p.scripts[name] = code
	return name
}

func (p *webkitProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/__harness/") {
		p.own(w, r)
		return
	}
	if p.isOffline() {
		dead(w)
		return
	}
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r, r.Host, nil)
	case strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
		host := r.URL.Host
		if !strings.Contains(host, ":") {
			host += ":80"
		}
		// The handshake is sent on as it came, in origin form.
		var head bytes.Buffer
		r.RequestURI = ""
		r.URL.Scheme, r.URL.Host = "", ""
		if err := r.Write(&head); err != nil {
			dead(w)
			return
		}
		p.tunnel(w, r, host, head.Bytes())
	case !r.URL.IsAbs():
		http.Error(w, "a proxy: ask for an absolute URL", http.StatusBadRequest)
	default:
		p.forward(w, r)
	}
}

// dead answers as a dead network does: the connection closes unanswered.
func dead(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	http.Error(w, "offline", http.StatusBadGateway)
}

// own answers the proxy's own paths: the preload, the console beacons, the
// scripts of script steps.
func (p *webkitProxy) own(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/__harness/preload.js":
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, p.preload)
	case r.URL.Path == "/__harness/console":
		var e struct {
			Kind    string  `json:"kind"`
			Text    string  `json:"text"`
			URL     string  `json:"url"`
			Line    int     `json:"line"`
			JSError bool    `json:"jsError"`
			T       float64 `json:"t"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&e); err == nil && p.console != nil {
			p.console(consoleEntry{page: 1, time: time.UnixMilli(int64(e.T)), kind: e.Kind, text: e.Text, url: e.URL, line: e.Line, jsError: e.JSError})
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		p.mu.Lock()
		code, ok := p.scripts[r.URL.Path]
		p.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, code)
	}
}

// tunnel joins the browser's connection with one to host: a CONNECT, or a
// WebSocket whose handshake (head) is sent first.
func (p *webkitProxy) tunnel(w http.ResponseWriter, r *http.Request, host string, head []byte) {
	up, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if head == nil {
		io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n")
	} else if _, err := up.Write(head); err != nil {
		up.Close()
		down.Close()
		return
	}
	p.mu.Lock()
	if p.offline {
		p.mu.Unlock()
		up.Close()
		down.Close()
		return
	}
	p.tunnels[up], p.tunnels[down] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { copyBuffered(up, rw.Reader); done <- struct{}{} }()
	go func() { io.Copy(down, up); done <- struct{}{} }()
	<-done
	up.Close()
	down.Close()
	<-done
	p.mu.Lock()
	delete(p.tunnels, up)
	delete(p.tunnels, down)
	p.mu.Unlock()
}

// copyBuffered copies what the browser sent, the bytes already buffered
// first.
func copyBuffered(dst io.Writer, src *bufio.Reader) { io.Copy(dst, src) }

var headTag = regexp.MustCompile(`(?i)<head(\s[^>]*)?>`)

// forward sends a request on to the site, and gives an HTML page the
// preload.
func (p *webkitProxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Accept-Encoding")
	res, err := p.fwd.RoundTrip(out)
	if err != nil {
		dead(w)
		return
	}
	defer res.Body.Close()
	if r.Header.Get("Sec-Fetch-Dest") == "document" || (r.Method == http.MethodGet && strings.HasPrefix(r.Header.Get("Accept"), "text/html")) {
		p.mu.Lock()
		p.status = res.StatusCode
		p.mu.Unlock()
	}
	for k, vs := range res.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	// The answer is read whole before any of it is sent on: streamed, a
	// long game's answers came to the page cut short now and then (a
	// move's JSON ending mid-way).
	body, err := io.ReadAll(res.Body)
	if err != nil {
		dead(w)
		return
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		w.WriteHeader(res.StatusCode)
		w.Write(body)
		return
	}
	tag := []byte(`<script src="/__harness/preload.js"></script>`)
	if loc := headTag.FindIndex(body); loc != nil {
		body = append(body[:loc[1]:loc[1]], append(tag, body[loc[1]:]...)...)
	} else {
		body = append(tag, body...)
	}
	w.Header().Del("Content-Length")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(res.StatusCode)
	w.Write(body)
}
