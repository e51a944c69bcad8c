package runspec

import (
	"math"
	"sort"
	"testing"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// TestOfflineParams: the offline fit predicts the profile's own step
// times closely, for every application.
func TestOfflineParams(t *testing.T) {
	set := profiles.Compact()
	params, err := OfflineParams(set, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(params) != len(set.Apps) {
		t.Fatalf("%d fits for %d applications", len(params), len(set.Apps))
	}
	for name, p := range params {
		var errs []float64
		for _, o := range offlineObservations(set.Apps[name], 4) {
			pred := p.TIter(o.Nodes, o.GPUs, o.Local, 0)
			errs = append(errs, math.Abs(pred/o.TIter-1))
		}
		sort.Float64s(errs)
		if med := errs[len(errs)/2]; !(med < 0.2) {
			t.Errorf("%s: median relative error of the offline fit %.3f over %d observations", name, med, len(errs))
		}
	}
}

// TestOfflinePriorsRun: with offline priors, Pollux's agents never refit
// and the run differs from one that learns online.
func TestOfflinePriorsRun(t *testing.T) {
	set := profiles.Compact()
	w, err := GenerateWorkload(nil, set, 12, 5, "tuned", 4)
	if err != nil {
		t.Fatal(err)
	}
	run := func(offline bool, scaleOut ...bool) sim.Summary {
		spec, err := DefaultSpec("pollux").WithOptions(known, []string{"population=16", "generations=8"})
		if err != nil {
			t.Fatal(err)
		}
		spec.OfflinePriors = offline
		spec.OfflinePriorsScaleOut = len(scaleOut) > 0
		if err := spec.Validate(known); err != nil {
			t.Fatal(err)
		}
		cfg, err := spec.SimConfigFor(set)
		if err != nil {
			t.Fatal(err)
		}
		if offline != (cfg.SeedParams != nil) {
			t.Fatalf("offline %v but seeds %v", offline, cfg.SeedParams)
		}
		p, _ := NewPolicy(known, spec)
		res, err := sim.Run(cfg, set, w, p)
		if err != nil {
			t.Fatal(err)
		}
		return res.Summary
	}
	online, offline := run(false), run(true)
	if online.AgentFits == 0 || offline.AgentFits != 0 {
		t.Errorf("agent fits: online %d, offline %d (want > 0 and 0)", online.AgentFits, offline.AgentFits)
	}
	if online.AvgJCT == offline.AvgJCT {
		t.Error("offline-seeded models changed nothing")
	}
	// Scaling out from the first round changes the run again.
	if scaled := run(true, true); scaled.AvgJCT == offline.AvgJCT || scaled.AgentFits != 0 {
		t.Errorf("scale-out: avg JCT %v (offline %v), %d fits", scaled.AvgJCT, offline.AvgJCT, scaled.AgentFits)
	}
	if seen := OfflineSeenGPUs(set, 4); seen["imagenet"] != 64 || seen["ncf"] < 1 {
		t.Errorf("offline seen GPUs %v", seen)
	}
	bad := DefaultSpec("pollux")
	bad.OfflinePriorsScaleOut = true
	if err := bad.Validate(known); err == nil {
		t.Error("offline_priors_scale_out without offline_priors was accepted")
	}
	// Non-adaptive policies ignore the seeds.
	spec := DefaultSpec("tiresias")
	spec.OfflinePriors = true
	cfg, _ := spec.SimConfigFor(set)
	p, _ := NewPolicy(known, spec)
	res, err := sim.Run(cfg, set, w, p)
	if err != nil || res.Summary.AgentFits != 0 {
		t.Errorf("tiresias with seeds: %v, %d fits", err, res.Summary.AgentFits)
	}
}
