package external_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/parquettest"
)

// repoRoot is the repository's root (this file is two folders down).
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// needPython skips the test, saying so, without python3.
func needPython(t testing.TB) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the Python policies are not checked (.ci/run installs it)")
	}
	return py
}

// example is the command line of a Python example policy.
func example(t testing.TB, name string, args ...string) string {
	cmd := fmt.Sprintf("'%s' '%s'", needPython(t), filepath.Join(repoRoot(t), "python", "examples", name+".py"))
	for _, a := range args {
		cmd += " " + a
	}
	return cmd
}

// identityColumns are the columns that name the run (its run_id, the
// policy and its options), which differ between a Go policy and its
// Python port by design: the policy's name and options are part of a
// run's identity.
var identityColumns = map[string]bool{"run_id": true, "policy": true, "policy_options": true}

// sameTables reports where two Parquet tables differ (tableDiff).
func sameTables(t *testing.T, what, a, b string) {
	t.Helper()
	for _, d := range tableDiff(t, a, b) {
		t.Errorf("%s: %s", what, d)
	}
}

// tableDiff compares two Parquet tables column by column: the same schema
// (names, types, nullability) and, but for identityColumns, equal data
// (array.Equal: values and nulls, floats bit for bit). It returns what
// differs.
func tableDiff(t *testing.T, a, b string) []string {
	t.Helper()
	ta, tb := parquettest.ReadTable(t, a), parquettest.ReadTable(t, b)
	defer ta.Release()
	defer tb.Release()
	if !fieldsEqual(ta.Schema(), tb.Schema()) {
		return []string{fmt.Sprintf("schemas differ:\n%v\n%v", ta.Schema(), tb.Schema())}
	}
	if ta.NumRows() != tb.NumRows() {
		return []string{fmt.Sprintf("%d rows, %d rows", ta.NumRows(), tb.NumRows())}
	}
	var diff []string
	for i, f := range ta.Schema().Fields() {
		if identityColumns[f.Name] {
			continue
		}
		ca, cb := concat(t, ta.Column(i)), concat(t, tb.Column(i))
		if !array.Equal(ca, cb) {
			diff = append(diff, "column "+f.Name+" differs")
		}
		ca.Release()
		cb.Release()
	}
	return diff
}

func fieldsEqual(a, b *arrow.Schema) bool {
	if len(a.Fields()) != len(b.Fields()) {
		return false
	}
	for i, f := range a.Fields() {
		g := b.Field(i)
		if f.Name != g.Name || !arrow.TypeEqual(f.Type, g.Type) || f.Nullable != g.Nullable {
			return false
		}
	}
	return true
}

func concat(t *testing.T, c *arrow.Column) arrow.Array {
	a, err := array.Concatenate(c.Data().Chunks(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run simulates workload under policy with options (key=value) into a
// fresh folder, without timings, and returns the folder.
func run(t *testing.T, policy, workload, rounds string, opts ...string) string {
	t.Helper()
	spec, err := runspec.DefaultSpec(policy).WithOptions(intree.Extensions(), opts)
	if err != nil {
		t.Fatal(err)
	}
	spec.Rounds = rounds
	out := filepath.Join(t.TempDir(), policy)
	if _, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: workload},
		runner.Options{Ext: intree.Extensions(), Out: out, NoTiming: true}); err != nil {
		t.Fatalf("%s on %s: %v", policy, workload, err)
	}
	return out
}

// TestTableDiffSeesADifference: the comparison is not blind: Tiresias
// demoting at 1 GPU-hour instead of 16 schedules paper:1 otherwise, and
// the jobs' tables differ in their times.
func TestTableDiffSeesADifference(t *testing.T) {
	a := run(t, "tiresias", "paper:1", "all")
	b := run(t, "tiresias", "paper:1", "all", "demote_gpu_hours=1")
	d := tableDiff(t, filepath.Join(a, "jobs.parquet"), filepath.Join(b, "jobs.parquet"))
	if !slices.Contains(d, "column jct_s differs") {
		t.Errorf("differences found: %v", d)
	}
}

// TestPythonPortsMatchGo: the Python FIFO, Tiresias and SRTF give the Go
// policies' jobs.parquet and rounds.parquet, column for column but the
// run's identity, on the eight reference workloads: in full rounds
// (--rounds all, every job every round) and, for FIFO and Tiresias, in
// changes-only rounds (--rounds changes, decided incrementally on both
// sides); SRTF asks the oracle over the wire every round. With -short,
// paper:1 and paper:8 only.
func TestPythonPortsMatchGo(t *testing.T) {
	needPython(t)
	ns := []int{1, 2, 3, 4, 5, 6, 7, 8}
	if testing.Short() {
		ns = []int{1, 8}
	}
	for _, pr := range []struct {
		policy string
		rounds []string
	}{
		{"fifo", []string{"all", "changes"}},
		{"tiresias", []string{"all", "changes"}},
		{"srtf", []string{"all"}}, // not incremental; asks the oracle
	} {
		policy := pr.policy
		for _, rounds := range pr.rounds {
			for _, n := range ns {
				t.Run(fmt.Sprintf("%s/%s/paper:%d", policy, rounds, n), func(t *testing.T) {
					w := fmt.Sprintf("paper:%d", n)
					goDir := run(t, policy, w, rounds)
					pyDir := run(t, "external", w, rounds, "command="+example(t, policy))
					for _, f := range []string{"jobs.parquet", "rounds.parquet"} {
						sameTables(t, f, filepath.Join(goDir, f), filepath.Join(pyDir, f))
					}
				})
			}
		}
	}
}

// admissionWorkload is a generated workload whose deadlines some jobs
// cannot meet (ElasticFlow's rule: 0.5 to 1.5 times each job's run time
// alone; a fifth of the jobs best-effort), on which EDF with admission
// declines jobs and admits others.
const admissionWorkload = "generate:jobs=40,seed=2,config=realistic,deadlines=elasticflow,best_effort=0.2"

// TestPythonEDFMatchesGo: the Python EDF (python/examples/edf.py) gives
// the Go policy's jobs.parquet and rounds.parquet, column for column but
// the run's identity, with admission control (protocol version 3: every
// job's admission asked of the child, which asks the oracle) and without,
// on a workload with deadlines; with admission it declines jobs, so the
// tables hold declined jobs and their reasons, which must agree too.
func TestPythonEDFMatchesGo(t *testing.T) {
	needPython(t)
	for _, admission := range []bool{false, true} {
		t.Run(fmt.Sprintf("admission=%v", admission), func(t *testing.T) {
			var args []string
			if admission {
				args = append(args, "--admission")
			}
			goDir := run(t, "edf", admissionWorkload, "all", fmt.Sprintf("admission=%v", admission))
			pyDir := run(t, "external", admissionWorkload, "all", "command="+example(t, "edf", args...))
			for _, f := range []string{"jobs.parquet", "rounds.parquet"} {
				sameTables(t, f, filepath.Join(goDir, f), filepath.Join(pyDir, f))
			}
			declined := declinedJobs(t, filepath.Join(pyDir, "jobs.parquet"))
			if admission && declined == 0 || !admission && declined != 0 {
				t.Errorf("%d jobs declined", declined)
			}
		})
	}
}

// declinedJobs counts the rows of a jobs table whose state is declined (0
// for a table without the column).
func declinedJobs(t *testing.T, path string) int {
	t.Helper()
	tb := parquettest.ReadTable(t, path)
	defer tb.Release()
	idx := tb.Schema().FieldIndices("state")
	if len(idx) == 0 {
		return 0
	}
	c := concat(t, tb.Column(idx[0]))
	defer c.Release()
	n := 0
	for i := 0; i < c.Len(); i++ {
		if c.IsValid(i) && c.ValueStr(i) == "declined" {
			n++
		}
	}
	return n
}
