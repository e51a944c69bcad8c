package sim

import (
	"math"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/policies/tiresias"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// The invariant checks (docs/design.md, "Invariants") run on every event (time never goes
// back), every segment start (progress within target) and every decision
// (node capacity, in checkDecision). These benchmarks measure what they
// cost: the whole run, and checkDecision replayed over every decision of
// the same run. Run with
//
//	go test -run '^$' -bench 'Invariant' -benchtime 3x ./sim

// defaultWorkload is the `polluxsim run` default: 160 jobs from the
// embedded Philly summary, tuned configurations, seed 1.
func defaultWorkload(tb testing.TB, set *profiles.Set) *traces.Workload {
	tb.Helper()
	src, err := traces.DefaultSummary()
	if err != nil {
		tb.Fatal(err)
	}
	apps := map[string]traces.AppConfig{}
	for name, app := range set.Apps {
		ac := traces.AppConfig{InitBatch: app.Limits.InitBatch}
		for _, tc := range profiles.TunedConfigs(app, 4) {
			ac.Tuned = append(ac.Tuned, traces.TunedPair{Replicas: tc.Replicas, Batch: tc.Batch})
		}
		apps[name] = ac
	}
	w, err := traces.Generate(src, traces.GenerateOptions{Jobs: 160, Seed: 1, Config: traces.ConfigTuned, Apps: apps})
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// recorder passes a policy's decisions through and keeps a copy of each,
// with the GPUs each job asked for.
type recorder struct {
	policies.Policy
	rounds []recordedRound
}

type recordedRound struct {
	requests []int
	dec      policies.Decision
}

func (r *recorder) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := r.Policy.Schedule(now, c, jobs)
	rr := recordedRound{requests: make([]int, len(jobs)), dec: policies.Decision{Alloc: make([][]int, len(d.Alloc))}}
	for i, j := range jobs {
		rr.requests[i] = j.Request.GPUs
	}
	for i, a := range d.Alloc {
		rr.dec.Alloc[i] = append([]int(nil), a...)
	}
	r.rounds = append(r.rounds, rr)
	return d
}

func invariantPolicies() map[string]func() policies.Policy {
	return map[string]func() policies.Policy{
		"tiresias": func() policies.Policy { return tiresias.New(0) },
		"pollux":   func() policies.Policy { return pollux.New(pollux.DefaultOptions()) },
	}
}

// BenchmarkInvariantRun is a whole run (the checks included).
func BenchmarkInvariantRun(b *testing.B) {
	set := profiles.Compact()
	w := defaultWorkload(b, set)
	for _, name := range []string{"tiresias", "pollux"} {
		mk := invariantPolicies()[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(DefaultConfig(), set, w, mk()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInvariantCheckDecision replays checkDecision over all the
// decisions of one run; one op is one whole run's worth of checks.
func BenchmarkInvariantCheckDecision(b *testing.B) {
	set := profiles.Compact()
	w := defaultWorkload(b, set)
	for _, name := range []string{"tiresias", "pollux"} {
		mk := invariantPolicies()[name]
		b.Run(name, func(b *testing.B) {
			rec := &recorder{Policy: mk()}
			start := time.Now()
			if _, err := Run(DefaultConfig(), set, w, rec); err != nil {
				b.Fatal(err)
			}
			runTime := time.Since(start)
			e := &engine{cfg: DefaultConfig(), policy: rec, traits: rec.Traits()}
			actives := make([][]*job, len(rec.rounds))
			for i, r := range rec.rounds {
				for _, g := range r.requests {
					actives[i] = append(actives[i], &job{spec: traces.Job{Name: "j", Replicas: g}})
				}
			}
			b.ResetTimer()
			for b.Loop() {
				for i, r := range rec.rounds {
					if err := e.checkDecision(actives[i], r.dec); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			perRun := float64(b.Elapsed()) / float64(b.N)
			b.ReportMetric(float64(len(rec.rounds)), "rounds/run")
			b.ReportMetric(100*perRun/float64(runTime), "%of-run")
		})
	}
}

// TestInvariantsHoldOnDefaultRun runs the default workload under Tiresias
// and checks, after the fact, what the engine checks as it runs plus what
// it leaves implicit: every job ends, after its submission, having run all
// its epochs, and the decisions never overfill a node.
func TestInvariantsHoldOnDefaultRun(t *testing.T) {
	set := profiles.Compact()
	w := defaultWorkload(t, set)
	rec := &recorder{Policy: tiresias.New(0)}
	res, err := Run(DefaultConfig(), set, w, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != len(w.Jobs) {
		t.Fatalf("%d job results for %d jobs", len(res.Jobs), len(w.Jobs))
	}
	for _, j := range res.Jobs {
		app := set.Apps[j.App]
		if math.IsNaN(j.Finish) || j.Finish < j.Submit || j.FirstStart < j.Submit || j.Finish < j.FirstStart || j.Epochs != app.Epochs {
			t.Errorf("job %s: submit %v start %v finish %v epochs %d of %d", j.Name, j.Submit, j.FirstStart, j.Finish, j.Epochs, app.Epochs)
		}
	}
	prev := math.Inf(-1)
	for _, r := range res.Rounds {
		if r.Time < prev {
			t.Fatalf("round at %v after one at %v", r.Time, prev)
		}
		prev = r.Time
		if r.Progress > 1+1e-9 || r.Progress < 0 {
			t.Errorf("job %s at %v: progress %v of its target", r.Job, r.Time, r.Progress)
		}
	}
	for _, r := range rec.rounds {
		used := make([]int, DefaultConfig().Cluster.Nodes)
		for _, a := range r.dec.Alloc {
			for n, v := range a {
				used[n] += v
			}
		}
		for n, u := range used {
			if u > DefaultConfig().Cluster.GPUsPerNode {
				t.Fatalf("node %d holds %d GPUs", n, u)
			}
		}
	}
}
