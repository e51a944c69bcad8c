package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/dirtest"
)

func summaryRunID(t *testing.T, dir string) string {
	t.Helper()
	var s struct {
		RunID string `json:"run_id"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.RunID
}

// TestLibraryRunMatchesCLI: a library caller's runner.Run gives the same
// outputs, byte for byte, and the same run_id as `polluxsim run` on the
// same inputs, and two different workloads get different run_ids.
func TestLibraryRunMatchesCLI(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	// The tables record the version that made them: the binary's (with
	// its VCS revision when the build stamped one), which the library run
	// is told, as a library caller's own binary would record its own.
	v := runBinary(t, dir, nil, "version")
	binVersion := strings.TrimSpace(strings.TrimPrefix(v.stdout, "polluxsim"))
	if v.code != 0 || binVersion == "" {
		t.Fatalf("polluxsim version: %q", v.stdout)
	}
	ids := map[string]string{}
	for _, wl := range []string{"paper:1", "paper:2"} {
		cli := filepath.Join(dir, "cli-"+wl[6:])
		if r := runBinary(t, dir, nil, "run", "--policy", "tiresias", "--workload", wl, "--no-timing", "--quiet", "--out", cli); r.code != 0 {
			t.Fatalf("run %s: exit %d: %s", wl, r.code, r.stderr)
		}
		lib := filepath.Join(dir, "lib-"+wl[6:])
		res, err := runner.Run(context.Background(), runspec.DefaultSpec("tiresias"), runner.Inputs{WorkloadRef: wl},
			runner.Options{Ext: testExt, Out: lib, NoTiming: true, Version: binVersion})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"jobs.parquet", "rounds.parquet", "cluster.parquet", "types.parquet"} {
			a, _ := os.ReadFile(filepath.Join(cli, f))
			b, _ := os.ReadFile(filepath.Join(lib, f))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs between the CLI and the library (%d and %d bytes)", wl, f, len(a), len(b))
			}
		}
		id := summaryRunID(t, cli)
		if id == "" || id != res.ID || summaryRunID(t, lib) != id {
			t.Errorf("%s: run_id %q from the CLI, %q from the library (%q in its summary.json)", wl, id, res.ID, summaryRunID(t, lib))
		}
		ids[wl] = id
	}
	if ids["paper:1"] == ids["paper:2"] {
		t.Errorf("two workloads share run_id %s", ids["paper:1"])
	}
}

// TestInterruptKeepsEarlierRun: SIGINT at any moment of a run into a
// folder holding an earlier complete run leaves either that run byte for
// byte or the new run complete (every table's run_id that of its
// summary.json), never a mix, and no temporary file.
func TestInterruptKeepsEarlierRun(t *testing.T) {
	bin := polluxsimBinary(t)
	out := filepath.Join(t.TempDir(), "out")
	if r := runBinary(t, "", nil, "run", "--policy", "fifo", "--workload", "paper:1", "--no-timing", "--quiet", "--out", out); r.code != 0 {
		t.Fatalf("earlier run: %s", r.stderr)
	}
	earlier := dirtest.Snapshot(t, out)
	earlierID := summaryRunID(t, out)
	outcomes := map[string]int{}
	for _, delay := range []time.Duration{0, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
		300 * time.Millisecond, 700 * time.Millisecond} {
		cmd := exec.Command(bin, "run", "--policy", "tiresias", "--jobs", "240", "--no-timing", "--quiet", "--out", out)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			outcomes["finished"]++
		case errors.As(err, &ee) && ee.ExitCode() == 1:
			if msg := strings.TrimSpace(stderr.String()); strings.Contains(msg, "\n") || !strings.Contains(msg, "polluxsim: interrupted") {
				t.Errorf("after %v: stderr %q", delay, msg)
			}
			outcomes["interrupted"]++
		case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled():
			// Before the handler was installed (the runtime starting):
			// nothing was made yet, the checks below still hold.
			outcomes["before the handler"]++
		default:
			t.Fatalf("after %v: %v (%s)", delay, err, stderr.String())
		}
		now := dirtest.Snapshot(t, out)
		for name := range now {
			if strings.HasPrefix(name, ".") {
				t.Errorf("after %v: left %s", delay, name)
			}
		}
		if id := summaryRunID(t, out); id == earlierID {
			if !dirtest.Equal(now, earlier) {
				t.Errorf("after %v: summary.json is the earlier run's but the tables changed", delay)
			}
			continue
		}
		// The new run, complete: every table carries its run_id.
		id := summaryRunID(t, out)
		for _, f := range []string{"jobs.parquet", "rounds.parquet", "cluster.parquet"} {
			if !bytes.Contains(now[f], []byte(id)) {
				t.Errorf("after %v: %s is not the new run %s's", delay, f, id)
			}
		}
		// Back to the earlier run for the next delay.
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		if r := runBinary(t, "", nil, "run", "--policy", "fifo", "--workload", "paper:1", "--no-timing", "--quiet", "--out", out); r.code != 0 {
			t.Fatal(r.stderr)
		}
	}
	t.Logf("outcomes: %v", outcomes)
}
