package conformance

// The option-bounds check: every numeric option documents its bounds in
// its doc, and a value just outside them is refused in one line naming the
// option. The bounds are read from the documentation itself, so that the
// documentation and the checks cannot drift apart. RunRegistered runs it
// for every policy; CheckOptionBounds serves any registration-like set of
// options (autoscalers, a tool's own).

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// interval is one range of allowed values; an infinite end is unbounded.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

// Bounds are the allowed values a documentation text declares: a union of
// intervals, or finite only ("any finite number").
type Bounds struct {
	ivs        []interval
	anyFinite  bool
	integerSet bool // the values are whole numbers
}

var (
	intervalRe  = regexp.MustCompile(`([\[(])\s*(-?[0-9.]+(?:e[+-]?[0-9]+)?)\s*,\s*(-?[0-9.]+(?:e[+-]?[0-9]+)?)\s*([\])])`)
	atLeastRe   = regexp.MustCompile(`(?:at least (-?[0-9.]+(?:e[+-]?[0-9]+)?)|(-?[0-9.]+(?:e[+-]?[0-9]+)?) or more)\b`)
	anyFiniteRe = regexp.MustCompile(`\bany finite number\b`)
)

// ParseBounds reads the bounds a text declares: intervals written as
// [a, b], (a, b], [a, b) or (a, b) (several: their union), "at least N" or
// "N or more", or "any finite number"; integer says the values are whole
// numbers. ok is false when the text declares none.
func ParseBounds(doc string, integer bool) (b Bounds, ok bool) {
	b.integerSet = integer
	for _, m := range intervalRe.FindAllStringSubmatch(doc, -1) {
		lo, err1 := strconv.ParseFloat(m[2], 64)
		hi, err2 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil || lo > hi {
			continue
		}
		b.ivs = append(b.ivs, interval{lo: lo, hi: hi, loOpen: m[1] == "(", hiOpen: m[4] == ")"})
	}
	for _, m := range atLeastRe.FindAllStringSubmatch(doc, -1) {
		n := m[1] + m[2]
		if lo, err := strconv.ParseFloat(n, 64); err == nil {
			b.ivs = append(b.ivs, interval{lo: lo, hi: math.Inf(1)})
		}
	}
	b.anyFinite = anyFiniteRe.MatchString(doc)
	return b, len(b.ivs) > 0 || b.anyFinite
}

// Outside returns values the bounds refuse, as command-line text: just
// below and above each end (the end itself when open) and the middle of
// each gap between intervals; for "any finite number", NaN and infinity.
func (b Bounds) Outside() []string {
	if b.anyFinite && len(b.ivs) == 0 {
		return []string{"NaN", "Inf", "-1e999"}
	}
	lo, hi := interval{lo: math.Inf(1)}, interval{hi: math.Inf(-1)}
	for _, iv := range b.ivs {
		if iv.lo < lo.lo || iv.lo == lo.lo && !iv.loOpen {
			lo = iv
		}
		if iv.hi > hi.hi || iv.hi == hi.hi && !iv.hiOpen {
			hi = iv
		}
	}
	var out []float64
	step := func(x, dir float64, open bool) float64 {
		switch {
		case open:
			return x
		case b.integerSet:
			return x + dir
		}
		return math.Nextafter(x, dir*math.Inf(1))
	}
	if !math.IsInf(lo.lo, 0) {
		out = append(out, step(lo.lo, -1, lo.loOpen))
	}
	if !math.IsInf(hi.hi, 0) {
		out = append(out, step(hi.hi, 1, hi.hiOpen))
	}
	out = append(out, b.gaps()...)
	texts := make([]string, len(out))
	for i, x := range out {
		texts[i] = strconv.FormatFloat(x, 'f', -1, 64)
		if !b.integerSet {
			texts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return texts
}

// gaps returns the middle of every stretch between the intervals that
// none of them covers.
func (b Bounds) gaps() []float64 {
	var g []float64
	for _, a := range b.ivs {
		mid := math.Inf(1)
		for _, c := range b.ivs {
			if c.lo > a.hi && c.lo < mid {
				mid = c.lo
			}
		}
		if math.IsInf(mid, 0) {
			continue
		}
		x := (a.hi + mid) / 2
		covered := false
		for _, c := range b.ivs {
			covered = covered || x >= c.lo && x <= c.hi
		}
		if !covered {
			g = append(g, x)
		}
	}
	return g
}

// Holds reports whether x is within the bounds.
func (b Bounds) Holds(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	if len(b.ivs) == 0 {
		return b.anyFinite
	}
	for _, iv := range b.ivs {
		if (x > iv.lo || x == iv.lo && !iv.loOpen) && (x < iv.hi || x == iv.hi && !iv.hiOpen) {
			return true
		}
	}
	return false
}

// NamesOption reports whether msg is one line that names key as a word.
func NamesOption(msg, key string) bool {
	return !strings.Contains(msg, "\n") && regexp.MustCompile(`(^|[^a-z_-])`+regexp.QuoteMeta(key)+`($|[^a-z_])`).MatchString(msg)
}

// NumericType says whether an option or flag type is a number, and a whole
// one; unsigned integers (seeds) are bounded by their type and take any
// value of it.
func NumericType(typ string) (numeric, integer bool) {
	switch typ {
	case "number", "float", "duration":
		return true, false
	case "integer", "int":
		return true, true
	}
	return false, false
}

// CheckOptionBounds checks a set of documented options (what names their
// owner in messages, e.g. "policy smallest-first"): every numeric option
// declares bounds that hold its default, and resolve (which applies one
// layer, "key=value" strings or a JSON object, over the defaults) refuses
// each value outside them, given as key=value and in JSON, in one line
// naming the option.
func CheckOptionBounds(t testing.TB, what string, docs []policies.OptionDoc, resolve func(layer any) error) {
	t.Helper()
	for _, p := range OptionBoundsProblems(what, docs, resolve) {
		t.Error(p)
	}
}

// OptionBounds is CheckOptionBounds for the policy name of registry reg.
// RunRegistered runs it.
func OptionBounds(t testing.TB, reg *policies.Registry, name string) {
	t.Helper()
	problems, err := RegisteredOptionBounds(reg, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// RegisteredOptionBounds is OptionBoundsProblems for the policy name of
// registry reg; the error is for a name reg does not know.
func RegisteredOptionBounds(reg *policies.Registry, name string) ([]string, error) {
	docs, err := reg.Describe(name)
	if err != nil {
		return nil, err
	}
	return OptionBoundsProblems("policy "+name, docs, func(layer any) error {
		_, err := reg.Resolve(name, "", layer)
		return err
	}), nil
}

// OptionBoundsProblems is CheckOptionBounds's check, returning what it
// finds, one line each, instead of reporting to a test.
func OptionBoundsProblems(what string, docs []policies.OptionDoc, resolve func(layer any) error) []string {
	var out []string
	for _, d := range docs {
		out = append(out, optionProblems(what, d.Key, d.Type, d.Doc, d.Default, resolve)...)
	}
	return out
}

func optionProblems(what, key, typ, doc, def string, resolve func(layer any) error) []string {
	numeric, integer := NumericType(typ)
	if !numeric {
		return nil
	}
	b, ok := ParseBounds(doc, integer)
	if !ok {
		return []string{fmt.Sprintf("%s option %s (%s) documents no bounds: %q", what, key, typ, doc)}
	}
	var out []string
	for _, v := range b.Outside() {
		err := resolve([]string{key + "=" + v})
		if err == nil || !NamesOption(err.Error(), key) {
			out = append(out, fmt.Sprintf("%s option %s=%s (bounds %q): %v; want one line naming %s", what, key, v, doc, err, key))
		}
		if x, perr := strconv.ParseFloat(v, 64); perr == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
			raw, _ := json.Marshal(map[string]float64{key: x})
			if err := resolve(json.RawMessage(raw)); err == nil || !NamesOption(err.Error(), key) {
				out = append(out, fmt.Sprintf("%s option %s: %s (bounds %q): %v; want one line naming %s", what, key, raw, doc, err, key))
			}
		}
	}
	if d, err := strconv.ParseFloat(def, 64); err == nil && !b.Holds(d) {
		out = append(out, fmt.Sprintf("%s option %s: the default %s is outside its documented bounds %q", what, key, def, doc))
	}
	return out
}
