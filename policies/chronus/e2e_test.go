package chronus_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/chronus"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// recorder is Chronus noting each job's class at the end of the round it
// arrived in: admitted or not.
type recorder struct {
	*chronus.Policy
	class map[string]chronus.Class
}

func (r *recorder) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := r.Policy.Schedule(now, c, jobs)
	for i := range jobs {
		if _, seen := r.class[jobs[i].Name]; !seen {
			if k, ok := r.Policy.Class(jobs[i].Name); ok {
				r.class[jobs[i].Name] = k
			}
		}
	}
	return d
}

// Chronus' guarantee through the engine: on reference workload 1 (160
// jobs, 16 × 4 GPUs) with deadlines at twice each job's isolated run time
// and at 1.25 times it, every job Chronus admits finishes by its deadline
// (its leases are planned before it, with the artifact's margin over the
// engine's restarts), every job finishes, and jobs are both admitted and
// refused.
func TestAdmittedMeetDeadlines(t *testing.T) {
	set := profiles.Default()
	for _, tight := range []float64{2, 1.25} {
		w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		runTime := func(j *traces.Job) float64 { return sim.IsolatedRunTime(set.Apps[j.App], *j, 4) }
		if err := traces.AssignDeadlines(w, traces.DeadlineOptions{Rule: traces.DeadlineTightness, Tightness: tight, Seed: 1}, runTime); err != nil {
			t.Fatal(err)
		}
		p := &recorder{chronus.New(chronus.DefaultOptions()), map[string]chronus.Class{}}
		res, err := sim.Run(sim.DefaultConfig(), set, w, p)
		if err != nil {
			t.Fatal(err)
		}
		due := map[string]float64{}
		for _, j := range w.Jobs {
			due[j.Name] = j.DueAt()
		}
		admitted, other := 0, 0
		for _, j := range res.Jobs {
			if p.class[j.Name] != chronus.Accepted {
				other++
				continue
			}
			admitted++
			if j.Finish > due[j.Name] {
				t.Errorf("tightness %v: admitted job %s finished at %.0f, its deadline %.0f", tight, j.Name, j.Finish, due[j.Name])
			}
		}
		if len(res.Jobs) != len(w.Jobs) || admitted == 0 || other == 0 {
			t.Errorf("tightness %v: %d of %d jobs finished, %d admitted, %d not", tight, len(res.Jobs), len(w.Jobs), admitted, other)
		}
		t.Logf("tightness %v: %d admitted, all met; %d not admitted", tight, admitted, other)
	}
}

// A lone job on an idle cluster of 2 × 4 GPUs, with a deadline of 3, 10^7,
// 10^9 or 10^308 seconds, finishes within one lease of its run as a
// best-effort job (no deadline), whose own first lease starts at once:
// admitted, it first runs at the next lease boundary (as in the artifact)
// and then in every lease, the adaptive objective pulling its plan forward
// while no unaccepted job waits. Before, its plan sat at the end of its
// window: the 3× job finished late in it, the 10^7-s one stalled the run
// (no GPU allocated for 2·10^6 s), the 10^9-s one hung sizing its plan
// and the 10^308-s one ran out of memory.
func TestLoneJobRunsAtOnce(t *testing.T) {
	set := profiles.Default()
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	run := func(deadline float64) float64 {
		t.Helper()
		w := &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "c0", App: "cifar10", Replicas: 1, Batch: 128, Deadline: deadline}}}
		res, err := sim.Run(cfg, set, w, chronus.New(chronus.DefaultOptions()))
		if err != nil {
			t.Fatalf("deadline %g: %v", deadline, err)
		}
		if len(res.Jobs) != 1 {
			t.Fatalf("deadline %g: %d jobs finished", deadline, len(res.Jobs))
		}
		return res.Jobs[0].Finish
	}
	alone := run(0)
	lease := chronus.DefaultOptions().LeaseSeconds
	for _, d := range []float64{3 * alone, 1e7, 1e9, 1e308} {
		if got := run(d); got < alone || got > alone+lease {
			t.Errorf("deadline %g: finished at %.0f s, want within a lease (%.0f s) of its best-effort finish %.0f s", d, got, lease, alone)
		}
	}
}
