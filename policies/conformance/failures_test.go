package conformance_test

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
	"github.com/polluxsim/polluxsim/policies/fifo"
)

// fourNodes keeps a job's GPUs on the four nodes it remembers, whatever
// the cluster it is given: it does not see nodes fail.
type fourNodes struct{}

func (fourNodes) Name() string            { return "broken" }
func (fourNodes) Traits() policies.Traits { return policies.Traits{} }

func (fourNodes) Schedule(_ float64, _ policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i := range jobs {
		d.Alloc[i] = make([]int, 4)
		d.Alloc[i][i%4] = 1
	}
	return d
}

// The node-failures scenario gives policies a cluster of the nodes up: a
// policy that keeps allocating over the original four nodes is caught at
// the first round with a node down, and FIFO, which looks at the cluster
// it is given, passes.
func TestNodeFailuresScenario(t *testing.T) {
	var sc conformance.Scenario
	for _, s := range conformance.Scenarios() {
		if s.Name == "node-failures" {
			sc = s
		}
	}
	if sc.Down == nil {
		t.Fatal("no node-failures scenario")
	}
	vs := conformance.Check(sc, func(policies.Env) (policies.Policy, error) { return fourNodes{}, nil })
	if len(vs) == 0 || vs[0].Round != 1 || !strings.Contains(vs[0].Detail, "over 4 nodes, the cluster has 3") {
		t.Errorf("violations %v, want a shape violation at round 1 (4 nodes given, 3 up)", vs)
	}
	if vs := conformance.Check(sc, func(policies.Env) (policies.Policy, error) { return fifo.New(), nil }); len(vs) > 0 {
		t.Errorf("FIFO: %v", vs)
	}
}
