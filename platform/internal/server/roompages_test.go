package server

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func httpGet(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

// TestRoomPages: with rooms served, the landing page's Play with a friend
// is a button (landing.js creates the room); a room's page carries its id
// and socket path (never a seat key), and its CSP lets the page reach the
// socket; an unknown room is a 404 page that offers a new one.
func TestRoomPages(t *testing.T) {
	s := newSite(t, nil)
	status, body, _ := httpGet(t, s.url+"/en/tictactoe/")
	if status != 200 || !strings.Contains(body, `class="mode mode-friend" data-variant="tictactoe" data-lang="en"`) || !strings.Contains(body, "js/landing.js") {
		t.Errorf("the landing page (%d) has no Play with a friend button:\n%s", status, body)
	}
	cr, err := s.client().CreateRoom(ctxT(t), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	status, body, h := httpGet(t, s.url+"/uk/tictactoe/room/"+cr.Room)
	if status != 200 {
		t.Fatalf("the room's page: %d\n%s", status, body)
	}
	for _, want := range []string{`"room":"` + cr.Room + `"`, `"socket":"/api/v1/rooms/` + cr.Room + `/socket"`, "js/room.js", `<html lang="uk">`, `id="invite"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the room's page lacks %q", want)
		}
	}
	if regexp.MustCompile(`<script(?: type="module")?>|\sstyle=`).MatchString(body) {
		t.Error("the room's page has an inline script or style attribute")
	}
	if strings.Contains(body, cr.SeatKey) {
		t.Error("the room's page holds the host's seat key")
	}
	host := strings.TrimPrefix(s.url, "http://")
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' ws://"+host+" wss://"+host+";") || !strings.Contains(csp, "script-src 'self';") {
		t.Errorf("the room's CSP does not allow its socket (or allows inline scripts): %s", csp)
	}
	if h.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("Referrer-Policy %q", h.Get("Referrer-Policy"))
	}
	for _, path := range []string{"/en/tictactoe/room/AAAAAAAAAAAAAAAAAAAAAA", "/en/tictactoe/room/not-an-id", "/en/tictactoe/room/" + cr.Room + "x"} {
		status, body, _ := httpGet(t, s.url+path)
		if status != 404 || !strings.Contains(body, "This room does not exist") || !strings.Contains(body, `class="button primary new-room"`) {
			t.Errorf("GET %s: %d, want the 404 page that offers a new room:\n%s", path, status, body)
		}
	}
}

// TestRoomExport: a room's record is exported by the host from the room's
// own state (the browser never holds it), in one of the variant's notations
// (tictactoe's "moves": the room's rules are the variant's own, in-process).
func TestRoomExport(t *testing.T) {
	s := newSite(t, nil)
	cr, err := s.client().CreateRoom(ctxT(t), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	post := func(room, body string) (int, map[string]any) {
		res, err := http.Post(s.url+"/api/v1/rooms/"+room+"/export", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	if status, out := post(cr.Room, `{"format": "moves"}`); status != 200 || out["version"] == nil {
		t.Errorf("export: %d %v", status, out)
	}
	if status, _ := post(cr.Room, `{}`); status != 400 {
		t.Errorf("export without a format: %d, want 400", status)
	}
	if status, out := post("AAAAAAAAAAAAAAAAAAAAAA", `{"format": "text"}`); status != 404 || !strings.Contains(jsonString(out), "room_not_found") {
		t.Errorf("export of an unknown room: %d %v", status, out)
	}
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }
