package sim

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/policies/optimus"
	"github.com/polluxsim/polluxsim/policies/tiresias"
	"github.com/polluxsim/polluxsim/traces"
)

func smallConfig() Config {
	c := DefaultConfig()
	c.Cluster = policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	return c
}

// A single job on one GPU at M0: it starts at the first tick (60 s), pays
// the 30 s restart, then runs 3 epochs of 1000 iterations at the true step
// time; no rounding anywhere.
func TestSingleJobClosedForm(t *testing.T) {
	set := fakeSet()
	w := fakeWorkload(traces.Job{Name: "toy-0", Time: 5, App: "toy", Replicas: 1, Batch: 32})
	res, err := Run(smallConfig(), set, w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	step := 0.05 + 0.001*32
	want := 60 + 30 + 3*1000*step
	j := res.Jobs[0]
	if math.Abs(j.Finish-want) > 1e-9 {
		t.Errorf("finish = %.9f, want %.9f", j.Finish, want)
	}
	if j.JCT != j.Finish-5 || j.Queueing != 55 || j.Restarts != 0 || j.Epochs != 3 {
		t.Errorf("job result %+v", j)
	}
	if math.Abs(j.GPUSeconds-(want-60)) > 1e-6 {
		t.Errorf("GPU-seconds %v, want %v", j.GPUSeconds, want-60)
	}
	if j.MeanEfficiency != 1 || j.MeanBatch != 32 {
		t.Errorf("mean efficiency %v batch %v", j.MeanEfficiency, j.MeanBatch)
	}
	// Step mode rounds each epoch crossing to whole seconds.
	cfg := smallConfig()
	cfg.Step = true
	res2, err := Run(cfg, set, w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	if f := res2.Jobs[0].Finish; f != math.Trunc(f) || math.Abs(f-want) > 3 {
		t.Errorf("step-mode finish %v, want a whole second within 3 s of %v", f, want)
	}
}

// Two identical jobs that both need the whole cluster run one after the
// other under FIFO.
func TestFIFOQueues(t *testing.T) {
	set := fakeSet()
	w := fakeWorkload(
		traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 8, Batch: 256},
		traces.Job{Name: "b", Time: 1, App: "toy", Replicas: 8, Batch: 256},
	)
	res, err := Run(smallConfig(), set, w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Jobs[0], res.Jobs[1]
	if !(b.FirstStart >= a.Finish) {
		t.Errorf("b started at %v before a finished at %v", b.FirstStart, a.Finish)
	}
	// b starts at the first tick after a finishes.
	if want := math.Ceil(a.Finish/60) * 60; b.FirstStart != want {
		t.Errorf("b first start %v, want %v", b.FirstStart, want)
	}
}

func TestOverAllocationCaught(t *testing.T) {
	w := fakeWorkload(
		traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 3, Batch: 64},
		traces.Job{Name: "b", Time: 0, App: "toy", Replicas: 3, Batch: 64},
	)
	_, err := Run(smallConfig(), fakeSet(), w, overAllocator{})
	if err == nil || !strings.Contains(err.Error(), "invariant violated") || !strings.Contains(err.Error(), "node 0") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadWorkloadsRejectedBeforeRun(t *testing.T) {
	for _, tc := range []struct {
		job  traces.Job
		want string
	}{
		{traces.Job{Name: "big", App: "toy", Replicas: 9, Batch: 64}, "asks for 9 GPUs, the cluster has 8"},
		{traces.Job{Name: "x", App: "nope", Replicas: 1, Batch: 64}, `unknown application "nope"`},
		{traces.Job{Name: "n", App: "toy", Time: math.NaN(), Replicas: 1, Batch: 64}, "bad submission time"},
	} {
		_, err := Run(smallConfig(), fakeSet(), fakeWorkload(tc.job), tiresias.New(0))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("job %+v: err = %v, want %q", tc.job, err, tc.want)
		}
	}
	cfg := smallConfig()
	cfg.Interval = 0
	if _, err := Run(cfg, fakeSet(), fakeWorkload(traces.Job{Name: "a", App: "toy", Replicas: 1, Batch: 32}), fifo.New()); err == nil {
		t.Error("interval 0 accepted")
	}
	// Policies know jobs by name: two jobs of one name are refused.
	dup := fakeWorkload(traces.Job{Name: "x", App: "toy", Replicas: 1, Batch: 32}, traces.Job{Name: "x", App: "toy", Time: 10, Replicas: 1, Batch: 32})
	if _, err := Run(smallConfig(), fakeSet(), dup, tiresias.New(0)); err == nil || !strings.Contains(err.Error(), "names must be unique") {
		t.Errorf("duplicate names: err = %v", err)
	}
}

func manyJobs(n int) *traces.Workload {
	w := &traces.Workload{Source: "many"}
	for i := 0; i < n; i++ {
		w.Jobs = append(w.Jobs, traces.Job{
			Name: "toy-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Time: float64(i * 37), App: "toy",
			Replicas: 1 + i%6, Batch: 64 << (i % 3),
		})
	}
	return w
}

func TestDeterministicAndInvariants(t *testing.T) {
	set := fakeSet()
	for _, mk := range []func() policies.Policy{
		func() policies.Policy { return fifo.New() },
		func() policies.Policy { return tiresias.New(0) },
		func() policies.Policy { return optimus.New() },
	} {
		for _, step := range []bool{false, true} {
			cfg := smallConfig()
			cfg.Step = step
			cfg.Interference = 0.3
			r1, err := Run(cfg, set, manyJobs(40), mk())
			if err != nil {
				t.Fatal(err)
			}
			r2, _ := Run(cfg, set, manyJobs(40), mk())
			for i := range r1.Rounds {
				r1.Rounds[i].PolicySeconds, r2.Rounds[i].PolicySeconds = 0, 0
			}
			if !reflect.DeepEqual(r1.Jobs, r2.Jobs) || !reflect.DeepEqual(r1.Rounds, r2.Rounds) {
				t.Errorf("%s step=%v: two runs differ", r1.Summary.Policy, step)
			}
			// No node over capacity in any round.
			used := map[float64]int{}
			for _, rr := range r1.Rounds {
				used[rr.Time] += rr.GPUs
			}
			for tm, u := range used {
				if u > 8 {
					t.Fatalf("%d GPUs in use at t=%v", u, tm)
				}
			}
			for _, j := range r1.Jobs {
				if !(j.Finish > j.Submit) || j.Epochs != 3 {
					t.Fatalf("job %s did not finish properly: %+v", j.Name, j)
				}
			}
		}
	}
}

// A multi-node job sharing its nodes with another multi-node job runs at
// (1 − slowdown).
func TestInterferenceSlowsSharedMultiNodeJobs(t *testing.T) {
	set := fakeSet()
	w := fakeWorkload(
		traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 4, Batch: 128},
		traces.Job{Name: "b", Time: 0, App: "toy", Replicas: 4, Batch: 128},
	)
	cfg := smallConfig()
	// splitter places every job as 2+2 across both nodes.
	base, err := Run(cfg, set, w, splitter{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Interference = 0.5
	slow, err := Run(cfg, set, w, splitter{})
	if err != nil {
		t.Fatal(err)
	}
	runBase := base.Jobs[0].Finish - 90
	runSlow := slow.Jobs[0].Finish - 90
	if math.Abs(runSlow/runBase-2) > 1e-9 {
		t.Errorf("run time ratio %v, want 2", runSlow/runBase)
	}
}

type splitter struct{}

func (splitter) Name() string            { return "splitter" }
func (splitter) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }
func (splitter) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i := range jobs {
		d.Alloc[i] = []int{2, 2}
	}
	return d
}
