package workloads_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// burst is a workload source defined outside the package: ARG = n jobs of
// cifar10 all at time 0, one GPU each.
var burst = workloads.Source{
	Name: "burst", Usage: "burst:N", Doc: "N one-GPU cifar10 jobs at time 0 (a test source)",
	Resolve: func(arg string, env workloads.Env) (*traces.Workload, []string, error) {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return nil, nil, fmt.Errorf("burst:%s: want a positive job count", arg)
		}
		w := &traces.Workload{Source: "burst:" + arg}
		for i := range n {
			w.Jobs = append(w.Jobs, traces.Job{Name: fmt.Sprintf("b-%d", i), App: "cifar10", Replicas: 1, Batch: 128, Line: i + 2})
		}
		return w, nil, nil
	},
}

// TestSourceDoorFromOutside: a source added to the extensions outside
// the package is resolved by name by the run pipeline (what `polluxsim
// run --workload burst:3` does in a binary with app.WithSource(burst)),
// while a registry of one's own stays separate.
func TestSourceDoorFromOutside(t *testing.T) {
	ext, err := intree.With(extensions.WithSource(burst))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), runspec.DefaultSpec("fifo"), runner.Inputs{WorkloadRef: "burst:3"}, runner.Options{Ext: ext})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Workload.Jobs) != 3 || res.Meta.Workload != "burst:3" || res.Sim.Summary.Jobs != 3 {
		t.Errorf("burst:3 gave %d jobs, source %q", len(res.Workload.Jobs), res.Meta.Workload)
	}
	if _, _, err := ext.ResolveWorkload("burst:x", workloads.Env{}); err == nil || !strings.Contains(err.Error(), "burst:x") {
		t.Errorf("a bad argument: %v", err)
	}
	own := workloads.NewRegistry()
	if err := own.Register(burst); err != nil {
		t.Fatal(err)
	}
	if err := own.Register(burst); err == nil {
		t.Error("a name registered twice was accepted")
	}
	if err := own.Register(workloads.Source{Name: "Bad Name", Resolve: burst.Resolve}); err == nil {
		t.Error("a malformed name was accepted")
	}
	if s, _ := own.Lookup("paper:1", nil); s.Name == "paper" {
		t.Error("a registry of one's own holds the built-in sources")
	}
}

// TestBuiltinSources: each built-in reference resolves to what the
// function behind it gives, and a generator description round-trips.
func TestBuiltinSources(t *testing.T) {
	set := profiles.Default()
	ext := intree.Extensions()
	env := ext.WorkloadEnv(set, 4)
	paper, _, err := ext.ResolveWorkload("paper:2", env)
	if err != nil {
		t.Fatal(err)
	}
	direct, _, err := traces.ReadPaper("paper:2", traces.ReadOptions{Apps: set.Names()})
	if err != nil {
		t.Fatal(err)
	}
	if len(paper.Jobs) != 160 || fmt.Sprint(paper.Jobs) != fmt.Sprint(direct.Jobs) {
		t.Errorf("paper:2 through the registry differs from ReadPaper")
	}
	gen, _, err := ext.ResolveWorkload("generate:jobs=40,seed=3,config=realistic", env)
	if err != nil {
		t.Fatal(err)
	}
	want, err := runspec.GenerateWorkload(nil, set, 40, 3, "realistic", 4)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(gen.Jobs) != fmt.Sprint(want.Jobs) {
		t.Error("generate: differs from GenerateWorkload with the same settings")
	}
	g, err := workloads.ParseGenerate("jobs=40,seed=3,config=realistic")
	if err != nil || g.Ref() != "generate:jobs=40,seed=3,config=realistic" {
		t.Errorf("round trip: %+v %v -> %s", g, err, g.Ref())
	}
	for arg, msg := range map[string]string{
		"jobs=0": "must be in", "jobs=1,jobs=2": "given twice", "colour=red": "unknown key", "config=odd": "tuned or realistic",
		"all=true": "needs philly", "window=daily": "needs trace", "philly=a,trace=b": "one of philly", "seed": "not key=value",
		"tightness=2": "need deadlines=", "deadlines=soon": "must be elasticflow or tightness", "deadlines=tightness": "tightness must be in",
		"deadlines=elasticflow,best_effort=2": "best_effort", "deadlines=elasticflow,tightness=x": "invalid syntax",
	} {
		if _, err := workloads.ParseGenerate(arg); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("generate:%s: err %v, want %q", arg, err, msg)
		}
	}
	// Deadlines leave the jobs as they were and give each a deadline of
	// its isolated run time times the tightness.
	ddl, _, err := ext.ResolveWorkload("generate:jobs=40,seed=3,config=realistic,deadlines=tightness,tightness=1.5", env)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range ddl.Jobs {
		rt := sim.IsolatedRunTime(set.Apps[j.App], j, 4)
		if j.Deadline != 1.5*rt || !(rt > 0) {
			t.Fatalf("job %s: deadline %v, want 1.5 x %v", j.Name, j.Deadline, rt)
		}
		j.Deadline = 0
		if fmt.Sprint(j) != fmt.Sprint(gen.Jobs[i]) {
			t.Fatalf("job %d changed beyond its deadline: %+v, was %+v", i, j, gen.Jobs[i])
		}
	}
	g, err = workloads.ParseGenerate("jobs=40,seed=3,config=realistic,deadlines=elasticflow,best_effort=0.2")
	if err != nil || g.Ref() != "generate:jobs=40,seed=3,config=realistic,deadlines=elasticflow,best_effort=0.2" {
		t.Errorf("round trip with deadlines: %+v %v -> %s", g, err, g.Ref())
	}
	rep, _, err := ext.ResolveWorkload("itp:cluster02", env)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Jobs); n != 5778 {
		t.Errorf("itp:cluster02 replayed %d jobs, want all 5,778", n)
	}
}

// TestNearMissHint: a reference that is no file and near a source's (or
// a trace format's) name says which reference was probably meant; a path,
// an explicit csv: or a name near nothing is left as the missing file.
func TestNearMissHint(t *testing.T) {
	ext := intree.Extensions()
	env := ext.WorkloadEnv(profiles.Default(), 4)
	for ref, want := range map[string]string{
		"paper1":           "paper1: no such file or directory (did you mean paper:1?)",
		"paper-realistic3": "paper-realistic3: no such file or directory (did you mean paper-realistic:3?)",
		"papr:1":           "papr:1: no such file or directory (did you mean paper:1",
		"paper":            "paper: no such file or directory (did you mean paper:N?)",
		"itpp:cluster02":   "itpp:cluster02: no such file or directory (did you mean itp:cluster02?)",
		"missing.csv":      "missing.csv: no such file or directory",
		"dir/paper1":       "dir/paper1: no such file or directory",
		"csv:paper1":       "paper1: no such file or directory",
		"zzzz1":            "zzzz1: no such file or directory",
	} {
		_, _, err := ext.ResolveWorkload(ref, env)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", ref, err, want)
		}
		if !strings.Contains(want, "did you mean") && err != nil && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%s: a hint where none fits: %v", ref, err)
		}
	}
}
