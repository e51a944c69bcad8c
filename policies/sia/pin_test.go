package sia

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// A job keeps its configuration while the engine's restart delay for its
// application lasts (the calibration's per-application delay when given,
// else the run's), as the artifact keeps a job whose checkpoint-restore
// is under way.
func TestPinnedWhileRestarting(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8})
	for _, tc := range []struct {
		env    policies.Env
		at     float64
		pinned bool
	}{
		{policies.Env{RestartDelay: 30}, 60, false},
		{policies.Env{RestartDelay: 30, RestartDelayByApp: map[string]float64{"toy": 120}}, 60, true},
		{policies.Env{RestartDelay: 30, RestartDelayByApp: map[string]float64{"toy": 120}}, 120, false},
		{policies.Env{RestartDelay: 30, RestartDelayByApp: map[string]float64{"other": 120}}, 60, false},
		{policies.Env{RestartDelay: 90}, 60, true},
	} {
		p := New(DefaultOptions(), tc.env)
		j := artifactJob(c)
		d := p.Schedule(0, c, []policies.Job{j})
		if policies.Sum(d.Alloc[0]) == 0 {
			t.Fatalf("%+v: the job was not started", tc.env)
		}
		j.Alloc = d.Alloc[0]
		r := newRound(c)
		p.observe(c, []policies.Job{j})
		prob, cfgs := p.problem(tc.at, c, r, []policies.Job{j})
		want := -1
		if tc.pinned {
			want = current(c, r, &j, cfgs[0])
		}
		if prob.Fixed[0] != want || (tc.pinned && want < 0) {
			t.Errorf("%+v at %v s: fixed %d, want %d (pinned %v)", tc.env, tc.at, prob.Fixed[0], want, tc.pinned)
		}
	}
}
