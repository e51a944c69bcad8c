package app

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/parquettest"
)

// TestCLIPolicyName: a run records the name its policy reports of itself
// as policy_name: an external policy's child's handshake name (the
// Python smallest-first example says "smallest-first") in the summary
// line, summary.json and every row of jobs.parquet, beside policy
// "external"; a built-in policy's policy_name is the policy.
func TestCLIPolicyName(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the external policy's name is not checked (.ci/run installs it)")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		policy     string
		name, line string
	}{
		{[]string{"--policy", "external", "--policy-opt", "command='" + py + "' python/examples/smallest_first.py"},
			"external", "smallest-first", "policy external (policy_name smallest-first): "},
		{[]string{"--policy", "tiresias"}, "tiresias", "tiresias", "policy tiresias: "},
	} {
		out := filepath.Join(t.TempDir(), "run")
		r := runBinary(t, root, nil, append([]string{"run", "--workload", "paper:1", "--no-timing", "--quiet", "--out", out}, c.args...)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", c.policy, r.code, r.stderr)
		}
		if !strings.HasPrefix(r.stdout, c.line) {
			t.Errorf("%s: the summary line is %q, want it to start %q", c.policy, strings.SplitN(r.stdout, "\n", 2)[0], c.line)
		}
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Policy     string  `json:"policy"`
			PolicyName *string `json:"policy_name"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if s.Policy != c.policy || s.PolicyName == nil || *s.PolicyName != c.name {
			t.Errorf("%s: summary.json policy %q, policy_name %v; want %q and %q", c.policy, s.Policy, s.PolicyName, c.policy, c.name)
		}
		jobs := parquettest.ReadTable(t, filepath.Join(out, "jobs.parquet"))
		idx := jobs.Schema().FieldIndices("policy_name")
		if len(idx) != 1 {
			jobs.Release()
			t.Fatalf("%s: jobs.parquet has no policy_name column", c.policy)
		}
		rows := 0
		for _, chunk := range jobs.Column(idx[0]).Data().Chunks() {
			for _, v := range parquettest.Strings(chunk) {
				rows++
				if v != c.name {
					t.Errorf("%s: a job's policy_name is %q, want %q", c.policy, v, c.name)
					break
				}
			}
		}
		if rows == 0 || int64(rows) != jobs.NumRows() {
			t.Errorf("%s: %d policy_name values of %d rows", c.policy, rows, jobs.NumRows())
		}
		jobs.Release()
	}
}
