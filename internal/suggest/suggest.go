// Package suggest finds the names a mistyped one was probably meant to be,
// for the "did you mean" of an unknown flag, policy, experiment or
// workload source: one rule for all of them.
package suggest

import (
	"slices"
	"strings"
)

// maxEdits is how many single-character edits apart a suggestion may be.
const maxEdits = 2

// minPrefix is the shortest common length at which one name starting
// with the other makes it a suggestion ("tiresia" for "tiresias").
const minPrefix = 3

// Near returns the candidates within two edits of name but fewer than its
// length (no name is near "d" merely by replacing it), or of which name
// is a prefix or which are a prefix of name (both at least 3 characters),
// closest first (ties in the candidates' order). A candidate equal to
// name is returned too.
func Near(name string, candidates []string) []string {
	type near struct {
		name string
		d    int
	}
	var out []near
	for _, c := range candidates {
		d := Distance(name, c)
		short := min(len(c), len(name))
		if (d <= maxEdits && d < len(name)) || (short >= minPrefix && (strings.HasPrefix(c, name) || strings.HasPrefix(name, c))) {
			out = append(out, near{c, d})
		}
	}
	slices.SortStableFunc(out, func(a, b near) int { return a.d - b.d })
	names := make([]string, len(out))
	for i, n := range out {
		names[i] = n.name
	}
	return names
}

// Hint is "did you mean A?" or "did you mean A, B or C?" for the names
// Near finds, each written through form (nil: as it is), or "" when there
// are none.
func Hint(name string, candidates []string, form func(string) string) string {
	near := Near(name, candidates)
	if len(near) == 0 {
		return ""
	}
	if form != nil {
		for i, n := range near {
			near[i] = form(n)
		}
	}
	return "did you mean " + List(near) + "?"
}

// List joins names as "A", "A or B", "A, B or C".
func List(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Distance is the Levenshtein distance of a and b, in bytes: the fewest
// insertions, deletions and substitutions that make one the other.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
