package sdk

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the contract's plumbing that every variant needs the same
// way: options checked against their schema, notations looked up by ID, and
// hostile text shortened before it is quoted back.

// clipBytes is how much of a hostile text an error message quotes.
const clipBytes = 40

// Clip shortens text before it is quoted in an error message: a text from a
// browser may be a megabyte long, and must not come back whole in an answer
// or a log line. It keeps at most 40 bytes, cut at a character boundary, and
// marks the cut with "…".
func Clip(s string) string {
	if len(s) <= clipBytes {
		return s
	}
	n := clipBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// OptionValues are a game's options after ParseOptions: every key of the
// schema, checked against its spec, with defaults for the missing ones. Read
// them with Bool, Int and Text.
type OptionValues map[string]string

// ParseOptions checks opts against specs (the variant's Description.Options)
// and fills in the defaults. An unknown key or a value its spec does not allow
// is a *RuleError with code CodeBadOption; when several are wrong, the first
// key in sorted order is named, so the same options give the same error.
func ParseOptions(specs []OptionSpec, opts Options) (OptionValues, error) {
	vals := make(OptionValues, len(specs))
	for _, s := range specs {
		vals[s.Key] = s.Default
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i := slices.IndexFunc(specs, func(s OptionSpec) bool { return s.Key == k })
		if i < 0 {
			return nil, Errorf(CodeBadOption, "unknown option %q", Clip(k))
		}
		v := opts[k]
		if err := checkOption(&specs[i], v); err != nil {
			return nil, err
		}
		vals[k] = v
	}
	return vals, nil
}

// checkOption reports whether v is a value spec allows.
func checkOption(spec *OptionSpec, v string) error {
	switch spec.Type {
	case "bool":
		if v != "true" && v != "false" {
			return Errorf(CodeBadOption, "option %q is true or false, not %q", spec.Key, Clip(v))
		}
	case "int":
		n, err := strconv.Atoi(v)
		if err != nil || n < spec.Min || n > spec.Max {
			return Errorf(CodeBadOption, "option %q is a whole number from %d to %d, not %q", spec.Key, spec.Min, spec.Max, Clip(v))
		}
	case "choice":
		if !slices.Contains(spec.Choices, v) {
			return Errorf(CodeBadOption, "option %q is one of %s, not %q", spec.Key, strings.Join(spec.Choices, ", "), Clip(v))
		}
	default:
		return Errorf(CodeBadOption, "option %q has no type %q that values could be checked against", spec.Key, spec.Type)
	}
	return nil
}

// Bool is the value of a "bool" option.
func (o OptionValues) Bool(key string) bool { return o[key] == "true" }

// Int is the value of an "int" option (0 for a key of another type).
func (o OptionValues) Int(key string) int {
	n, _ := strconv.Atoi(o[key])
	return n
}

// Text is the value of a "choice" option, or any option as written.
func (o OptionValues) Text(key string) string { return o[key] }

// Formats maps notation IDs (Notation.ID) to what a variant does with them:
// its writers in Export, its readers in Import. A table rather than a switch
// gives every variant the same bad_format answer for an unknown notation.
type Formats[F any] map[string]F

// Get returns the entry for format, or a *RuleError with code CodeBadFormat
// when the table has none.
func (f Formats[F]) Get(format string) (F, error) {
	e, ok := f[format]
	if !ok {
		var none F
		return none, Errorf(CodeBadFormat, "no notation %q", Clip(format))
	}
	return e, nil
}
