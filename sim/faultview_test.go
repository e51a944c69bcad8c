package sim

import (
	"testing"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/traces"
)

// seesFaults is FIFO recording what it is told of interruptions: each
// job's largest count, and whether a count ever grew on a job still
// holding GPUs or ever went down.
type seesFaults struct {
	*fifo.Policy
	t    *testing.T
	seen map[string]int
}

func (p *seesFaults) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	for _, j := range jobs {
		last := p.seen[j.Name]
		if j.Interruptions < last {
			p.t.Errorf("t=%v: job %s's interruptions went down from %d to %d", now, j.Name, last, j.Interruptions)
		}
		if j.Interruptions > last && j.Alloc != nil {
			p.t.Errorf("t=%v: job %s was interrupted (%d to %d) yet holds %v", now, j.Name, last, j.Interruptions, j.Alloc)
		}
		p.seen[j.Name] = j.Interruptions
	}
	return p.Policy.Schedule(now, c, jobs)
}

// A policy sees the interrupted jobs: each job's count of interruptions
// in its views grows only on a job that lost its GPUs, and ends at the
// job's figure in the result (every interruption is seen, as the job must
// be placed again to finish); without a fault model it is always 0.
func TestPolicySeesInterruptions(t *testing.T) {
	m := &faults.Model{Rate: 24, JobFailRate: 4, Repair: faults.Dist{Kind: "fixed", Mean: 600}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600}}
	w := &traces.Workload{Source: "seen", Jobs: []traces.Job{
		{Name: "a", App: "work", Replicas: 2, Batch: 64},
		{Name: "b", Time: 100, App: "work", Replicas: 1, Batch: 64},
		{Name: "c", Time: 200, App: "work", Replicas: 2, Batch: 64},
	}}
	for _, model := range []*faults.Model{m, nil} {
		cfg := DefaultConfig()
		cfg.Cluster = policies.Cluster{Nodes: 6, GPUsPerNode: 1}
		cfg.Failures, cfg.FaultSeed = model, 5
		cfg.Rounds = RoundsNone
		p := &seesFaults{Policy: fifo.New(), t: t, seen: map[string]int{}}
		res, err := Run(cfg, workSet(10, 1800), w, p)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, j := range res.Jobs {
			want := 0
			if j.Faults != nil {
				want = j.Faults.Interruptions
			}
			if p.seen[j.Name] != want {
				t.Errorf("failures %v: the policy saw job %s interrupted %d times, the result says %d", model != nil, j.Name, p.seen[j.Name], want)
			}
			total += want
		}
		if model != nil && (total < 5 || total != res.Summary.Faults.Interruptions) {
			t.Errorf("%d interruptions over the jobs, %d in the summary: want a few, the same", total, res.Summary.Faults.Interruptions)
		}
	}
}
