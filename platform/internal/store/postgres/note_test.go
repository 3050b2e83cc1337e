package postgres

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseNote(t *testing.T) {
	for in, want := range map[string]Note{
		"a room1 7": {Kind: NoteAction, Room: "room1", Version: 7},
		"c room1":   {Kind: NotePresence, Room: "room1"},
		"p room1":   {Kind: NotePurged, Room: "room1"},
	} {
		if got, err := ParseNote(in); err != nil || got != want {
			t.Errorf("ParseNote(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "a room", "a room x", "a room 0", "c room 3", "x room", "aa room 1", "r room"} {
		if n, err := ParseNote(in); err == nil {
			t.Errorf("ParseNote(%q) = %+v, want an error", in, n)
		}
	}
}

// FuzzParseNote: any payload is refused or read into a note that formats
// back to the same note.
func FuzzParseNote(f *testing.F) {
	for _, s := range []string{"a r 1", "c r", "p r", "a r -1", "a  r  9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNote(s)
		if err != nil {
			return
		}
		again := fmt.Sprintf("%c %s", n.Kind, n.Room)
		if n.Kind == NoteAction {
			again += fmt.Sprint(" ", n.Version)
		}
		m, err := ParseNote(again)
		if err != nil || m != n || strings.ContainsAny(n.Room, " \t\n") {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, n, again, m, err)
		}
	})
}
