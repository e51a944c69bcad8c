package external_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/external"
)

// pickyFIFO is a Python policy both incremental and with admission
// control: the FIFO port, declining the jobs whose names end in an odd
// digit.
const pickyFIFO = `import sys
sys.path.insert(0, %q)
sys.path.insert(0, %q)
import polluxsim_policy as pp
from fifo import FIFO


class Picky(FIFO):
    name = "picky-fifo"

    def admit(self, now, cluster, job, active):
        return "odd" if int(job.name[-1]) %% 2 else None


if __name__ == "__main__":
    pp.main(Picky())
`

// TestAdmittingIncremental: a child that decides incrementally and has
// admission control is both (external.AdmittingIncremental); in a run
// decided incrementally (--rounds changes) and in full rounds it declines
// the same jobs, with its reason, and the two runs' tables are equal.
func TestAdmittingIncremental(t *testing.T) {
	py := needPython(t)
	script := filepath.Join(t.TempDir(), "picky.py")
	src := fmt.Sprintf(pickyFIFO, filepath.Join(repoRoot(t), "python"), filepath.Join(repoRoot(t), "python", "examples"))
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := external.Start(external.Config{Argv: []string{py, script}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, inc := p.(policies.Incremental)
	_, adm := p.(policies.Admitter)
	if _, ok := p.(*external.AdmittingIncremental); !ok || !inc || !adm {
		t.Errorf("%T: incremental %v, admitter %v", p, inc, adm)
	}
	policies.Close(p)
	dirs := map[string]string{}
	for _, rounds := range []string{"all", "changes"} {
		spec, err := runspec.DefaultSpec("external").WithOptions(intree.Extensions(), []string{fmt.Sprintf("command='%s' '%s'", py, script)})
		if err != nil {
			t.Fatal(err)
		}
		spec.Rounds = rounds
		dirs[rounds] = filepath.Join(t.TempDir(), rounds)
		if _, err := runner.Run(context.Background(), spec, runner.Inputs{Workload: smallWorkload()},
			runner.Options{Ext: intree.Extensions(), Out: dirs[rounds], NoTiming: true}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dirs[rounds], "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Declined *int `json:"jobs_declined"`
		}
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Declined == nil || *sum.Declined != 3 {
			t.Errorf("rounds %s: jobs_declined %v, want 3 (cifar10-1, -3, -5)", rounds, sum.Declined)
		}
	}
	sameTables(t, "jobs.parquet", filepath.Join(dirs["all"], "jobs.parquet"), filepath.Join(dirs["changes"], "jobs.parquet"))
}
