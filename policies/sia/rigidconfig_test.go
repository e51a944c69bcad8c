package sia

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// A rigid job is offered exactly its request on each GPU type that has
// the nodes for it: 6 GPUs on nodes of 4 is two nodes, spread; a type
// whose every node is down (a pool of none, under failures) or too small
// offers nothing.
func TestRigidConfigs(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 0, GPUsPerNode: 8},
		policies.Pool{Type: "v100", Nodes: 1, GPUsPerNode: 4})
	opt := DefaultOptions()
	opt.Rigid = true
	p := New(opt, policies.Env{RestartDelay: 30})
	j := artifactJob(c)
	j.Request.GPUs = 6
	cfgs, _ := p.options(0, c, newRound(c), &j)
	if len(cfgs) != 1 || cfgs[0].gpus != 6 || cfgs[0].nodes != 2 || !cfgs[0].spread || newRound(c).types[cfgs[0].typ] != "t4" {
		t.Errorf("6 GPUs on t4 2x4, a100 0x8, v100 1x4: configurations %+v, want one: 6 GPUs on 2 t4 nodes, spread", cfgs)
	}
	d := p.Schedule(0, c, []policies.Job{j})
	if policies.Sum(d.Alloc[0]) != 6 || c.AllocType(d.Alloc[0]) != "t4" {
		t.Errorf("allocation %v, want 6 t4 GPUs", d.Alloc[0])
	}
}
