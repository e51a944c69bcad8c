package registry

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistry: names and registrations come back in alphabetical order
// whatever the order of Add, a name taken twice is refused and keeps the
// first, and Get names the known ones.
func TestRegistry(t *testing.T) {
	r := New[int]("thing")
	for i, n := range []string{"c", "a", "b"} {
		if err := r.Add(n, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add("a", 9); err == nil || err.Error() != `thing "a" registered twice` {
		t.Errorf("Add twice: %v", err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Names: %v", got)
	}
	if got := r.All(); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("All: %v, want the values of a, b, c", got)
	}
	if _, err := r.Get("d"); err == nil || !strings.Contains(err.Error(), `unknown thing "d" (known: a, b, c)`) {
		t.Errorf("Get: %v", err)
	}
	if got := New[int]("thing").All(); len(got) != 0 {
		t.Errorf("empty All: %v", got)
	}
}
