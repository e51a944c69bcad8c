package strictjson

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// cost is what f allocated: the number of allocations and their bytes.
func cost(f func()) (mallocs, bytes uint64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}

// TestDepth: arrays and objects nested MaxDepth levels deep are read,
// one level more is refused naming the line and column of the bracket
// that passes the bound, for Decode and CheckKeys alike.
func TestDepth(t *testing.T) {
	nest := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	for _, in := range []string{nest("[", "", "]", MaxDepth), nest(`{"a":`, "1", "}", MaxDepth), nest(`[{"a":`, "1", "}]", MaxDepth/2)} {
		var v any
		if err := Decode([]byte(in), &v); err != nil {
			t.Errorf("%d levels: %v", MaxDepth, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{nest("[", "", "]", MaxDepth+1), "line 1, column 65: arrays and objects nested deeper than 64 levels"},
		{nest(`{"a":`, "1", "}", MaxDepth+1), "line 1, column 321: arrays and objects nested deeper than 64 levels"},
		{nest(`[{"a":`, "1", "}]", MaxDepth/2+1), "line 1, column 193: arrays and objects nested deeper than 64 levels"},
		// A BOM is not a column (an editor does not show it).
		{"\xef\xbb\xbf" + nest("[", "", "]", MaxDepth+1), "line 1, column 65:"},
		{"{\n  \"cells\": [\n    " + nest("[", "", "]", MaxDepth), "line 3, column 67: arrays and objects nested deeper than 64 levels"},
	} {
		var v any
		if err := Decode([]byte(c.in), &v); err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%.40q…: %v, want %q", c.in, err, c.want)
		}
		if err := CheckKeys([]byte(c.in), reflect.TypeOf(&v)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("CheckKeys %.40q…: %v, want %q", c.in, err, c.want)
		}
	}
	// Into a struct, the keys are checked on the way down: an unknown key
	// above the bound is named first, a deep value of a known one is refused.
	var o outer
	if err := Decode([]byte(`{"options":{"x":`+nest("[", "", "]", MaxDepth)+`}}`), &o); err == nil || !strings.Contains(err.Error(), "nested deeper than 64 levels") {
		t.Errorf("deep options: %v", err)
	}
}

// TestDepthHostile: the inputs, 60,000 "[" (a 60 KB body took
// the service to 24 GB) and 40,000 `{"a":` (the CLI's spec), closed or
// not, are refused with the depth error after a few kilobytes of work:
// every level kept its own copy of the path to it, so the work grew with
// the square of the depth. The cases grow so that a reader without the
// bound fails on the small ones before the large ones exhaust memory.
func TestDepthHostile(t *testing.T) {
	for _, n := range []int{100, 2000, 40000, 60000} {
		for _, unit := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}, {`[{"a":`, "}]"}} {
			for _, closed := range []bool{false, true} {
				in := strings.Repeat(unit.open, n)
				if closed {
					in += "0" + strings.Repeat(unit.close, n)
				}
				var err error
				mallocs, bytes := cost(func() {
					var v any
					err = Decode([]byte(in), &v)
				})
				if err == nil || !strings.Contains(err.Error(), "nested deeper than 64 levels") {
					t.Fatalf("%d × %q (closed %v): %.200v", n, unit.open, closed, err)
				}
				// Reading the first 65 levels: a few hundred allocations.
				if mallocs > 2000 || bytes > 1<<20 {
					t.Fatalf("%d × %q (closed %v): %d allocations, %d bytes", n, unit.open, closed, mallocs, bytes)
				}
			}
		}
	}
}

// TestLinearCost: what CheckKeys allocates for a value does not grow
// with the depth at which it sits, at the deepest nesting it accepts: 63
// objects under 1,000-byte keys cost what the same objects side by side
// cost (each level copied the path to it: 2.3 MB for 63 KB, 16 times the
// flat form), and 20,000 numbers at depth 63 what they cost at depth 1
// (each element's path was formatted: 6.9 MB for 40 KB, 2.5 times).
func TestLinearCost(t *testing.T) {
	key := `{"` + strings.Repeat("k", 1000) + `":`
	n := MaxDepth - 1
	numbers := strings.Repeat("0,", 20000) + "0"
	for _, c := range []struct{ name, deep, flat string }{
		{"long keys", strings.Repeat(key, n) + "{}" + strings.Repeat("}", n),
			"[" + strings.Repeat(key+"{}},", n-1) + key + "{}}]"},
		{"wide array", strings.Repeat("[", n) + numbers + strings.Repeat("]", n), "[" + numbers + "]"},
	} {
		var deepErr, flatErr error
		_, deep := cost(func() { deepErr = CheckKeys([]byte(c.deep), nil) })
		_, flat := cost(func() { flatErr = CheckKeys([]byte(c.flat), nil) })
		if deepErr != nil || flatErr != nil {
			t.Fatalf("%s: %v, %v", c.name, deepErr, flatErr)
		}
		if deep > flat+flat/4+64<<10 {
			t.Errorf("%s: %d bytes allocated %d levels deep, %d side by side (%d and %d bytes in)", c.name, deep, n, flat, len(c.deep), len(c.flat))
		}
	}
}
