package app

// Faults beyond malformed run inputs, through the binary: special files at
// a single-file --out, strict experiment specs, capped warnings, the sweep
// lock.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/dirlock"
)

// oneLineError checks that r is a refusal: exit 1, one stderr line
// containing want, no panic.
func oneLineError(t *testing.T, r cliResult, want string) {
	t.Helper()
	msg := strings.TrimSpace(r.stderr)
	if r.code != 1 || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine ") ||
		!strings.HasPrefix(msg, "polluxsim: ") || !strings.Contains(msg, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line containing %q", r.code, r.stderr, want)
	}
}

// TestCLISpecialOut: the single-file writers refuse a named pipe or a
// folder at --out and leave it alone; a symbolic link is written through.
func TestCLISpecialOut(t *testing.T) {
	polluxsimBinary(t)
	log, _ := filepath.Abs(filepath.Join("..", "..", "..", "traces", "testdata", "cluster_job_log_small.json"))
	commands := map[string][]string{
		"generate":         {"workload", "generate", "--jobs", "5"},
		"philly":           {"workload", "philly", "--log", log},
		"summarize-philly": {"workload", "summarize-philly", "--philly", "table.csv"},
		"derive":           {"profiles", "derive", "--from", "prof"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			os.Mkdir(filepath.Join(dir, "folder"), 0o755)
			for out, want := range map[string]string{
				"fifo":   "--out fifo: not a regular file (a named pipe)",
				"folder": "--out folder: not a regular file (a folder)",
			} {
				oneLineError(t, runBinary(t, dir, nil, append(args, "--out", out)...), want)
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced")
			}
		})
	}
	// A symbolic link is written through: the link stays, its target
	// gets the workload.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "target.csv"), []byte("old"), 0o644)
	os.Symlink("target.csv", filepath.Join(dir, "link.csv"))
	if r := runBinary(t, dir, nil, "workload", "generate", "--jobs", "5", "--out", "link.csv"); r.code != 0 {
		t.Fatalf("generate through a link: %s", r.stderr)
	}
	st, err := os.Lstat(filepath.Join(dir, "link.csv"))
	data, _ := os.ReadFile(filepath.Join(dir, "target.csv"))
	if err != nil || st.Mode()&os.ModeSymlink == 0 || !strings.HasPrefix(string(data), workloadHeader) {
		t.Errorf("link replaced or target not written: %v %q", err, data)
	}
}

// TestCLIOutIsAnInput: a single-file writer refuses an --out that is the
// same file as its input (directly or through a link), and leaves the
// input as it was.
func TestCLIOutIsAnInput(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	log, _ := filepath.Abs(filepath.Join("..", "..", "..", "traces", "testdata", "cluster_job_log_small.json"))
	logData, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "log.json"), logData, 0o644)
	if r := runBinary(t, dir, nil, "workload", "philly", "--log", "log.json", "--out", "table.csv"); r.code != 0 {
		t.Fatalf("philly: %s", r.stderr)
	}
	table, _ := os.ReadFile(filepath.Join(dir, "table.csv"))
	os.Symlink("table.csv", filepath.Join(dir, "link.csv"))
	for _, c := range []struct {
		args []string
		want string
		file string
		data []byte
	}{
		{[]string{"workload", "philly", "--log", "log.json", "--out", "log.json"}, "--out log.json is the same file as --log log.json", "log.json", logData},
		{[]string{"workload", "generate", "--jobs", "2", "--philly", "table.csv", "--out", "link.csv"}, "--out link.csv is the same file as --philly table.csv", "table.csv", table},
		{[]string{"workload", "summarize-philly", "--philly", "table.csv", "--out", "table.csv"}, "--out table.csv is the same file as --philly table.csv", "table.csv", table},
	} {
		oneLineError(t, runBinary(t, dir, nil, c.args...), c.want)
		if got, _ := os.ReadFile(filepath.Join(dir, c.file)); string(got) != string(c.data) {
			t.Errorf("%v changed %s", c.args, c.file)
		}
	}
}

// TestCLISpecStrictness: an experiment spec is refused, before anything
// is written, for data after its JSON object, an explicit 0 where a
// positive number is needed, and a cell name too long for a file name.
func TestCLISpecStrictness(t *testing.T) {
	polluxsimBinary(t)
	spec := func(workloads, cell string) string {
		return `{"name": "t", "version": 1, "description": "d", "workloads": {` + workloads + `},
  "cells": [{"name": "` + cell + `", "policy": "fifo"}]}`
	}
	long := strings.Repeat("c", 236)
	cases := []struct{ name, spec, want string }{
		{"garbage after the object", spec(`"count": 1, "jobs": 4`, "a") + " ]]]", "t.json: unexpected data after the JSON object"},
		{"count 0", spec(`"count": 0`, "a"), `t.json: workloads: count must be at least 1, got 0`},
		{"jobs 0", spec(`"jobs": 0`, "a"), `t.json: workloads: jobs must be at least 1, got 0`},
		{"load 0", spec(`"load": 0`, "a"), `t.json: workloads: load must be positive, got 0`},
		{"cell load 0", strings.Replace(spec(`"count": 1`, "a"), `"policy": "fifo"`, `"policy": "fifo", "workload": {"load": 0}`, 1),
			`t.json: cell "a": workload: load must be positive, got 0`},
		{"cell jobs 0", strings.Replace(spec(`"count": 1`, "a"), `"policy": "fifo"`, `"policy": "fifo", "workload": {"jobs": 0}`, 1),
			`t.json: cell "a": workload: jobs must be at least 1, got 0`},
		{"long cell name", spec(`"count": 1, "jobs": 4`, long), "cell 1: name is 236 bytes long, at most 200"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(tc.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			oneLineError(t, runBinary(t, dir, nil, "sweep", "--quiet", "--experiment", "t.json", "--out", "out"), tc.want)
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("--out folder created")
			}
		})
	}
}

// TestCLIWarnings: warnings are capped like problems (ten, then a count),
// and a batch size far outside its application's range is a warning
// naming the line and the range.
func TestCLIWarnings(t *testing.T) {
	dir := t.TempDir()
	var extra []string
	for i := 0; i < 100000; i++ {
		extra = append(extra, "x"+strconv.Itoa(i))
	}
	w := workloadHeader[:len(workloadHeader)-1] + "," + strings.Join(extra, ",") + "\n" +
		"a,0,cifar10,1,99999999" + strings.Repeat(",", len(extra)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "w.csv"), []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, dir, nil, "run", "--quiet", "--policy", "fifo", "--workload", "w.csv", "--out", "out")
	if r.code != 0 {
		t.Fatalf("exit %d\n%.2000s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 12 || lines[10] != "warning: ... and 99990 more warnings" {
		t.Errorf("%d warning lines, want 10, a count and the batch warning:\n%.3000s", len(lines), r.stderr)
	}
	want := `warning: w.csv:2: job "a": column "batch_size": 99999999 is far outside cifar10's range 32..4096`
	if !strings.HasPrefix(lines[len(lines)-1], want) {
		t.Errorf("last line %q, want it to start with %q", lines[len(lines)-1], want)
	}
}

// TestSweepLock: a second sweep into a folder a sweep holds exits 1 naming
// the holder; a lock left by a sweep killed while it held the lock does not
// block. The spec is two runs: a Pollux run of a few seconds, which the
// killed sweep is in when it is killed, and a FIFO run of a fraction of a
// second, the only one of shard 0/2, which the sweep after the kill runs to
// show that it proceeds.
func TestSweepLock(t *testing.T) {
	bin := polluxsimBinary(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "lock.json")
	if err := os.WriteFile(spec, []byte(`{"name": "lock", "version": 1, "workloads": {"count": 1, "jobs": 240},
"cells": [{"name": "fifo", "policy": "fifo"}, {"name": "pollux", "policy": "pollux"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	release, err := dirlock.Acquire(out, "test holder")
	if err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, dir, nil, "sweep", "--quiet", "--experiment", spec, "--out", "out")
	oneLineError(t, r, fmt.Sprintf("--out out is in use by pid %d", os.Getpid()))
	if n := countRunFiles(out); n != 0 {
		t.Errorf("the refused sweep stored %d runs", n)
	}
	release()

	// A sweep killed with SIGKILL while it holds the lock leaves the lock
	// file behind; the next sweep goes on.
	cmd := exec.Command(bin, "sweep", "--quiet", "--experiment", spec, "--out", out, "--parallel", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	lockFile := filepath.Join(out, dirlock.FileName)
	holder := fmt.Sprintf("pid %d on ", cmd.Process.Pid)
	for deadline := time.Now().Add(time.Minute); ; {
		if data, err := os.ReadFile(lockFile); err == nil && strings.HasPrefix(string(data), holder) {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the sweep ended (%v) before it was seen holding the lock", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the sweep did not take the lock within a minute")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = <-exited
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the sweep was not killed by SIGKILL (%v): it ended before the kill", err)
	}
	// The release removes the file: still there naming the killed sweep,
	// the lock was held when the kill came.
	if data, err := os.ReadFile(lockFile); err != nil || !strings.HasPrefix(string(data), holder) {
		t.Fatalf("after the kill the lock file holds %q (%v), want the killed sweep's %q", data, err, holder)
	}
	r = runBinary(t, dir, nil, "sweep", "--quiet", "--no-timing", "--experiment", spec, "--out", "out", "--shard", "0/2")
	if _, err := os.Stat(filepath.Join(out, sweep.CellsDir, "fifo.w1.json")); r.code != 0 || err != nil || countRunFiles(out) != 1 {
		t.Errorf("sweep after a killed one: exit %d, %d runs (fifo.w1: %v)\n%s", r.code, countRunFiles(out), err, r.stderr)
	}
	if _, err := os.Stat(lockFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sweep after the killed one left the lock file (%v)", err)
	}
}

// TestReportOutInSweepFolder: report refuses to overwrite one of the sweep
// folder's own (non-HTML) files, also through symbolic links, or any other
// existing file that is not HTML, and accepts an HTML file or a new file
// outside the sweep folder. Inside it, a new file must be HTML too: a new
// cells/RUN.json would later be read as a stored run.
func TestReportOutInSweepFolder(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep")
	os.MkdirAll(filepath.Join(sweep, "cells"), 0o755)
	for _, f := range []string{"experiment.json", "report.html", "cells/a.json"} {
		os.WriteFile(filepath.Join(sweep, f), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "other.json"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "old.html"), []byte("x"), 0o644)
	os.Symlink("sweep", filepath.Join(dir, "link"))
	os.Symlink("sweep/experiment.json", filepath.Join(dir, "exp.html"))
	for out, refused := range map[string]bool{
		"sweep/experiment.json": true,
		"sweep/cells/a.json":    true,
		"link/experiment.json":  true,
		"exp.html":              true, // a link to the sweep's experiment.json
		"other.json":            true,
		"sweep/report.html":     false,
		"sweep/new.json":        true,
		"sweep/cells/b.json":    true,
		"sweep/new.html":        false,
		"old.html":              false,
		"new.txt":               false,
	} {
		err := checkReportOut(filepath.Join(dir, out), sweep)
		if (err != nil) != refused {
			t.Errorf("--out %s: got %v, want refused %v", out, err, refused)
		}
	}
}

// TestSweepRefusesInfeasibleRun: a sweep's run that cannot finish within
// the engine's time limit is refused before it is simulated, as run
// refuses it, in one line.
func TestSweepRefusesInfeasibleRun(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	spec := `{"name":"u30k","version":1,"workloads":{"count":1,"jobs":4},"settings":{"nodes":1,"gpus_per_node":1},
"cells":[{"name":"t","policy":"tiresias","workload":{"uniform":{"app":"cifar10","gpus":1,"batch":128},"jobs":30000}}]}`
	if err := os.WriteFile(filepath.Join(dir, "u.json"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	// (Simulated first, it would stop with "simulation did not finish".)
	r := runBinary(t, dir, nil, "sweep", "--experiment", "u.json", "--out", "o", "--quiet")
	oneLineError(t, r, "needs at least 3.36e+04 GPU-hours, so at least 1.21e+08 s of simulated time")
}

// TestCLIInterruptedRun: SIGINT or SIGTERM during a run into a new folder
// leaves no folder (no hidden temporary file either) and one line, exit 1.
func TestCLIInterruptedRun(t *testing.T) {
	bin := polluxsimBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(bin, "run", "--quiet", "--jobs", "480", "--out", out)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the streamed rounds' temporary file: the run is under way.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(out, ".rounds.parquet.stream-*")); len(m) > 0 {
				break
			}
		}
		_ = cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Logf("%v: the run ended before the signal (%v)", sig, err)
			continue
		}
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "\n") || !strings.Contains(msg, "polluxsim: interrupted") {
			t.Errorf("%v: stderr %q", sig, msg)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			ents, _ := os.ReadDir(out)
			t.Errorf("%v: the output folder is still there (%v, %d entries)", sig, err, len(ents))
		}
	}
}

// TestCLIOutInsideAnInputFolder: a single-file --out inside an input
// folder (--profiles, --from), or the same file as a --profiles file, is
// refused and the input left as it was.
func TestCLIOutInsideAnInputFolder(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "prof", "traces"), 0o755)
	os.WriteFile(filepath.Join(dir, "prof", "traces", "keep.csv"), []byte("keep"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.json"), []byte("keep"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"workload", "generate", "--jobs", "2", "--profiles", "prof", "--out", "prof/traces/keep.csv"}, "--out prof/traces/keep.csv is inside --profiles prof"},
		{[]string{"profiles", "derive", "--from", "prof", "--out", "prof/traces/keep.csv"}, "--out prof/traces/keep.csv is inside --from prof"},
		{[]string{"workload", "generate", "--jobs", "2", "--profiles", "p.json", "--out", "p.json"}, "--out p.json is the same file as --profiles p.json"},
	} {
		oneLineError(t, runBinary(t, dir, nil, c.args...), c.want)
	}
	for _, f := range []string{"prof/traces/keep.csv", "p.json"} {
		if data, _ := os.ReadFile(filepath.Join(dir, f)); string(data) != "keep" {
			t.Errorf("%s changed", f)
		}
	}
}
