package sim

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// The engine's oracle (TypeIterTime) gives, on the job's own type, the step time the
// engine runs a fixed-batch job at (Limits.Split, then the true tables),
// and refuses types the application has no tables for.
func TestTypeIterTime(t *testing.T) {
	set := profiles.Default()
	for _, name := range []string{"cifar10", "imagenet", "bert"} {
		app := set.Apps[name]
		app.ByType = nil // the T4 tables alone, without the embedded per-type models
		o := jobOracle{app: app, base: app}
		for _, k := range []int{1, 2, 4, 8} {
			batch := app.Limits.InitBatch * k
			place := models.PackedPlacement(k, 4)
			got, ok := o.TypeIterTime(policies.DefaultType, place, batch)
			m, s, _ := app.Limits.Split(k, float64(batch))
			want, _, _ := app.IterTime(place, float64(max(m, 1)), s)
			if !ok || got != want || !(got > 0) {
				t.Errorf("%s on %d GPUs: TypeIterTime = %v, %v, want %v", name, k, got, ok, want)
			}
		}
		if _, ok := o.TypeIterTime("a100", []int{1}, app.Limits.InitBatch); ok {
			t.Errorf("%s: the T4 tables answered for a100", name)
		}
	}
}

// The engine's oracle splits a step as the profile does: StepTime is the
// application's true step and sync times (Truth.Step), with 0 ≤ sync ≤
// step, and IterTime is their closed form step + accum·(step − sync), on
// every application of the default profiles, one and several nodes.
func TestStepTime(t *testing.T) {
	set := profiles.Default()
	synced := 0
	for _, name := range set.Names() {
		app := set.Apps[name]
		o := jobOracle{app: app, base: app}
		lim := app.Limits
		for _, place := range [][]int{{1}, {2}, {4}, {2, 2}, {4, 4, 4}} {
			for _, local := range []float64{float64(lim.MinLocal), float64(lim.MinLocal+lim.MaxLocal) / 2, float64(lim.MaxLocal)} {
				step, sync := o.StepTime(place, local)
				wantStep, wantSync := app.Truth.Step(place, local)
				if step != wantStep || sync != wantSync {
					t.Errorf("%s %v local %v: StepTime = %v, %v, the profile's %v, %v", name, place, local, step, sync, wantStep, wantSync)
				}
				if !(step > 0) || sync < 0 || sync > step {
					t.Errorf("%s %v local %v: step %v, sync %v: want 0 ≤ sync ≤ step, step > 0", name, place, local, step, sync)
				}
				if sync > 0 {
					synced++
				}
				for accum := range 4 {
					if got, want := o.IterTime(place, local, accum), step+float64(accum)*(step-sync); got != want {
						t.Errorf("%s %v local %v accum %d: IterTime = %v, step + accum·(step − sync) = %v", name, place, local, accum, got, want)
					}
				}
			}
		}
		if got := o.CompletionEpoch(lim.InitBatch); got != app.Epochs-1 {
			t.Errorf("%s: CompletionEpoch = %d, want the last of %d epochs", name, got, app.Epochs)
		}
	}
	if synced == 0 {
		t.Error("no case had a synchronisation part: the split is not exercised")
	}
}

// oracleFIFO is FIFO with the oracle: it records each job's
// RunTimeAlone on its request when it first sees the job.
type oracleFIFO struct {
	*fifo.Policy
	alone map[string]float64
}

func (oracleFIFO) Traits() policies.Traits {
	return policies.Traits{UserGPUs: true, NeedsOracle: true}
}

func (p oracleFIFO) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	for i := range jobs {
		if _, ok := p.alone[jobs[i].Name]; !ok {
			p.alone[jobs[i].Name] = jobs[i].RunTimeAlone(c, jobs[i].Request.GPUs)
		}
	}
	return p.Policy.Schedule(now, c, jobs)
}

// A job alone on the cluster runs for the time the oracle predicts
// (RunTimeAlone: remaining steps × step time) plus its restart, whether
// its batch is below, at or above the application's initial batch size.
// Below it, the oracle once counted the initial batch's steps: imagenet at
// batch 64 on 4 GPUs was predicted at a third of its run. Above it, the
// oracle's steps are the measured run's (interpolated between validated
// batches), which the engine's crediting need not match, so that case is
// at a validated batch (cifar10's 256) and within 1 %; at the initial
// batch, within the 0.5 % by which a measured run's steps and its progress
// differ.
func TestRunTimeAloneBelowInitBatch(t *testing.T) {
	set := profiles.Default()
	cases := []struct {
		app         string
		gpus, batch int
		tol         float64
	}{
		{"imagenet", 4, 64, 1e-9},
		{"imagenet", 1, 100, 1e-9},
		{"cifar10", 2, 32, 1e-9},
		{"imagenet", 4, 200, 5e-3},
		{"cifar10", 2, 256, 1e-2},
	}
	for _, c := range cases {
		w := fakeWorkload(traces.Job{Name: "j", Time: 5, App: c.app, Replicas: c.gpus, Batch: c.batch})
		p := oracleFIFO{Policy: fifo.New(), alone: map[string]float64{}}
		cfg := smallConfig()
		res, err := Run(cfg, set, w, p)
		if err != nil {
			t.Fatal(err)
		}
		j := res.Jobs[0]
		ran := j.Finish - j.FirstStart - cfg.RestartDelay
		if pred := p.alone["j"]; math.Abs(ran-pred) > c.tol*ran || j.Restarts != 0 {
			t.Errorf("%s on %d GPUs at batch %d: ran %v s (%d restarts), the oracle predicted %v s", c.app, c.gpus, c.batch, ran, j.Restarts, pred)
		}
	}
}
