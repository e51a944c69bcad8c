package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// JobOrder lists exactly the tracked jobs in key order through any mix of
// additions (in and out of key order) and removals, gaps and all.
func TestJobOrderFollowsItsRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var o JobOrder
	want := map[int64]*Job{}
	pool := rng.Perm(20000) // keys arrive out of order
	for round := 0; round < 2000; round++ {
		var r IncrementalRound
		for k := range want {
			if rng.IntN(4) == 0 {
				r.Removed = append(r.Removed, k)
			}
		}
		for _, k := range r.Removed {
			delete(want, k)
		}
		for n := rng.IntN(6); n > 0; n-- {
			k := int64(pool[0])
			pool = pool[1:]
			r.Added = append(r.Added, Tracked{Key: k, Job: &Job{Name: "j"}})
			want[k] = r.Added[len(r.Added)-1].Job
		}
		slices.SortFunc(r.Added, func(a, b Tracked) int { return int(a.Key - b.Key) })
		o.Apply(r)
		var got []int64
		for tr := range o.All() {
			if want[tr.Key] != tr.Job {
				t.Fatalf("round %d: key %d with the wrong job", round, tr.Key)
			}
			got = append(got, tr.Key)
		}
		keys := make([]int64, 0, len(want))
		for k := range want {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(got, keys) {
			t.Fatalf("round %d: order %v, want %v", round, got, keys)
		}
		for _, k := range r.Removed {
			if o.Has(k) {
				t.Fatalf("round %d: removed key %d still tracked", round, k)
			}
		}
		if o.gaps > maxGaps {
			t.Fatalf("round %d: %d gaps kept", round, o.gaps)
		}
	}
}
