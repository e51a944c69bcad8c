package sweep_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

func TestParseWorkloadNumbers(t *testing.T) {
	for in, want := range map[string][]int{"1,3": {1, 3}, "3,1,3": {1, 3}, " 2-4 , 8": {2, 3, 4, 8}, "5": {5}, "1-1": {1}} {
		if got, err := sweep.ParseWorkloadNumbers(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseWorkloadNumbers(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1,,3", "a", "3-1", "1-", "1.5", "1-99999999999"} {
		if got, err := sweep.ParseWorkloadNumbers(in); err == nil || !strings.Contains(err.Error(), "--workloads-only") {
			t.Errorf("ParseWorkloadNumbers(%q) = %v, %v; want an error naming --workloads-only", in, got, err)
		}
	}
}

// TestSweepWorkloadsOnly: a sweep of workloads 1 and 3 runs exactly
// every cell's runs of those workloads, its summary names the others as
// missing, and a second sweep without the selector runs only the rest
// and ends with the unselected sweep's files, byte for byte. A workload
// the experiment lacks is refused before anything is written.
func TestSweepWorkloadsOnly(t *testing.T) {
	e, _ := exptest.Tiny(t)
	full := exptest.TinyFull(t)
	var want []string
	for _, r := range e.Runs() {
		if r.Workload == 1 || r.Workload == 3 {
			want = append(want, r.ID())
		}
	}
	if len(want) == 0 || len(want) == len(e.Runs()) {
		t.Fatalf("the tiny experiment has %d runs of workloads 1 and 3 of %d: no selection to test", len(want), len(e.Runs()))
	}
	dir := t.TempDir()
	opt := exptest.TinyOptions(t, dir)
	opt.WorkloadsOnly = []int{1, 3}
	rep := sweepTiny(t, opt)
	if rep.Runs != len(want) || rep.Ran != len(want) {
		t.Errorf("--workloads-only 1,3: %d runs planned, %d run; want %d", rep.Runs, rep.Ran, len(want))
	}
	var got []string
	for name := range cellFiles(t, dir) {
		r, err := results.ReadRunResult(filepath.Join(dir, sweep.CellsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Run)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("stored runs %v, want %v", got, want)
	}
	if s := rep.Summary; s.Runs != len(want) || s.ExpectedRuns != len(e.Runs()) || len(s.Missing) != len(e.Runs())-len(want) {
		t.Errorf("summary: %d of %d runs, %d missing; want %d of %d", s.Runs, s.ExpectedRuns, len(s.Missing), len(want), len(e.Runs()))
	}
	rest := sweepTiny(t, exptest.TinyOptions(t, dir))
	if rest.Ran != len(e.Runs())-len(want) || rest.Skipped != len(want) {
		t.Errorf("the whole sweep after: ran %d, skipped %d", rest.Ran, rest.Skipped)
	}
	for _, f := range []string{sweep.ResultsFile, sweep.JobsFile, sweep.SummaryFile} {
		if !bytes.Equal(readFile(t, filepath.Join(full, f)), readFile(t, filepath.Join(dir, f))) {
			t.Errorf("%s after a selected then a whole sweep differs from the whole sweep's", f)
		}
	}
	bad := exptest.TinyOptions(t, filepath.Join(t.TempDir(), "bad"))
	bad.WorkloadsOnly = []int{1, 99}
	if _, err := sweep.Sweep(context.Background(), e, bad); err == nil || !strings.Contains(err.Error(), "no workload 99") {
		t.Errorf("--workloads-only 1,99: %v, want an error naming workload 99", err)
	}
}
