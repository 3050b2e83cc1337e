package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// An engine starts browsers of one kind: Chromium through the DevTools
// protocol (chromedp), Firefox through WebDriver BiDi, WebKit (WebKitGTK)
// through WebDriver classic. Everything the
// harness does to a page goes through the engine's instance and pages, so a
// scenario runs unchanged in either.
type engine interface {
	// start launches a browser for one actor: a fresh profile, headless,
	// the device emulated in every page it opens, preload run in every
	// document before the page's own scripts, and every console entry and
	// uncaught exception given to console. Its first page is open.
	start(ctx context.Context, o startOptions) (instance, error)
	// prepare takes, from the run's Browsers, the browser process start
	// will use (starting it when none is kept), so that the scenario's
	// time does not count a browser's start: that has its own limit.
	prepare(ctx context.Context, o startOptions) error
}

type startOptions struct {
	actor   string
	exe     string // the browser binary
	dev     Device
	preload string
	console func(consoleEntry)
	// headed shows the browser on the display ($DISPLAY) rather than
	// headless.
	headed bool
	// debugPort asks for a debugging endpoint a person can attach to
	// (-pause-on-failure): Chromium's DevTools on a port of its own.
	debugPort bool
	// startLimit bounds the browser's start (scaled by the run's
	// TimeoutScale).
	startLimit time.Duration
	// share is the scenario's: the browser processes it took from the
	// run's Browsers (one Chromium and one Firefox for every actor, a
	// WebKitWebDriver each).
	share *share
}

// consoleEntry is one line of a page's console, or an uncaught exception.
type consoleEntry struct {
	page int // the tab, from 1
	time time.Time
	kind string // "log", "error", "exception", ...
	text string
	url  string
	line int // from 1, 0 unknown
	// jsError is set for what fails a scenario: an uncaught exception, or a
	// console.error call of the page itself (not the browser's own log of a
	// failed request).
	jsError bool
}

func (c consoleEntry) String() string {
	s := fmt.Sprintf("%s tab%d %s %s", c.time.Format("15:04:05.000"), c.page, c.kind, c.text)
	if c.url != "" {
		s += fmt.Sprintf(" (%s:%d)", c.url, c.line)
	}
	return s
}

// instance is one running browser (one actor's).
type instance interface {
	// first is the page the browser opened with.
	first() page
	// newPage opens another tab, sharing the profile (its storage).
	newPage(ctx context.Context, n int) (page, error)
	// attach says how a person can attach to the running browser, for
	// -pause-on-failure.
	attach() string
	close()
}

// page is one tab. Coordinates are CSS pixels of the viewport.
type page interface {
	// navigate loads url and waits for its load event; status is the HTTP
	// status of the document (0 when the engine cannot tell).
	navigate(ctx context.Context, url string) (status int, err error)
	reload(ctx context.Context) error
	// eval evaluates an expression and returns its value as JSON.
	eval(ctx context.Context, js string) (json.RawMessage, error)
	// exec evaluates an expression, awaits it if it is a promise, and
	// drops its value.
	exec(ctx context.Context, js string) error
	click(ctx context.Context, x, y float64) error
	tap(ctx context.Context, x, y float64) error
	// drag presses at the first point, moves through the others and
	// releases at the last, with the mouse or one finger.
	drag(ctx context.Context, touch bool, path []point) error
	// key presses and releases a key: "Enter", "Tab", "ArrowUp",
	// "ArrowDown", "ArrowLeft", "ArrowRight"; shift holds Shift.
	key(ctx context.Context, key string, shift bool) error
	// setOffline cuts or restores the page's network: requests fail and
	// navigator.onLine follows.
	setOffline(ctx context.Context, off bool) error
	// screenshot is a PNG of the whole page, beyond the viewport.
	screenshot(ctx context.Context) ([]byte, error)
	close()
}

// Engines are the browser engines a run or an actor may name.
var engines = map[string]engine{
	"chromium": chromeEngine{},
	"firefox":  firefoxEngine{},
	"webkit":   webkitEngine{},
}

// EngineNames lists the browser engines a run or an actor may name.
func EngineNames() []string { return []string{"chromium", "firefox", "webkit"} }
