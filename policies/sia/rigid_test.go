package sia_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/sia"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// heldAtRequest is Sia recording every allocation that is neither none
// nor exactly the job's request.
type heldAtRequest struct {
	*sia.Policy
	bad     []string
	rounds  int
	running int
}

func (p *heldAtRequest) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := p.Policy.Schedule(now, c, jobs)
	p.rounds++
	for i, a := range d.Alloc {
		if k := policies.Sum(a); k > 0 {
			p.running++
			if k != jobs[i].Request.GPUs && len(p.bad) < 5 {
				p.bad = append(p.bad, jobs[i].Name)
			}
		}
	}
	return d
}

// Sia with the rigid option holds every job at its request: a job gets
// exactly the GPUs it asked for or none, every round, through node
// failures that shrink the cluster (requests of 6 and 12 GPUs on nodes
// of 4 included), and every job finishes.
func TestRigid(t *testing.T) {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Jobs = w.Jobs[:40]
	sizes := map[int]bool{}
	for _, j := range w.Jobs {
		sizes[j.Replicas] = true
	}
	if !sizes[6] || !sizes[12] {
		t.Fatalf("the first jobs of paper:1 ask for %v GPUs: want some 6 and 12", sizes)
	}
	opt := sia.DefaultOptions()
	opt.Rigid = true
	cfg := sim.DefaultConfig()
	cfg.Failures = &faults.Model{Rate: 4, Repair: faults.Dist{Kind: "exp", Mean: 3600}, Checkpoint: faults.DefaultCheckpoint}
	cfg.Rounds = sim.RoundsNone
	p := &heldAtRequest{Policy: sia.New(opt, policies.Env{RestartDelay: cfg.RestartDelay})}
	res, err := sim.Run(cfg, profiles.Default(), w, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.bad) > 0 || p.running == 0 {
		t.Errorf("jobs given other than their request: %v (%d job-rounds running)", p.bad, p.running)
	}
	if res.Summary.Jobs != len(w.Jobs) || res.Summary.Faults.Interruptions == 0 {
		t.Errorf("%d of %d jobs finished, %d interruptions: want all, some", res.Summary.Jobs, len(w.Jobs), res.Summary.Faults.Interruptions)
	}
}
