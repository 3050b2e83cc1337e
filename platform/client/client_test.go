package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

// fake answers like the host does, so the test pins the wire shapes the
// client relies on (docs/protocol.md) without starting plugins.
func fake(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/variants", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode([]sdk.Description{{ID: "tictactoe", Name: "Tic-tac-toe"}})
	})
	mux.HandleFunc("POST /api/v1/games/{variant}/{call}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("variant") != "tictactoe" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"unknown_variant","message":"no such variant"}}`)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("%s: bad body: %v", r.URL.Path, err)
		}
		switch r.PathValue("call") {
		case "start", "view", "import":
			json.NewEncoder(w).Encode(client.Game{State: sdk.State("s0"), View: sdk.View{Status: sdk.Playing, ToMove: []sdk.Seat{0}}})
		case "play":
			if body["state"] != "czA=" || body["seat"] != 0.0 {
				t.Errorf("play body %v: want the state base64 and seat 0", body)
			}
			if body["move"] != "a1" {
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, `{"error":{"code":"illegal_move","key":"error.illegal_move","message":"zz is not a legal move here"}}`)
				return
			}
			json.NewEncoder(w).Encode(client.Game{State: sdk.State("s1"), View: sdk.View{Ply: 1}})
		case "export":
			json.NewEncoder(w).Encode(map[string]string{"text": "a1"})
		case "suggest":
			if body["thinkMillis"] != 250.0 || body["seat"] != 1.0 {
				t.Errorf("suggest body %v: want thinkMillis 250 and seat 1", body)
			}
			json.NewEncoder(w).Encode(map[string]string{"move": "b2"})
		}
	})
	mux.HandleFunc("POST /api/v1/rooms/{room}/export", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["format"] != "moves" {
			t.Errorf("room export body %v (%v): want the format", body, err)
		}
		if r.PathValue("room") != "abc" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"room_not_found","message":"no such room (unknown or expired)"}}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"text": "a1 b2", "version": 7})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<html>bad gateway</html>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestClient(t *testing.T) {
	srv := fake(t)
	c := client.New(srv.URL+"/", nil)
	ctx := context.Background()

	vs, err := c.Variants(ctx)
	if err != nil || len(vs) != 1 || vs[0].ID != "tictactoe" {
		t.Fatalf("Variants = %v, %v", vs, err)
	}
	g, err := c.Start(ctx, "tictactoe", nil)
	if err != nil || string(g.State) != "s0" || g.View.Status != sdk.Playing {
		t.Fatalf("Start = %+v, %v", g, err)
	}
	g, err = c.Play(ctx, "tictactoe", g.State, 0, "a1")
	if err != nil || g.View.Ply != 1 {
		t.Fatalf("Play = %+v, %v", g, err)
	}
	if txt, err := c.Export(ctx, "tictactoe", g.State, "moves"); err != nil || txt != "a1" {
		t.Fatalf("Export = %q, %v", txt, err)
	}
	if m, err := c.Suggest(ctx, "tictactoe", g.State, 1, sdk.Easy, 250*time.Millisecond); err != nil || m != "b2" {
		t.Fatalf("Suggest = %q, %v", m, err)
	}
	if _, err := c.View(ctx, "tictactoe", g.State); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(ctx, "tictactoe", "moves", "a1"); err != nil {
		t.Fatal(err)
	}
	if txt, v, err := c.ExportRoom(ctx, "abc", "moves"); err != nil || txt != "a1 b2" || v != 7 {
		t.Fatalf("ExportRoom = %q, %d, %v", txt, v, err)
	}
	if _, _, err := c.ExportRoom(ctx, "nope", "moves"); !client.IsCode(err, "room_not_found") {
		t.Errorf("ExportRoom of no room: %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	srv := fake(t)
	c := client.New(srv.URL, nil)
	ctx := context.Background()

	_, err := c.Play(ctx, "tictactoe", sdk.State("s0"), 0, "zz")
	e, ok := client.AsError(err)
	if !ok || e.Status != 422 || e.Code != sdk.CodeIllegalMove || e.Key != "error.illegal_move" {
		t.Fatalf("illegal move: %#v", err)
	}
	if !client.IsCode(err, sdk.CodeIllegalMove) {
		t.Error("IsCode(illegal_move) = false")
	}
	if _, err := c.Start(ctx, "chess", nil); !client.IsCode(err, "unknown_variant") {
		t.Errorf("unknown variant: %v", err)
	}
	_, err = c.Variant(ctx, "tictactoe")
	e, ok = client.AsError(err)
	if !ok || e.Status != 503 || e.Code != "http_503" || e.RetryAfter != 3*time.Second {
		t.Errorf("a page that is not the API's: %#v", err)
	}
}
