package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// stressPolicies lists the policies the stress test runs: every known one
// but external, which needs a command (a policy process; policies/external's
// tests run its Python ports through the run pipeline and sweeps).
func stressPolicies() []string {
	return slices.DeleteFunc(testext.Ext().PolicyRegistry().Names(), func(name string) bool { return name == "external" })
}

// TestStressRandom runs random small clusters and random small workloads,
// edge values included (arrivals at 0 and tied, jobs asking for the whole
// cluster, the smallest and largest batch sizes, fractional intervals, no restart
// delay, interference, --step), under every policy, a bounded number of
// times from a fixed seed. Every run must end without error (the engine
// checks its invariants as it goes), every job must finish with
// consistent times, no round may use more GPUs than the cluster has, and
// the outputs must be complete.
func TestStressRandom(t *testing.T) {
	cases := 8
	if testing.Short() {
		cases = 3
	}
	set := profiles.Default()
	apps := set.Names()
	rng := rand.New(rand.NewPCG(16, 2024))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	for c := 0; c < cases; c++ {
		nodes, perNode := 1+rng.IntN(3), 1+rng.IntN(4)
		total := nodes * perNode
		w := &traces.Workload{Source: fmt.Sprintf("stress-%d", c)}
		at := 0.0
		for i, n := 0, 1+rng.IntN(6); i < n; i++ {
			app := set.Apps[apps[rng.IntN(len(apps))]]
			replicas := 1 + rng.IntN(total)
			if rng.IntN(4) == 0 {
				replicas = total
			}
			l := app.Limits
			batch := int(pick(float64(l.MinLocal), float64(l.InitBatch), float64(l.MaxBatch), float64(min(l.MaxBatch, replicas*l.MaxLocal))))
			switch rng.IntN(3) { // ties and gaps
			case 1:
				at += pick(1, 59.5, 600, 7200)
			case 2:
				at = pick(at, 0.25+at)
			}
			w.Jobs = append(w.Jobs, traces.Job{Name: fmt.Sprintf("j%d", i), Time: at, App: app.Name, Replicas: replicas, Batch: batch, Line: i + 2})
		}
		base := runspec.DefaultSpec("")
		base.Nodes, base.GPUsPerNode = nodes, perNode
		base.Interval = pick(60, 97.5, 600)
		base.RestartDelay = pick(0, 30)
		base.Interference = pick(0, 0, 0.5)
		if base.Step = rng.IntN(4) == 0; base.Step {
			base.Interval = math.Round(base.Interval)
		}
		// Edge options, for each policy that has them.
		opts := map[string]string{
			"p":                         fmt.Sprint(pick(-1, 1, -10)),
			"no_interference_avoidance": fmt.Sprint(rng.IntN(2) == 0),
			"population":                "8",
			"generations":               "4",
		}
		base.Seed = rng.Uint64()
		for _, policy := range stressPolicies() {
			spec := base
			spec.Policy, spec.Options = policy, ""
			docs, err := testext.Ext().PolicyRegistry().Describe(policy)
			if err != nil {
				t.Fatal(err)
			}
			var kvs []string
			for _, d := range docs {
				if v, ok := opts[d.Key]; ok {
					kvs = append(kvs, d.Key+"="+v)
				}
			}
			if spec, err = spec.WithOptions(testext.Ext(), kvs); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("case %d (%d x %d GPUs, %d jobs, interval %v, step %v) %s", c, nodes, perNode, len(w.Jobs), spec.Interval, spec.Step, policy)
			t.Run(fmt.Sprintf("%d-%s", c, policy), func(t *testing.T) {
				if err := spec.Validate(testext.Ext()); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := traces.Validate(w, apps, total); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				dir := t.TempDir()
				run, err := runner.Run(context.Background(), spec, runner.Inputs{Profiles: set, Workload: w},
					runner.Options{Ext: testext.Ext(), Out: dir, NoTiming: true, Version: "test"})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkStressResult(t, name, run.Sim, w, total)
				checkStressOutputs(t, name, dir, len(w.Jobs))
			})
		}
	}
}

// checkStressResult checks a run's jobs and rounds against the workload
// and the cluster.
func checkStressResult(t *testing.T, name string, res *sim.Result, w *traces.Workload, total int) {
	t.Helper()
	if len(res.Jobs) != len(w.Jobs) || res.Summary.Jobs != len(w.Jobs) {
		t.Fatalf("%s: %d job results (summary %d) for %d jobs", name, len(res.Jobs), res.Summary.Jobs, len(w.Jobs))
	}
	for _, j := range res.Jobs {
		finite := !math.IsNaN(j.Finish) && !math.IsInf(j.Finish, 0) && !math.IsNaN(j.FirstStart)
		if !finite || j.FirstStart < j.Submit || j.Finish < j.FirstStart || !(j.JCT > 0) ||
			math.Abs(j.JCT-(j.Finish-j.Submit)) > 1e-6*math.Max(1, j.JCT) || j.Restarts < 0 || !(j.GPUSeconds > 0) {
			t.Errorf("%s: job %s: submit %v start %v finish %v JCT %v restarts %d GPU-s %v",
				name, j.Name, j.Submit, j.FirstStart, j.Finish, j.JCT, j.Restarts, j.GPUSeconds)
		}
	}
	if !sort.SliceIsSorted(res.Rounds, func(a, b int) bool { return res.Rounds[a].Time < res.Rounds[b].Time }) {
		t.Errorf("%s: rounds out of time order", name)
	}
	used := map[float64]int{}
	for _, r := range res.Rounds {
		if r.GPUs < 0 {
			t.Errorf("%s: job %s holds %d GPUs at %v s", name, r.Job, r.GPUs, r.Time)
		}
		used[r.Time] += r.GPUs
	}
	for at, n := range used {
		if n > total {
			t.Errorf("%s: %d GPUs in use at %v s, the cluster has %d", name, n, at, total)
		}
	}
}

// checkStressOutputs checks that a run's three output files are there
// and that summary.json counts every job.
func checkStressOutputs(t *testing.T, name, dir string, jobs int) {
	t.Helper()
	for _, f := range []string{"jobs.parquet", "rounds.parquet"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(data) < 12 || string(data[:4]) != "PAR1" || string(data[len(data)-4:]) != "PAR1" {
			t.Errorf("%s: %s incomplete (%v)", name, f, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	var s struct {
		Jobs int `json:"jobs"`
	}
	if err != nil || json.Unmarshal(data, &s) != nil || s.Jobs != jobs {
		t.Errorf("%s: summary.json incomplete (%v): %.200s", name, err, data)
	}
}
