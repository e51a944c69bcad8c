package sim

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/traces"
)

// neverAllocator holds every job back: a policy whose options leave
// nothing worth allocating.
type neverAllocator struct{ user bool }

func (neverAllocator) Name() string              { return "never" }
func (n neverAllocator) Traits() policies.Traits { return policies.Traits{UserGPUs: n.user} }
func (neverAllocator) Schedule(_ float64, _ policies.Cluster, jobs []policies.Job) policies.Decision {
	return policies.Decision{Alloc: make([][]int, len(jobs))}
}

// A policy that allocates nothing while jobs wait that fit the idle
// cluster is stopped once the stretch is StallSeconds long (it ground on
// to the time limit, 1e8 s, and then asked whether the jobs fit), naming
// the policy, its options and a waiting job; decided incrementally or
// not, with requested GPUs or not.
func TestStalledPolicyStopsEarly(t *testing.T) {
	w := fakeWorkload(
		traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 2, Batch: 64},
		traces.Job{Name: "b", Time: 100, App: "toy", Replicas: 4, Batch: 64},
	)
	for _, full := range []bool{false, true} {
		for _, user := range []bool{false, true} {
			cfg := smallConfig()
			cfg.FullRounds = full
			cfg.PolicyOptions = `{"x":1}`
			_, err := Run(cfg, fakeSet(), w, neverAllocator{user})
			want := "policy never with options {\"x\":1} allocated no GPU from t=60 s to t=2.0001e+06 s (33335 rounds)"
			// The job's request as asked (it said "asks for 1" of a job
			// asking 2 under a policy choosing GPU counts), and what it
			// can run on when the policy chooses.
			job := "2 jobs waited that fit the idle cluster of 8 GPUs (job a asks for 2 GPUs and can run on 1)"
			if user {
				job = "2 jobs waited that fit the idle cluster of 8 GPUs (job a asks for 2 GPUs)"
			}
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), job) {
				t.Errorf("full rounds %v, user GPUs %v: %v\nwant %q and %q", full, user, err, want, job)
			}
		}
	}
}

// A policy that leaves the cluster idle because the waiting job does not
// fit is not stopped as stalled (the time limit still ends it), nor is one
// that allocates.
func TestStallNeedsAFittingJob(t *testing.T) {
	cfg := smallConfig()
	cfg.MaxTime = 3e6
	w := fakeWorkload(traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 2, Batch: 64})
	e := &engine{cfg: cfg, traits: policies.Traits{UserGPUs: true}}
	j := &job{spec: w.Jobs[0], phase: phasePending}
	e.active = []*job{j}
	e.cfg.Cluster.Nodes = 0 // an elastic cluster shrunk to nothing
	for e.now = 0; e.now < 3e6; e.now += 60 {
		if err := e.checkStall(); err != nil {
			t.Fatalf("stalled with no fitting job: %v", err)
		}
	}
	if _, err := Run(smallConfig(), fakeSet(), w, fifo.New()); err != nil {
		t.Errorf("fifo: %v", err)
	}
}

// A job whose memory floor is above the cluster's GPUs does not fit it
// under a policy that chooses GPU counts (it counted as fitting on one
// GPU, and the run was stopped as stalled, saying it fit).
func TestStallJobOverItsFloor(t *testing.T) {
	set := fakeSet()
	set.Apps["toy"].MinGPUs = 16
	w := fakeWorkload(traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 16, Batch: 64})
	e := &engine{cfg: smallConfig(), policy: neverAllocator{}}
	e.active = []*job{{spec: w.Jobs[0], phase: phasePending, app: set.Apps["toy"]}}
	for e.now = 0; e.now < 3e6; e.now += 60 {
		if err := e.checkStall(); err != nil {
			t.Fatalf("stalled with no fitting job: %v", err)
		}
	}
	set.Apps["toy"].MinGPUs = 8 // it fits: stalled
	var err error
	for e.now = 0; e.now < 3e6 && err == nil; e.now += 60 {
		err = e.checkStall()
	}
	if err == nil || !strings.Contains(err.Error(), "(job a asks for 16 GPUs and can run on 8)") {
		t.Fatalf("a job that fits on its floor of 8: %v", err)
	}
}
