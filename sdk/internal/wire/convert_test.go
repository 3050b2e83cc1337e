package wire

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// filler sets every field of a value to something non-zero and different
// from every other field, by reflection, so that a field the hand-written
// conversions forget comes back zero (or swapped) and the round trip fails.
type filler struct{ n int }

func (f *filler) fill(v reflect.Value) {
	f.n++
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.n))
	case reflect.String:
		v.SetString(fmt.Sprintf("text%d", f.n))
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(k)
		f.fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	default:
		panic("filler: no way to fill a " + v.Type().String())
	}
}

// filled returns a T with every field set.
func filled[T any]() T {
	var v T
	new(filler).fill(reflect.ValueOf(&v).Elem())
	return v
}

// zeroFields lists the paths of the fields of v that are zero, to prove
// that the filler reached every field.
func zeroFields(v reflect.Value, path string) []string {
	if v.IsZero() {
		return []string{path}
	}
	var out []string
	switch v.Kind() {
	case reflect.Pointer:
		out = zeroFields(v.Elem(), path)
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, zeroFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, zeroFields(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	}
	return out
}

// unsetFields lists the fields of a protobuf message (and the messages in
// it) that no conversion filled: a field added to wire.proto and never
// written.
func unsetFields(m protoreflect.Message, path string) []string {
	var out []string
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		p := path + "." + string(fd.Name())
		if !m.Has(fd) {
			out = append(out, p)
			continue
		}
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := range l.Len() {
				out = append(out, unsetFields(l.Get(j).Message(), fmt.Sprintf("%s[%d]", p, j))...)
			}
			continue
		}
		out = append(out, unsetFields(m.Get(fd).Message(), p)...)
	}
	return out
}

// diff names the first path where a and b differ.
func diff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path
			}
			return ""
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s (length %d, then %d)", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Struct:
		for i := range a.NumField() {
			if d := diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s (%v, then %v)", path, a.Interface(), b.Interface())
	}
	return ""
}

// TestViewRoundTrip sends a View with every field set through the wire (the
// conversion, protobuf bytes, the conversion back): whatever a conversion
// forgets, on either side, comes back different.
func TestViewRoundTrip(t *testing.T) {
	for _, packed := range []bool{false, true} {
		v := filled[sdk.View]()
		if z := zeroFields(reflect.ValueOf(v), "View"); len(z) > 0 {
			t.Fatalf("the filler left fields zero: %v", z)
		}
		w, err := fromView(&v, packed, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Each form leaves the other form's fields empty.
		skip := map[string]bool{"wire.View.packed_board": true, "wire.View.packed_legal": true}
		if packed {
			skip = map[string]bool{"wire.View.board": true, "wire.View.legal": true}
		}
		for _, u := range unsetFields(w.ProtoReflect(), "wire.View") {
			if !skip[u] {
				t.Errorf("FromView (packed %v) sets no value in %v", packed, u)
			}
		}
		b, err := proto.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		w2 := new(View)
		if err := proto.Unmarshal(b, w2); err != nil {
			t.Fatal(err)
		}
		got, err := ToView(w2)
		if err != nil {
			t.Fatal(err)
		}
		if d := diff(reflect.ValueOf(v), reflect.ValueOf(got), "View"); d != "" {
			t.Errorf("a View (packed %v) does not survive the wire: %s differs", packed, d)
		}
	}
}

// TestDescriptionRoundTrip does the same for a Description, which travels as
// JSON.
func TestDescriptionRoundTrip(t *testing.T) {
	d := filled[sdk.Description]()
	if z := zeroFields(reflect.ValueOf(d), "Description"); len(z) > 0 {
		t.Fatalf("the filler left fields zero: %v", z)
	}
	b, err := FromDescription(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToDescription(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diff(reflect.ValueOf(d), reflect.ValueOf(got), "Description"); diff != "" {
		t.Errorf("a Description does not survive the wire: %s differs", diff)
	}
}

func TestRuleErrorRoundTrip(t *testing.T) {
	re := filled[sdk.RuleError]()
	w, other := FromRuleError(fmt.Errorf("wrapped: %w", &re))
	if other != nil {
		t.Fatalf("a wrapped rule error is not a rule error: %v", other)
	}
	if u := unsetFields(w.ProtoReflect(), "wire.RuleError"); len(u) > 0 {
		t.Errorf("FromRuleError sets no value in %v", u)
	}
	got := ToRuleError(w)
	if !reflect.DeepEqual(got, &re) {
		t.Errorf("a RuleError does not survive the wire: %#v, then %#v", re, got)
	}
	if _, other := FromRuleError(fmt.Errorf("broken pipe")); other == nil {
		t.Error("a transport error became a rule error")
	}
}

// TestViewPackedByIsTheSame: a view whose board and legal moves were
// packed into buffers of their own (as a plugin's server packs them) has
// the very bytes of one FromViewPacked packs, and a view with a board
// beside its packed lists is refused.
func TestViewPackedByIsTheSame(t *testing.T) {
	v := filled[sdk.View]()
	want, err := FromViewPacked(&v)
	if err != nil {
		t.Fatal(err)
	}
	board, err := AppendBoard([]byte("spare"), v.Board)
	if err != nil {
		t.Fatal(err)
	}
	legal, err := AppendLegal(nil, v.Legal)
	if err != nil {
		t.Fatal(err)
	}
	bare := v
	bare.Board, bare.Legal = nil, nil
	got, err := FromViewPackedBy(&bare, board[len("spare"):], legal)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := proto.Marshal(want)
	gb, _ := proto.Marshal(got)
	if !bytes.Equal(wb, gb) {
		t.Fatalf("packed into buffers:\n%x\nby FromViewPacked:\n%x", gb, wb)
	}
	if _, err := FromViewPackedBy(&v, board, legal); err == nil {
		t.Error("a packed view with a board of its own: no error")
	}
	// A text that is not UTF-8 leaves the buffer as it was.
	bad := []sdk.LegalMove{v.Legal[0], {Text: "\xff"}}
	if out, err := AppendLegal([]byte("kept"), bad); err == nil || string(out) != "kept" {
		t.Errorf("AppendLegal of a bad text: %q, %v", out, err)
	}
	if out, err := AppendBoard([]byte("kept"), []sdk.Cell{{Kind: "\xff"}}); err == nil || string(out) != "kept" {
		t.Errorf("AppendBoard of a bad kind: %q, %v", out, err)
	}
}
