package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISweepWorkloadsOnlyRefusals: a bad --workloads-only is one line
// naming the flag, exit 1, and nothing written.
func TestCLISweepWorkloadsOnlyRefusals(t *testing.T) {
	dir := t.TempDir()
	for value, want := range map[string]string{"0": "--workloads-only \"0\"", "1,x": "--workloads-only \"1,x\"", "9": "no workload 9 (its workloads are 1..8)"} {
		r := runBinary(t, dir, nil, "sweep", "--experiment", "table2", "--workloads-only", value, "--out", "out", "--quiet")
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("--workloads-only %s: exit %d, stderr %q; want exit 1 and one line with %q", value, r.code, r.stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
			t.Errorf("--workloads-only %s: the output folder was made (%v)", value, err)
		}
	}
}
