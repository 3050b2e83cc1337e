package webdriver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		value  string
		code   string
		bad    bool
	}{
		{200, `{"value": null}`, "null", "", false},
		{200, `{"value": {"sessionId": "x"}}`, `{"sessionId": "x"}`, "", false},
		{404, `{"value": {"error": "no such window", "message": "gone", "stacktrace": ""}}`, "", "no such window", false},
		{500, `{"value": {"error": "javascript error", "message": "boom"}}`, "", "javascript error", false},
		{500, `{"value": {}}`, "", "", true},
		{200, `{}`, "", "", true},
		{200, `[1]`, "", "", true},
		{200, `not json`, "", "", true},
	} {
		v, err := Decode(tc.status, []byte(tc.body))
		var we *Error
		switch {
		case tc.bad:
			if err == nil || errors.As(err, &we) {
				t.Errorf("%d %s: got %s, %v; want a decoding error", tc.status, tc.body, v, err)
			}
		case tc.code != "":
			if !errors.As(err, &we) || we.Code != tc.code || we.Status != tc.status {
				t.Errorf("%d %s: got %v, want the error %q", tc.status, tc.body, err, tc.code)
			}
		default:
			if err != nil || string(v) != tc.value {
				t.Errorf("%d %s: got %s, %v", tc.status, tc.body, v, err)
			}
		}
	}
}

// FuzzDecode: no answer, however malformed, panics the decoder; a success
// is valid JSON; a failure is an *Error with a code, or a decoding error.
func FuzzDecode(f *testing.F) {
	f.Add(200, []byte(`{"value": {"sessionId": "abc", "capabilities": {}}}`))
	f.Add(500, []byte(`{"value": {"error": "javascript error", "message": "x"}}`))
	f.Add(404, []byte(`{"value": null}`))
	f.Add(200, []byte(`{"value": "iVBORw0KGgo="}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		v, err := Decode(status, body)
		if err == nil {
			if !json.Valid(v) {
				t.Fatalf("a success whose value is not JSON: %q", v)
			}
			if status < 200 || status >= 300 {
				t.Fatalf("HTTP %d decoded as a success", status)
			}
			return
		}
		var we *Error
		if errors.As(err, &we) && we.Code == "" {
			t.Fatalf("an error with no code: %+v", we)
		}
	})
}

func TestSession(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/session":
			w.Write([]byte(`{"value": {"sessionId": "s1", "capabilities": {"browserName": "MiniBrowser"}}}`))
		case "/session/s1/url":
			var b struct{ URL string }
			json.NewDecoder(r.Body).Decode(&b)
			if b.URL != "http://x/" {
				w.WriteHeader(400)
				w.Write([]byte(`{"value": {"error": "invalid argument", "message": "url"}}`))
				return
			}
			w.Write([]byte(`{"value": null}`))
		default:
			w.WriteHeader(404)
			w.Write([]byte(`{"value": {"error": "unknown command", "message": "` + r.URL.Path + `"}}`))
		}
	}))
	defer srv.Close()
	c := &Client{Base: srv.URL}
	s, caps, err := c.NewSession(context.Background(), map[string]any{})
	if err != nil || s.ID != "s1" || string(caps) != `{"browserName": "MiniBrowser"}` {
		t.Fatalf("%v %s %v", s, caps, err)
	}
	if err := s.Do(context.Background(), http.MethodPost, "/url", map[string]string{"url": "http://x/"}, nil); err != nil {
		t.Error(err)
	}
	err = s.Do(context.Background(), http.MethodPost, "/url", map[string]string{"url": "bad"}, nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != "invalid argument" {
		t.Errorf("a refused command: %v", err)
	}
}
