package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/traces"
)

// gatekeeper is FIFO with admission control: it declines every job whose
// GPU request is in decline, and checks that a declined job never reaches
// a round and that Admit sees the jobs active at the time.
type gatekeeper struct {
	*fifo.Policy
	t        *testing.T
	decline  map[int]bool
	declined map[string]bool
	admits   int
}

var _ policies.Admitter = (*gatekeeper)(nil)

func (g *gatekeeper) Admit(now float64, _ policies.Cluster, j *policies.Job, active []policies.Job) string {
	g.admits++
	if j.Submit != now || j.Alloc != nil {
		g.t.Errorf("Admit of %s at %v: submitted %v, alloc %v", j.Name, now, j.Submit, j.Alloc)
	}
	for _, a := range active {
		if g.declined[a.Name] || a.Name == j.Name {
			g.t.Errorf("Admit of %s: %s is among the active jobs", j.Name, a.Name)
		}
	}
	if g.decline[j.Request.GPUs] {
		g.declined[j.Name] = true
		return "asks for\n too many GPUs"
	}
	return ""
}

func (g *gatekeeper) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	for _, j := range jobs {
		if g.declined[j.Name] {
			g.t.Errorf("round at %v: declined job %s is active", now, j.Name)
		}
	}
	return g.Policy.Schedule(now, c, jobs)
}

// A declined job never runs and ends declined with its reason; the jobs
// admitted run exactly as in a run of the workload without the declined
// jobs, so the run's JCT figures leave the declined ones out.
func TestAdmissionDeclines(t *testing.T) {
	w := manyJobs(24)
	g := &gatekeeper{Policy: fifo.New(), t: t, decline: map[int]bool{2: true, 5: true}, declined: map[string]bool{}}
	res, err := Run(smallConfig(), fakeSet(), w, g)
	if err != nil {
		t.Fatal(err)
	}
	if g.admits != len(w.Jobs) {
		t.Errorf("Admit called %d times for %d jobs", g.admits, len(w.Jobs))
	}
	kept := &traces.Workload{Source: "kept"}
	for _, j := range w.Jobs {
		if !g.decline[j.Replicas] {
			kept.Jobs = append(kept.Jobs, j)
		}
	}
	ref, err := Run(smallConfig(), fakeSet(), kept, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]JobResult{}
	for _, j := range ref.Jobs {
		byName[j.Name] = j
	}
	nDeclined := 0
	for _, j := range res.Jobs {
		if !g.decline[j.RequestGPUs] {
			want := byName[j.Name]
			// Contention and the fairness baselines count the declined
			// jobs' absence alike; everything else must match exactly.
			if j.FirstStart != want.FirstStart || j.Finish != want.Finish || j.Restarts != want.Restarts || j.GPUSeconds != want.GPUSeconds {
				t.Errorf("admitted job %s: %+v\nwithout the declined jobs: %+v", j.Name, j, want)
			}
			continue
		}
		nDeclined++
		if j.Declined != "asks for too many GPUs" || j.FirstStart != 0 || j.Queueing != 0 ||
			j.Finish != j.Submit || j.JCT != 0 || j.GPUSeconds != 0 || j.Epochs != 0 || j.ExclusiveJCT != 0 {
			t.Errorf("declined job %s: %+v", j.Name, j)
		}
	}
	if nDeclined != 8 {
		t.Fatalf("%d jobs declined, want the 8 asking for 2 or 5 GPUs", nDeclined)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"avg JCT", res.Summary.AvgJCT, ref.Summary.AvgJCT}, {"p99 JCT", res.Summary.P99JCT, ref.Summary.P99JCT},
		{"avg queueing", res.Summary.AvgQueueing, ref.Summary.AvgQueueing}, {"makespan", res.Summary.Makespan, ref.Summary.Makespan},
		{"GPU hours", res.Summary.GPUHours, ref.Summary.GPUHours}} {
		if f.got != f.want {
			t.Errorf("%s %v, without the declined jobs %v", f.name, f.got, f.want)
		}
	}
}

// Declining every job ends the run at once, with finite figures.
func TestAdmissionDeclinesAll(t *testing.T) {
	w := fakeWorkload(traces.Job{Name: "a", Time: 5, App: "toy", Replicas: 1, Batch: 32},
		traces.Job{Name: "b", Time: 9, App: "toy", Replicas: 1, Batch: 32, Deadline: 100})
	g := &gatekeeper{Policy: fifo.New(), t: t, decline: map[int]bool{1: true}, declined: map[string]bool{}}
	res, err := Run(smallConfig(), fakeSet(), w, g)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.AvgJCT != 0 || res.Summary.AvgQueueing != 0 || res.Summary.Rounds != 0 {
		t.Errorf("summary %+v", res.Summary)
	}
	if res.Jobs[1].Deadline != 109 {
		t.Errorf("declined job's deadline %v, want 9 + 100", res.Jobs[1].Deadline)
	}
	if _, ok := res.Jobs[1].Late(); ok {
		t.Error("a declined job has a lateness")
	}
	// A sweep stores the jobs as JSON: a declined job must be finite.
	if _, err := json.Marshal(res.Jobs); err != nil {
		t.Errorf("the jobs do not marshal: %v", err)
	}
}

// The phase table allows a job to be declined only at its submission.
func TestDeclinedPhase(t *testing.T) {
	for from := phase(0); int(from) < nPhases; from++ {
		want := from == phaseFuture
		if got := transitions[from][phaseDeclined]; got != want {
			t.Errorf("%s -> declined allowed: %v", from, got)
		}
		if transitions[phaseDeclined][from] {
			t.Errorf("declined -> %s allowed", from)
		}
	}
	if !strings.Contains(phaseDeclined.String(), "declined") {
		t.Error(phaseDeclined.String())
	}
}

// A deadline that is not a finite number of seconds ≥ 0 is refused before
// the run starts, naming the job.
func TestBadDeadlineRefused(t *testing.T) {
	for _, d := range []float64{-1, math.NaN(), math.Inf(1)} {
		w := fakeWorkload(traces.Job{Name: "a", Time: 5, App: "toy", Replicas: 1, Batch: 32, Deadline: d})
		if _, err := Run(smallConfig(), fakeSet(), w, fifo.New()); err == nil || !strings.Contains(err.Error(), "job a (job 1): bad deadline") {
			t.Errorf("deadline %v: error %v", d, err)
		}
	}
}
