package external_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/policies/external"
	"github.com/polluxsim/polluxsim/profiles"
)

// TestCodeDigest: the digest covers the command's words that name
// existing files, by content: "" without one, the same for the same
// content, another when a file's content changes or when another file is
// named; words that are not files (flags, a program on PATH) do not count
// beyond the file words' positions.
func TestCodeDigest(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.py"), filepath.Join(dir, "b.py")
	write := func(name, content string) {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "print('a')\n")
	write(b, "print('a')\n") // the same content as a.py, another name
	digest := func(argv ...string) string {
		t.Helper()
		d, err := external.CodeDigest(argv)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := digest("python3", "--full", filepath.Join(dir, "missing.py"), dir); d != "" {
		t.Errorf("no file among the words (a flag, a missing file, a folder): digest %q, want none", d)
	}
	d1 := digest("python3", a, "--full")
	if d1 == "" || d1 != digest("python3", a, "--full") {
		t.Fatalf("digest of a script: %q, then %q; want one non-empty value", d1, digest("python3", a, "--full"))
	}
	if digest("python3", b, "--full") == d1 {
		t.Error("another script of the same content has the same digest: the script's name is not covered")
	}
	if digest("python3", a, "--full", b) == d1 {
		t.Error("naming a second file does not change the digest")
	}
	write(a, "print('b')\n")
	if digest("python3", a, "--full") == d1 {
		t.Error("editing the script does not change the digest")
	}
}

// TestSweepRerunsEditedScript: a sweep of a Python policy script, rerun
// after the script is edited, re-runs the cell (it is not "already done")
// and stores the edited policy's results under another run hash; rerun
// without an edit, it skips it.
func TestSweepRerunsEditedScript(t *testing.T) {
	py := needPython(t)
	script := filepath.Join(t.TempDir(), "order.py")
	// The user's workflow: a copy of the example policy, then an edit of
	// its sort key (largest requests first).
	example, err := os.ReadFile(filepath.Join(repoRoot(t), "python", "examples", "smallest_first.py"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(example), "os.path.join(os.path.dirname(os.path.abspath(__file__)), \"..\")",
		fmt.Sprintf("%q", filepath.Join(repoRoot(t), "python")), 1)
	const key = "key=lambda i: (jobs[i].request.gpus,"
	if !strings.Contains(src, key) {
		t.Fatalf("smallest_first.py has no %q to edit", key)
	}
	policy := func(descending bool) {
		code := src
		if descending {
			code = strings.Replace(code, key, "key=lambda i: (-jobs[i].request.gpus,", 1)
		}
		if err := os.WriteFile(script, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := json.Marshal(map[string]any{"name": "edit", "version": 1, "workloads": map[string]int{"count": 1},
		"cells": []any{map[string]any{"name": "c", "policy": "external",
			"options": map[string]string{"command": fmt.Sprintf("'%s' '%s'", py, script)}}}})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := experiments.ParseExperiment(spec, "edit", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sweep")
	set := profiles.Default()
	run := func() (*sweep.SweepReport, *results.RunResult) {
		t.Helper()
		rep, err := sweep.Sweep(context.Background(), exp, sweep.SweepOptions{Profiles: set, ProfilesID: set.Digest, Out: out,
			Parallel: 1, NoTiming: true, Version: "test", Spec: spec})
		if err != nil {
			t.Fatal(err)
		}
		r, err := results.ReadRunResult(sweep.RunPath(out, exp.Runs()[0].ID()))
		if err != nil {
			t.Fatal(err)
		}
		return rep, r
	}
	policy(false)
	rep, first := run()
	if rep.Ran != 1 {
		t.Fatalf("first sweep ran %d runs, want 1", rep.Ran)
	}
	if first.PolicyName != "smallest-first" {
		t.Errorf("the stored run's policy_name is %q, want the script's handshake name \"smallest-first\"", first.PolicyName)
	}
	if rep, _ = run(); rep.Ran != 0 || rep.Skipped != 1 {
		t.Errorf("unchanged script: the sweep ran %d and skipped %d runs, want 0 and 1", rep.Ran, rep.Skipped)
	}
	policy(true)
	rep, edited := run()
	if rep.Ran != 1 || rep.Skipped != 0 {
		t.Fatalf("edited script: the sweep ran %d and skipped %d runs, want 1 and 0 (it said already done)", rep.Ran, rep.Skipped)
	}
	if edited.Hash == first.Hash {
		t.Errorf("edited script: the run's hash %s did not change", strings.TrimSpace(first.Hash))
	}
	if edited.Summary.AvgJCT == first.Summary.AvgJCT {
		t.Errorf("edited script (largest first instead of smallest first): average JCT %v unchanged, want the edited policy's",
			first.Summary.AvgJCT)
	}
	t.Logf("average JCT %.0f s smallest first, %.0f s largest first", first.Summary.AvgJCT, edited.Summary.AvgJCT)
}
