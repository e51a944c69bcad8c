package runspec

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// BatchWarnings flags both sides of an application's range, at its edges
// exactly: below the smallest per-GPU batch and above FarBatchFactor × the
// largest total batch; the edges themselves are fine.
func TestBatchWarningsBothSides(t *testing.T) {
	set := profiles.Default()
	lim := set.Apps["cifar10"].Limits
	lo, hi := lim.MinLocal, FarBatchFactor*lim.MaxBatch
	w := &traces.Workload{Source: "w.csv", Jobs: []traces.Job{
		{Name: "low", App: "cifar10", Replicas: 1, Batch: lo - 1, Line: 2},
		{Name: "edge-low", App: "cifar10", Replicas: 1, Batch: lo, Line: 3},
		{Name: "edge-high", App: "cifar10", Replicas: 1, Batch: hi, Line: 4},
		{Name: "high", App: "cifar10", Replicas: 1, Batch: hi + 1, Line: 5},
	}}
	w.Jobs = append(w.Jobs,
		// In range in total, not per GPU: ncf at 128 on 64 GPUs.
		traces.Job{Name: "thin", App: "cifar10", Replicas: 64, Batch: lo * 32, Line: 6},
		traces.Job{Name: "edge-thin", App: "cifar10", Replicas: 4, Batch: lo * 4, Line: 7})
	got := BatchWarnings(w, set)
	if len(got) != 3 || !strings.Contains(got[2], `w.csv:6: job "thin"`) || !strings.Contains(got[2], "per GPU, below cifar10's smallest per-GPU batch") {
		t.Errorf("warnings %q, want line 6 for its per-GPU batch", got)
	}
	got = got[:2]
	if len(got) != 2 || !strings.HasPrefix(got[0], `w.csv:2: job "low"`) || !strings.HasPrefix(got[1], `w.csv:5: job "high"`) {
		t.Errorf("warnings %q, want lines 2 and 5 only", got)
	}
}

// The warning names the batch column the source has: batch_size for the
// workload CSV, the source's own name for another format (a user's mini:
// source calls it "batch"), none for a workload without a file.
func TestBatchWarningsNameTheSourcesColumn(t *testing.T) {
	set := profiles.Default()
	lo := set.Apps["cifar10"].Limits.MinLocal
	for _, c := range []struct{ column, want string }{
		{traces.ColBatch, `column "batch_size"`},
		{"batch", `column "batch"`},
		{"", ""},
	} {
		w := &traces.Workload{Source: "w", BatchColumn: c.column, Jobs: []traces.Job{{Name: "low", App: "cifar10", Replicas: 1, Batch: lo - 1, Line: 2}}}
		got := BatchWarnings(w, set)
		if len(got) != 1 || c.want != "" && !strings.Contains(got[0], c.want) || c.want == "" && strings.Contains(got[0], "column") {
			t.Errorf("column %q: %q, want %s", c.column, got, c.want)
		}
	}
	// The workload CSV's reader says its column.
	w, _, err := traces.Parse(strings.NewReader("name,time,application,num_replicas,batch_size\nj,0,cifar10,1,1\n"), "w.csv", traces.ReadOptions{Apps: set.Names()})
	if err != nil {
		t.Fatal(err)
	}
	if got := BatchWarnings(w, set); len(got) != 1 || !strings.Contains(got[0], `w.csv:2: job "j": column "batch_size"`) {
		t.Errorf("workload CSV: %q", got)
	}
}
