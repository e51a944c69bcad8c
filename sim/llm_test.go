package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// TestLLMJobsBelowMinGPUs: on the llm set a 70B job fits in no fewer than
// 15 H100s. Pollux starts jobs on one GPU and doubles; unless it knows
// the job's MinGPUs, the engine refuses every such allocation and the job
// never runs. It must finish, and its GPU-seconds show at least MinGPUs
// GPUs whenever it ran.
func TestLLMJobsBelowMinGPUs(t *testing.T) {
	set := profiles.LLM()
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "h100", Nodes: 4, GPUsPerNode: 8})
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{
		{Name: "big", App: "llm-70b-debug", Replicas: 16, Batch: 4096},
		{Name: "small", Time: 60, App: "llm-1b-eval", Replicas: 8, Batch: 64},
	}}
	res, err := sim.Run(cfg, set, w, pollux.New(pollux.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Jobs != 2 {
		t.Fatalf("%d of 2 jobs finished", res.Summary.Jobs)
	}
	min := set.Apps["llm-70b-debug"].MinGPUs
	for _, j := range res.Jobs {
		if j.Name == "big" && !(j.GPUSeconds >= float64(min)*60) {
			t.Errorf("70B job: %g GPU-seconds, want at least %d GPUs for a round", j.GPUSeconds, min)
		}
	}
}

// TestLLMJobsRigidUnderOtherPolicies: policies that do not size LLM jobs
// (all but Pollux) run them on the GPUs they asked for, however many more
// are free; a request below the model's floor is refused with the job
// named.
func TestLLMJobsRigidUnderOtherPolicies(t *testing.T) {
	set := profiles.LLM()
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "h100", Nodes: 8, GPUsPerNode: 8})
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "big", App: "llm-70b-eval", Replicas: 16, Batch: 64}}}
	for _, name := range []string{"optimus", "sia", "tiresias", "fifo", "gavel-las"} {
		p, err := builtin.Registry().Build(name, "", policies.Env{Seed: 1, RestartDelay: 30})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(cfg, set, w, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		j := res.Jobs[0]
		if gpus := j.GPUSeconds / (j.Finish - j.FirstStart); math.Abs(gpus-16) > 1e-6 {
			t.Errorf("%s: the job held %g GPUs on average, want its request of 16", name, gpus)
		}
	}
	w.Jobs[0].Replicas = 8
	p, _ := builtin.Registry().Build("tiresias", "", policies.Env{Seed: 1, RestartDelay: 30})
	if _, err := sim.Run(cfg, set, w, p); err == nil || !strings.Contains(err.Error(), "fits in no fewer than 15 h100 GPUs") || !strings.Contains(err.Error(), "big") {
		t.Errorf("a 70B job asking for 8 H100s: %v", err)
	}
}

// TestLLMNodesOtherThanModelled: the llm set's step times and memory
// floors model nodes of one NVLink domain (8 GPUs); a cluster of larger
// or thinner nodes of that type is refused before the run, naming the
// type, the sizes and an application, where both used to end in a panic
// mid-run.
func TestLLMNodesOtherThanModelled(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "h100", Nodes: 4, GPUsPerNode: 16})
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "a", App: "llm-7b", Replicas: 16, Batch: 64}}}
	_, err := sim.Run(cfg, profiles.LLM(), w, pollux.New(pollux.DefaultOptions()))
	want := "cluster GPU type h100: nodes of 16 GPUs, but application llm-7b models h100 nodes of exactly 8"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	// Thinner nodes: 70B's floor (32 A100-40GB) assumes tensor groups of
	// up to 8 in a node; on 1-GPU nodes it does not fit there (it
	// panicked mid-run).
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "a100-40gb", Nodes: 128, GPUsPerNode: 1})
	w = &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "a", App: "llm-70b-eval", Replicas: 32, Batch: 64}}}
	_, err = sim.Run(cfg, profiles.LLM(), w, pollux.New(pollux.DefaultOptions()))
	want = "cluster GPU type a100-40gb: nodes of 1 GPUs, but application llm-70b-eval models a100-40gb nodes of exactly 8"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// A waiting LLM job's floor, as a policy sees it, is its model's on the
// cluster's GPU types, not on the profile set's base type: a 13B job
// asking 16 GPUs fits in 3 H100s but 6 A100-40GBs, and on an A100-40GB
// cluster Pollux, told 3, offered it 3-5 GPUs the engine took back, round
// after round, until the run stalled. It now runs, on at least 6. A job
// whose floor is more GPUs than the cluster has of any type it can use is
// refused before the run (it used to be simulated to the time limit).
func TestLLMFloorOnClusterType(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "a100-40gb", Nodes: 2, GPUsPerNode: 8})
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "a", App: "llm-13b-sft", Replicas: 16, Batch: 64}}}
	set := profiles.LLM()
	floor := set.Apps["llm-13b-sft"].ForType("a100-40gb").MinGPUs
	if base := set.Apps["llm-13b-sft"].MinGPUs; !(floor > base) {
		t.Fatalf("13B's floor is %d A100-40GBs and %d on the base type: the test shows nothing", floor, base)
	}
	res, err := sim.Run(cfg, set, w, pollux.New(pollux.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 {
		t.Fatalf("%d jobs finished", len(res.Jobs))
	}
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "h100", Nodes: 1, GPUsPerNode: 8})
	w = &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "b", App: "llm-70b-eval", Replicas: 8, Batch: 64}}}
	_, err = sim.Run(cfg, set, w, pollux.New(pollux.DefaultOptions()))
	want := "llm-70b-eval fits in no fewer than 15 h100 GPUs, more than the cluster has of any GPU type it can use"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestLLMFloorOnMixedCluster: a 70B job fits in 15 H100s but not in the
// 16 A100-40GBs of a cluster of two H100 and two A100-40GB nodes. Pollux's
// search cannot climb to a floor, and its floor seed was not given on a
// cluster of several GPU types, so the job waited on the idle cluster
// until the run stopped as stalled. It now finishes, on H100s only, on at
// least its floor.
func TestLLMFloorOnMixedCluster(t *testing.T) {
	set := profiles.LLM()
	app := set.Apps["llm-70b-eval"]
	if a := app.ForType("a100-40gb"); a == nil || a.MinGPUs <= 16 {
		t.Fatalf("70B's floor on A100-40GB is not above 16: the test shows nothing")
	}
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(
		policies.Pool{Type: "h100", Nodes: 2, GPUsPerNode: 8},
		policies.Pool{Type: "a100-40gb", Nodes: 2, GPUsPerNode: 8})
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "big", App: "llm-70b-eval", Replicas: 16, Batch: 64}}}
	res, err := sim.Run(cfg, set, w, pollux.New(pollux.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 {
		t.Fatalf("%d of 1 jobs finished", len(res.Jobs))
	}
	floor := app.ForType("h100").MinGPUs
	if j := res.Jobs[0]; !(j.GPUSeconds >= float64(floor)*60) {
		t.Errorf("%g GPU-seconds, want at least %d GPUs for a round", j.GPUSeconds, floor)
	}
	if h := res.Summary.GPUHoursByType; !(h["h100"] > 0) || h["a100-40gb"] != 0 {
		t.Errorf("GPU-hours by type %v, want H100s only", h)
	}
}
