package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

var overCapacityRegistration = policies.Registration{
	Name: "over-capacity", Doc: "every job on node 0 (a broken policy)",
	New: func(any, policies.Env) (policies.Policy, error) {
		return conformance.OverCapacity{PolicyName: "over-capacity"}, nil
	},
}

// conformanceChecks are the names the command prints a line for: every
// scenario of the suite, then the option bounds.
func conformanceChecks() []string {
	var names []string
	for _, sc := range conformance.Scenarios() {
		names = append(names, sc.Name)
	}
	return append(names, optionBoundsCheck)
}

// TestConformanceCommand: a built-in policy passes with a line "ok NAME"
// per check; a broken policy added to the binary fails with status 1, a
// FAIL line per scenario it breaks followed by the violations the suite
// finds (conformance.CheckRegistered, the same as a Go test's), and one
// error line naming the rule and the scenarios; -o json gives the same
// checks.
func TestConformanceCommand(t *testing.T) {
	out, _, err := execute(t, "conformance", "--policy", "tiresias")
	if err != nil {
		t.Fatalf("tiresias: %v", err)
	}
	var want []string
	for _, n := range conformanceChecks() {
		want = append(want, "ok   "+n)
	}
	want = append(want, fmt.Sprintf("policy tiresias passes the conformance suite (%d checks)", len(conformanceChecks())))
	if got := strings.Split(strings.TrimSpace(out), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tiresias:\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}

	reg := policies.MustRegistry(overCapacityRegistration)
	vs, err := conformance.CheckRegistered(reg, "over-capacity")
	if err != nil || len(vs) == 0 {
		t.Fatalf("the suite on the broken policy: %v, %v", vs, err)
	}
	root := NewCommand(WithPolicy(overCapacityRegistration))
	var o, e bytes.Buffer
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetArgs([]string{"conformance", "--policy", "over-capacity"})
	err = root.Execute()
	if err == nil {
		t.Fatalf("the broken policy passed:\n%s", o.String())
	}
	failed := map[string]bool{}
	for _, v := range vs {
		failed[v.Scenario] = true
		if !strings.Contains(o.String(), "\n     "+v.Error()+"\n") {
			t.Errorf("violation %q not printed:\n%s", v.Error(), o.String())
		}
	}
	for _, n := range conformanceChecks() {
		line := "ok   " + n + "\n"
		if failed[n] {
			line = "FAIL " + n + "\n"
		}
		if !strings.Contains(o.String(), line) {
			t.Errorf("no line %q:\n%s", line, o.String())
		}
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "over-capacity fails") || !strings.Contains(msg, "of capacity in empty-cluster, oversubscribed") {
		t.Errorf("error %q: want one line naming the policy, the rule and the scenarios", msg)
	}

	root = NewCommand(WithPolicy(overCapacityRegistration))
	o.Reset()
	root.SetOut(&o)
	root.SetArgs([]string{"conformance", "--policy", "over-capacity", "-o", "json"})
	if err := root.Execute(); err == nil {
		t.Error("-o json: the broken policy passed")
	}
	var rep conformanceReport
	if err := json.Unmarshal(o.Bytes(), &rep); err != nil {
		t.Fatalf("-o json: %v\n%s", err, o.String())
	}
	n := 0
	for i, c := range rep.Checks {
		n += len(c.Violations)
		if c.Name != conformanceChecks()[i] || c.OK != !failed[c.Name] {
			t.Errorf("-o json check %d: %+v", i, c)
		}
	}
	if rep.OK || rep.Policy != "over-capacity" || n != len(vs) {
		t.Errorf("-o json: ok %v, policy %q, %d violations; want false, over-capacity, %d", rep.OK, rep.Policy, n, len(vs))
	}
}

// TestConformanceCommandFlags: a missing or unknown policy, a bad option
// and a policy that does not start are one line naming the flag, before
// any check runs.
func TestConformanceCommandFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--policy: name the policy"},
		{[]string{"--policy", "tiresias-x"}, `--policy: unknown policy "tiresias-x"`},
		{[]string{"--policy", "tiresias", "--policy-opt", "demote_gpu_hours=-1"}, "demote_gpu_hours"},
		{[]string{"--policy", "tiresias", "-o", "yaml"}, "-o/--output"},
		{[]string{"--policy", "external", "--policy-opt", "command=/nonexistent/policy"}, "--policy: "},
	} {
		out, _, err := execute(t, append([]string{"conformance"}, tc.args...)...)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.want) || out != "" {
			t.Errorf("%v: %v (stdout %q); want one line with %q", tc.args, err, out, tc.want)
		}
	}
}

// TestConformanceCommandPython: python/examples/broken.py fails through
// the binary with status 1 naming the capacity rule; fifo.py passes.
// Skips without python3 (.ci/run installs it) and with -short.
func TestConformanceCommandPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python policies' conformance runs take a minute")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found (.ci/run installs it)")
	}
	polluxsimBinary(t)
	dir := t.TempDir()
	command := func(name string) string {
		abs, err := filepath.Abs(filepath.Join("..", "..", "..", "python", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		return "command='" + py + "' '" + abs + "'"
	}
	r := runBinary(t, dir, nil, "conformance", "--policy", "external", "--policy-opt", command("broken.py"))
	if r.code != 1 || !strings.Contains(r.stderr, "policy external fails the conformance suite") || !strings.Contains(r.stderr, "of capacity in empty-cluster") ||
		!strings.Contains(r.stdout, "FAIL oversubscribed\n") || !strings.Contains(r.stdout, "capacity: node 0 holds") {
		t.Errorf("broken.py: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, dir, nil, "conformance", "--policy", "external", "--policy-opt", command("fifo.py"))
	if r.code != 0 || !strings.Contains(r.stdout, "policy external passes the conformance suite") || strings.Contains(r.stdout, "FAIL") {
		t.Errorf("fifo.py: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
