package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/parquettest"
	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/profiles"
)

// tinySpecPath is the test-only experiment: 20 runs of a few jobs.
func tinySpecPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "experiments", "internal", "exptest", "tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func baselinePath(name string) string {
	return filepath.Join("..", "..", "..", "experiments", "baselines", name+".json")
}

// TestSweepBadInput: every bad input is one error line before anything is
// written.
func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--experiment", "fig10", "--out", out}, `unknown experiment "fig10" (did you mean fig7, fig8a, fig8b, fig8c or fig9? known: ci, ci-real, deadlines, failures, failures-policies, fig7, fig8a, fig8b, fig8c, fig9, gavel, itp, llm, priors, sia, sia-table3, table2, table2-sia, table3; or give a spec file path)`},
		{[]string{"--experiment", "ci", "--out", out, "--shard", "3/3"}, `--shard "3/3": the shard index must be in 0..2`},
		{[]string{"--experiment", "ci", "--out", out, "--shard", "1/0"}, `--shard "1/0": the number of shards must be at least 1`},
		{[]string{"--experiment", "ci", "--out", out, "--shard", "x"}, `--shard "x": want i/n, e.g. 0/3`},
		{[]string{"--experiment", "ci", "--out", out, "--parallel", "0"}, "--parallel must be at least 1, got 0"},
		{[]string{"--experiment", "ci", "--out", out, "--parallel", "NaN"}, `invalid argument "NaN" for "--parallel" flag: not a whole number`},
		{[]string{"--experiment", "ci"}, "--out DIR is required"},
		{[]string{"--out", out}, "--experiment NAME is required"},
		{[]string{"--experiment", "ci", "--out", out, "--workloads", filepath.Join(dir, "none")}, "not a folder"},
		{[]string{"--experiment", "ci", "--out", out, "--profiles", filepath.Join(dir, "none")}, "no such file or folder"},
		{[]string{"--experiment", filepath.Join(dir, "none.json"), "--out", out}, "no such file"},
	} {
		printed, err := runCLI(t, append([]string{"sweep"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("sweep %v: error %v, want one line containing %q", tc.args, err, tc.want)
		}
		if printed != "" {
			t.Errorf("sweep %v printed %q", tc.args, printed)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("sweep %v created %s", tc.args, out)
		}
	}
	// A folder holding another experiment's results is refused.
	if err := os.WriteFile(filepath.Join(dir, sweep.ExperimentFile), []byte(`{"name": "ci"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "sweep", "--experiment", "ci-real", "--out", dir); err == nil || !strings.Contains(err.Error(), `holds the results of experiment "ci"`) {
		t.Errorf("sweep into another experiment's folder: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a refused sweep wrote into %s", dir)
	}
	printed, err := runCLI(t, "sweep", "--list")
	if err != nil || !strings.Contains(printed, "fig8a") || !strings.Contains(printed, "96") || !regexp.MustCompile(`(?m)^itp +1 +32 +160 +`).MatchString(printed) {
		t.Errorf("--list: %v\n%s", err, printed)
	}
}

// A registered experiment's name is the experiment, never a path, even
// run from a folder holding a folder of that name (the output of a
// previous sweep, --out deadlines): it said "--out deadlines:
// deadlines/results.parquet is inside --experiment deadlines, an input
// folder". The run gets past that check to the next one (--workloads).
func TestSweepExperimentNameNotAPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "deadlines"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, err := runCLI(t, "sweep", "--experiment", "deadlines", "--out", "deadlines", "--workloads", "none")
	if err == nil || !strings.Contains(err.Error(), "--workloads none: not a folder") {
		t.Errorf("sweep --experiment deadlines --out deadlines: %v, want only --workloads refused", err)
	}
	if !experiments.IsSpecFile("./deadlines") || !experiments.IsSpecFile("deadlines.json") || experiments.IsSpecFile("deadlines") {
		t.Error("IsSpecFile: want ./deadlines and deadlines.json files, deadlines a name")
	}
}

func countRunFiles(dir string) int {
	ents, _ := os.ReadDir(filepath.Join(dir, sweep.CellsDir))
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// readRunColumn returns the run column of a results.parquet.
func readRunColumn(t *testing.T, path string) []string {
	t.Helper()
	tbl := parquettest.ReadTable(t, path)
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices("run")
	if len(idx) != 1 {
		t.Fatal("results.parquet has no run column")
	}
	var runs []string
	for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
		runs = append(runs, parquettest.Strings(ch)...)
	}
	return runs
}

// TestSweepKillResume: a sweep killed with SIGKILL halfway and run again
// ends with every run in results.parquet exactly once, and the same
// summary as an uninterrupted sweep. The spec is its own, so that the kill
// lands mid-sweep however loaded the machine: the sweep runs its costliest
// runs first, four Pollux runs of a fifth of a second or more each, and is
// killed once the first is stored, with the other three, and eight fast
// Tiresias and FIFO runs, still to come.
func TestSweepKillResume(t *testing.T) {
	bin := polluxsimBinary(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "kill.json")
	if err := os.WriteFile(spec, []byte(`{"name": "kill", "version": 1, "workloads": {"count": 4, "jobs": 64},
"options": {"pollux": {"population": 16, "generations": 8}},
"cells": [{"name": "pollux", "policy": "pollux"}, {"name": "tiresias", "policy": "tiresias"}, {"name": "fifo", "policy": "fifo"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const total = 12
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "--experiment", spec, "--out", out, "--parallel", "1", "--no-timing"}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for countRunFiles(out) < 1 {
		select {
		case err := <-exited:
			t.Fatalf("sweep ended (%v) before it could be killed with %d runs done\n%s", err, countRunFiles(out), stderr.String())
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no runs stored after two minutes")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	killedAt := countRunFiles(out)
	if killedAt >= total {
		t.Skip("the sweep finished before SIGKILL arrived; nothing to resume")
	}
	if _, err := os.Stat(filepath.Join(out, sweep.ResultsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a killed sweep left results.parquet (%v)", err)
	}
	res, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, res)
	}
	if want := fmt.Sprintf("%d runs, %d already done, %d to run", total, killedAt, total-killedAt); !strings.Contains(string(res), want) {
		t.Errorf("rerun output lacks %q:\n%s", want, res)
	}
	runs := readRunColumn(t, filepath.Join(out, sweep.ResultsFile))
	seen := map[string]int{}
	for _, r := range runs {
		seen[r]++
	}
	e, _, err := experiments.LoadExperiment(spec, testExt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Runs() {
		if seen[r.ID()] != 1 {
			t.Errorf("run %s appears %d times in results.parquet", r.ID(), seen[r.ID()])
		}
	}
	if len(runs) != total || countRunFiles(out) != total {
		t.Errorf("%d rows, %d run files; want %d", len(runs), countRunFiles(out), total)
	}
	// Same summary as one uninterrupted sweep.
	clean := filepath.Join(t.TempDir(), "clean")
	if printed, err := runCLI(t, "sweep", "--experiment", spec, "--out", clean, "--no-timing", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	a, _ := os.ReadFile(filepath.Join(out, sweep.SummaryFile))
	b, _ := os.ReadFile(filepath.Join(clean, sweep.SummaryFile))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("summary.json of the killed and resumed sweep differs from an uninterrupted one")
	}
	// Bad input through the binary: one line on stderr, exit status 1.
	bad := exec.Command(bin, "sweep", "--experiment", "ci", "--out", filepath.Join(out, "x"), "--shard", "3/3")
	var berr bytes.Buffer
	bad.Stderr = &berr
	err = bad.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Count(berr.String(), "\n") != 1 {
		t.Errorf("bad shard: %v, stderr %q", err, berr.String())
	}
}

// TestCIRegression runs the ci experiment on the embedded profiles and
// checks it against its baseline; a baseline with one number changed
// fails, naming the cell.
func TestCIRegression(t *testing.T) {
	out := t.TempDir()
	if printed, err := runCLI(t, "sweep", "--experiment", "ci", "--out", out, "--no-timing", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	printed, err := runCLI(t, "regress", "--baseline", baselinePath("ci"), "--in", out)
	if err != nil {
		t.Fatalf("ci drifted from its baseline: %v\n%s", err, printed)
	}
	if !strings.Contains(printed, "ok: all 7 baseline numbers") {
		t.Errorf("regress output:\n%s", printed)
	}
	data, err := os.ReadFile(baselinePath("ci"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sweep.ReadBaseline(outputs.Metrics{}, baselinePath("ci"))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range b.Cells {
		if c.Cell == "tiresias" && c.Metric == "" {
			b.Cells[i].Expected *= 1.03 // beyond its 0.5 % tolerance
		}
	}
	changed := filepath.Join(t.TempDir(), "ci.json")
	if err := sweep.WriteBaseline(changed, b); err != nil {
		t.Fatal(err)
	}
	printed, err = runCLI(t, "regress", "--baseline", changed, "--in", out)
	if err == nil || !strings.Contains(err.Error(), "1 of 7 baseline numbers") || !strings.Contains(err.Error(), "tiresias avg_jct_s") {
		t.Errorf("changed baseline: %v\n%s", err, printed)
	}
	if !strings.Contains(printed, "DRIFT") {
		t.Errorf("regress table lacks DRIFT:\n%s", printed)
	}
	// --update writes the results back as expected values.
	if _, err := runCLI(t, "regress", "--baseline", changed, "--in", out, "--update"); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "regress", "--baseline", changed, "--in", out); err != nil {
		t.Errorf("after --update: %v", err)
	}
	if len(data) == 0 {
		t.Error("empty baseline")
	}
	// A shard holds only some runs: refused, for comparing and updating.
	shard := t.TempDir()
	if printed, err := runCLI(t, "sweep", "--experiment", "ci", "--shard", "0/2", "--out", shard, "--no-timing", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	for _, extra := range [][]string{nil, {"--update"}} {
		args := append([]string{"regress", "--baseline", changed, "--in", shard}, extra...)
		if _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), "finish the sweep or merge its shards") {
			t.Errorf("regress %v on a shard: %v", extra, err)
		}
	}
}

// TestRealDataRegression runs the ci-real experiment on the reference
// profiles and checks its baseline.
func TestRealDataRegression(t *testing.T) {
	ref := refdata.Dir(t)
	out := t.TempDir()
	if printed, err := runCLI(t, "sweep", "--experiment", "ci-real", "--profiles", ref, "--out", out, "--no-timing", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	printed, err := runCLI(t, "regress", "--baseline", baselinePath("ci-real"), "--in", out)
	if err != nil {
		t.Fatalf("ci-real drifted from its baseline: %v\n%s", err, printed)
	}
	if !strings.Contains(printed, "ok: all 4 baseline numbers") {
		t.Errorf("regress output:\n%s", printed)
	}
}

// TestShardMergePlotCLI: two shards merged give the whole sweep; plot
// draws its figures.
func TestShardMergePlotCLI(t *testing.T) {
	spec := tinySpecPath(t)
	dir := t.TempDir()
	var shards []string
	for i := 0; i < 2; i++ {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		printed, err := runCLI(t, "sweep", "--experiment", spec, "--shard", fmt.Sprintf("%d/2", i), "--out", d, "--quiet", "--no-timing")
		if err != nil {
			t.Fatalf("%v\n%s", err, printed)
		}
		if !strings.Contains(printed, "10 of 20 runs present") {
			t.Errorf("shard %d output:\n%s", i, printed)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	printed, err := runCLI(t, append([]string{"merge", "--out", merged}, shards...)...)
	if err != nil || !strings.Contains(printed, "merged 2 folders: 20 of 20 runs") || !strings.Contains(printed, "Pollux / Optimus") {
		t.Fatalf("merge: %v\n%s", err, printed)
	}
	if _, err := runCLI(t, "merge", shards[0]); err == nil || !strings.Contains(err.Error(), "--out DIR is required") {
		t.Errorf("merge without --out: %v", err)
	}
	// A shard made with other profiles is not merged with the others.
	compact := filepath.Join(dir, "compact.json")
	if f, err := profiles.DefaultFile(); err != nil || f.WriteFile(compact) != nil {
		t.Fatalf("writing the embedded profiles: %v", err)
	}
	other := filepath.Join(dir, "shard-1-other")
	if printed, err := runCLI(t, "sweep", "--experiment", spec, "--shard", "1/2", "--out", other, "--quiet", "--no-timing", "--profiles", compact); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	_, err = runCLI(t, "merge", "--out", filepath.Join(dir, "mixed"), shards[0], other)
	if err == nil || !strings.Contains(err.Error(), "were made with other profiles") {
		t.Errorf("merge of shards with different profiles: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mixed")); err == nil {
		t.Error("the refused merge created its --out folder")
	}
	plots := filepath.Join(dir, "plots")
	printed, err = runCLI(t, "plot", "--in", merged, "--out", plots)
	if err != nil || strings.Count(printed, "wrote ") != 8 {
		t.Fatalf("plot: %v\n%s", err, printed)
	}
	for _, f := range []string{"jct.png", "timeline.svg", "lines.png", "rho.svg"} {
		if st, err := os.Stat(filepath.Join(plots, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if strings.Contains(printed, "warning") {
		t.Errorf("plot of a complete sweep warned:\n%s", printed)
	}
	// A shard holds half the runs: plotted, but not silently.
	printed, err = runCLI(t, "plot", "--in", shards[0], "--out", filepath.Join(dir, "shard-plots"))
	if err != nil || !strings.Contains(printed, "warning: 10 of 20 runs of experiment") || !strings.Contains(printed, "plotting without them") {
		t.Errorf("plot of a shard: %v\n%s", err, printed)
	}
	if _, err := runCLI(t, "plot", "--in", dir, "--out", plots); err == nil || !strings.Contains(err.Error(), "not a sweep's output folder") {
		t.Errorf("plot of a non-sweep folder: %v", err)
	}
}
