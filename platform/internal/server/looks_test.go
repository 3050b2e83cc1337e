package server

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestLooks: a variant's card picture is served sanitized, as an image that
// can neither run nor fetch; its piece drawings reach clients sanitized; a
// card or drawing that fails the sanitizer is dropped, never shown.
func TestLooks(t *testing.T) {
	seats := []sdk.SeatInfo{{Name: "A", NameKey: "seat.a"}, {Name: "B", NameKey: "seat.b"}}
	games := fakeGames{ds: []sdk.Description{
		{ID: "discs", Name: "Discs", NameKey: "variant.discs", Seats: seats,
			Card: `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><!-- hi --><circle cx="100" cy="50" r="40" fill="#c00"/></svg>`,
			Pieces: []sdk.PieceKind{
				{ID: "D", Name: "disc", NameKey: "piece.discs.disc", Glyphs: []string{"●"}, Drawing: []string{`<circle r="40" fill="currentColor"/>`}},
				{ID: "E", Name: "evil", NameKey: "piece.discs.evil", Glyphs: []string{"E"}, Drawing: []string{`<circle r="40" onload="alert(1)"/>`}},
			}},
		{ID: "evil", Name: "Evil", NameKey: "variant.evil", Seats: seats, Card: `<svg><script>alert(1)</script></svg>`},
		{ID: "plain", Name: "Plain", NameKey: "variant.plain", Seats: seats},
	}}
	get := serveGames(t, games, nil)
	status, body, h := get("/api/v1/variants/discs/card.svg", "")
	if status != 200 || !strings.HasPrefix(h["Content-Type"], "image/svg+xml") || !strings.Contains(h["Content-Security-Policy"], "default-src 'none'") {
		t.Errorf("card: %d %q %q", status, h["Content-Type"], h["Content-Security-Policy"])
	}
	if want := `<svg viewBox="0 0 200 100" xmlns="http://www.w3.org/2000/svg"><circle cx="100" cy="50" r="40" fill="#c00"></circle></svg>`; body != want {
		t.Errorf("card body %q, want %q", body, want)
	}
	for _, id := range []string{"evil", "plain", "nosuch"} {
		if status, _, _ := get("/api/v1/variants/"+id+"/card.svg", ""); status != 404 {
			t.Errorf("card of %s: status %d, want 404", id, status)
		}
	}
	_, body, _ = get("/api/v1/variants/discs", "")
	if !strings.Contains(body, `"drawing":["\u003ccircle r=\"40\" fill=\"currentColor\"\u003e\u003c/circle\u003e"]`) || strings.Contains(body, "onload") || strings.Contains(body, `"card"`) {
		t.Errorf("the Description's looks: %s", body)
	}
	_, body, _ = get("/en/", "")
	if !strings.Contains(body, `<img class="game-art" src="/api/v1/variants/discs/card.svg"`) || strings.Contains(body, "variants/evil/card.svg") || strings.Contains(body, "variants/plain/card.svg") {
		t.Errorf("the home page's cards: %s", body)
	}
	_, body, _ = get("/en/discs/play", "")
	if strings.Contains(body, "onload") || strings.Contains(body, "<?xml") {
		t.Error("the board page carries an unsanitized drawing or the card")
	}
}
