package app

// Every numeric option of a policy or autoscaler and every numeric flag
// documents its bounds, and a value outside them is refused at parse time
// in one line naming the option or flag. The bounds are read from the
// documentation itself (an option's doc, a flag's usage), so that the
// documentation and the checks cannot drift apart.

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies"
)

// interval is one range of allowed values; an infinite end is unbounded.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

// bounds are the allowed values a documentation text declares: a union of
// intervals, or finite only ("any finite number").
type bounds struct {
	ivs        []interval
	anyFinite  bool
	integerSet bool // the values are whole numbers
}

var (
	intervalRe  = regexp.MustCompile(`([\[(])\s*(-?[0-9.]+(?:e[+-]?[0-9]+)?)\s*,\s*(-?[0-9.]+(?:e[+-]?[0-9]+)?)\s*([\])])`)
	atLeastRe   = regexp.MustCompile(`(?:at least (-?[0-9.]+(?:e[+-]?[0-9]+)?)|(-?[0-9.]+(?:e[+-]?[0-9]+)?) or more)\b`)
	anyFiniteRe = regexp.MustCompile(`\bany finite number\b`)
)

// parseBounds reads the bounds a text declares: intervals written as
// [a, b], (a, b], [a, b) or (a, b) (several: their union), "at least N" or
// "N or more", or "any finite number". ok is false when it declares none.
func parseBounds(doc string, integer bool) (b bounds, ok bool) {
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

// outside returns values the bounds refuse, as command-line text: just
// below and above each end (the end itself when open) and the middle of
// each gap between intervals; for "any finite number", NaN and infinity.
func (b bounds) outside() []string {
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
	for _, g := range b.gaps() {
		out = append(out, g)
	}
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
func (b bounds) gaps() []float64 {
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

// TestParseBounds: the reader of documented bounds on the forms the docs
// use.
func TestParseBounds(t *testing.T) {
	for _, tc := range []struct {
		doc     string
		integer bool
		want    []string
	}{
		{"round length in seconds, in (0, 1e6] as --interval", false, []string{"0", "1.0000000000000001e+06"}},
		{"genetic algorithm population, in [1, 100000]", true, []string{"0", "100001"}},
		{"in [-10, -0.01] or [0.01, 10] (< 0 minimises)", false, []string{"-10.000000000000002", "10.000000000000002", "0"}},
		{"cap on any job's GPUs, 0 or more (0: no cap)", true, []string{"-1"}},
		{"cap on the nodes any job spans, at least 1", true, []string{"0"}},
		{"slowdown in [0,1) of multi-node jobs", false, []string{"-5e-324", "1"}},
		{"any finite number", false, []string{"NaN", "Inf", "-1e999"}},
	} {
		b, ok := parseBounds(tc.doc, tc.integer)
		if got := b.outside(); !ok || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q: %v %q, want %q", tc.doc, ok, got, tc.want)
		}
	}
	for _, doc := range []string{"allow several multi-node jobs on one node", "(0: no cap)", "(seconds, or e.g. 60s, 2m)", "(160 = 1.0x load)"} {
		if b, ok := parseBounds(doc, false); ok {
			t.Errorf("%q declares bounds %+v", doc, b)
		}
	}
}

// namesOption reports whether msg is one line that names key as a word.
func namesOption(msg, key string) bool {
	return !strings.Contains(msg, "\n") && regexp.MustCompile(`(^|[^a-z_-])`+regexp.QuoteMeta(key)+`($|[^a-z_])`).MatchString(msg)
}

// numericType says whether an option or flag type is a number, and a whole
// one; unsigned integers (seeds) are bounded by their type and take any
// value of it.
func numericType(typ string) (numeric, integer bool) {
	switch typ {
	case "number", "float", "duration":
		return true, false
	case "integer", "int":
		return true, true
	}
	return false, false
}

// checkOption checks one registry's options: every numeric option declares
// bounds that hold its default, and resolve refuses each value outside
// them, given as key=value and in JSON, in one line naming the option.
func checkOption(t *testing.T, what, key, typ, doc, def string, resolve func(layer any) error) {
	t.Helper()
	numeric, integer := numericType(typ)
	if !numeric {
		return
	}
	b, ok := parseBounds(doc, integer)
	if !ok {
		t.Errorf("%s option %s (%s) documents no bounds: %q", what, key, typ, doc)
		return
	}
	for _, v := range b.outside() {
		err := resolve([]string{key + "=" + v})
		if err == nil || !namesOption(err.Error(), key) {
			t.Errorf("%s option %s=%s (bounds %q): %v; want one line naming %s", what, key, v, doc, err, key)
		}
		if x, perr := strconv.ParseFloat(v, 64); perr == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
			raw, _ := json.Marshal(map[string]float64{key: x})
			if err := resolve(json.RawMessage(raw)); err == nil || !namesOption(err.Error(), key) {
				t.Errorf("%s option %s: %s (bounds %q): %v; want one line naming %s", what, key, raw, doc, err, key)
			}
		}
	}
	if d, err := strconv.ParseFloat(def, 64); err == nil && !b.holds(d) {
		t.Errorf("%s option %s: the default %s is outside its documented bounds %q", what, key, def, doc)
	}
}

// holds reports whether x is within the bounds.
func (b bounds) holds(x float64) bool {
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

// TestOptionBounds walks the policy and autoscaler registries.
func TestOptionBounds(t *testing.T) {
	for _, reg := range []struct {
		kind     string
		names    func() []string
		describe func(string) ([]policies.OptionDoc, error)
		resolve  func(string, policies.OptionSet, ...any) (policies.OptionSet, error)
	}{
		{"policy", policies.Names, policies.Describe, policies.Resolve},
		{"autoscaler", autoscalers.Names, autoscalers.Describe, autoscalers.Resolve},
	} {
		for _, name := range reg.names() {
			docs, err := reg.describe(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				checkOption(t, reg.kind+" "+name, d.Key, d.Type, d.Doc, d.Default, func(layer any) error {
					_, err := reg.resolve(name, "", layer)
					return err
				})
			}
		}
	}
}

// flagBases is, per command with numeric flags, a command line that is
// valid but for the flag probed, so that the flag's own check is the one
// that answers. A command that gains a numeric flag needs a line here.
func flagBases(dir string) map[string][]string {
	philly := filepath.Join(dir, "philly.csv") // never read: the flags are checked first
	return map[string][]string{
		"polluxsim bench scale":               {"bench", "scale", "--sizes", "1x1", "--quiet", "--out", filepath.Join(dir, "b.csv")},
		"polluxsim profiles show":             {"profiles", "show", "cifar10"},
		"polluxsim run":                       {"run", "--quiet", "--autoscaler", "goodput", "--out", filepath.Join(dir, "r")},
		"polluxsim serve":                     {"serve", "--addr", "127.0.0.1:0"},
		"polluxsim sweep":                     {"sweep", "--quiet", "--experiment", "ci", "--out", filepath.Join(dir, "s")},
		"polluxsim trace summarize":           {"trace", "summarize", "itp:cluster02"},
		"polluxsim workload generate":         {"workload", "generate", "--out", filepath.Join(dir, "g.csv")},
		"polluxsim workload summarize-philly": {"workload", "summarize-philly", "--philly", philly, "--out", filepath.Join(dir, "s.json")},
	}
}

// TestFlagBounds walks the command tree: every numeric flag (not the
// unsigned seeds) states its bounds in its usage, and each value just
// outside them is refused before anything is read or written, in one line
// naming the flag.
func TestFlagBounds(t *testing.T) {
	dir := t.TempDir()
	bases := flagBases(dir)
	probed := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			numeric, integer := numericType(f.Value.Type())
			if !numeric || f.Name == "help" {
				return
			}
			b, ok := parseBounds(f.Usage, integer)
			if !ok {
				t.Errorf("%s --%s documents no bounds: %q", c.CommandPath(), f.Name, f.Usage)
				return
			}
			base, ok := bases[c.CommandPath()]
			if !ok {
				t.Errorf("%s has numeric flags but no command line in flagBases", c.CommandPath())
				return
			}
			for _, v := range b.outside() {
				args := append(append([]string(nil), base...), "--"+f.Name+"="+v)
				printed, err := runCLI(t, args...)
				probed++
				if err == nil || !namesOption(err.Error(), "--"+f.Name) {
					t.Errorf("%s --%s=%s (usage %q): %v; want one line naming --%s\n%.300s", c.CommandPath(), f.Name, v, f.Usage, err, f.Name, printed)
				}
			}
			if d, err := strconv.ParseFloat(strings.TrimSuffix(f.DefValue, "s"), 64); err == nil && !b.holds(d) && f.DefValue != "0" {
				t.Errorf("%s --%s: the default %s is outside its documented bounds %q", c.CommandPath(), f.Name, f.DefValue, f.Usage)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd())
	if probed < 40 { // 23 flags, most bounded on both sides
		t.Errorf("only %d values probed", probed)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused command lines wrote %d files or folders", len(ents))
	}
}
