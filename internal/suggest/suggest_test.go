package suggest

import (
	"fmt"
	"reflect"
	"testing"
)

// naive is the Levenshtein distance by its recursive definition.
func naive(a, b string) int {
	if a == "" {
		return len(b)
	}
	if b == "" {
		return len(a)
	}
	sub := naive(a[1:], b[1:])
	if a[0] != b[0] {
		sub++
	}
	return min(naive(a[1:], b)+1, naive(a, b[1:])+1, sub)
}

// strs lists every string over alphabet of length up to n.
func strs(alphabet string, n int) []string {
	out := []string{""}
	last := []string{""}
	for range n {
		var next []string
		for _, s := range last {
			for _, c := range alphabet {
				next = append(next, s+string(c))
			}
		}
		out = append(out, next...)
		last = next
	}
	return out
}

// TestDistanceExhaustive: Distance equals the recursive definition on
// every pair of strings of up to 4 letters over {a, b, c}.
func TestDistanceExhaustive(t *testing.T) {
	all := strs("abc", 4)
	for _, a := range all {
		for _, b := range all {
			if got, want := Distance(a, b), naive(a, b); got != want {
				t.Fatalf("Distance(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("kitten/sitting: %d, want 3", d)
	}
}

// TestNear: within two edits (fewer than the name's length), or a prefix either way of at least 3
// characters; closest first; nothing for a name far from all.
func TestNear(t *testing.T) {
	policies := []string{"external", "fifo", "gavel-ftf", "gavel-las", "gavel-throughput", "optimus", "pollux", "remote", "sia", "srtf", "tiresias"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"polux", []string{"pollux"}},
		{"tiresia", []string{"tiresias"}},
		{"gavel", []string{"gavel-ftf", "gavel-las", "gavel-throughput"}},
		{"gavel-lsa", []string{"gavel-las"}}, // gavel-ftf is 3 edits away
		{"sai", []string{"sia"}},             // srtf is 3 away
		{"srt", []string{"srtf", "sia"}},     // 1 edit before 2, against the listing order
		{"zzzzzz", nil},
		{"fo", nil}, // fifo is 2 edits away, as many as the name has letters
	} {
		if got := Near(c.name, policies); !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("Near(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if h := Hint("zzzzzz", policies, nil); h != "" {
		t.Errorf("Hint of a far name: %q", h)
	}
}

func ExampleHint() {
	experiments := []string{"fig7", "table2", "table2-sia", "table3"}
	fmt.Println(Hint("tabel2", experiments, nil))
	fmt.Println(Hint("paper", []string{"generate", "paper", "paper-realistic"}, func(s string) string { return s + ":1" }))
	// Output:
	// did you mean table2?
	// did you mean paper:1 or paper-realistic:1?
}
