package autoscalers

import (
	"github.com/polluxsim/polluxsim/policies"
)

// State is what an autoscaler sees each round.
type State struct {
	// Now is the simulated time, seconds.
	Now float64
	// Cluster holds the ready nodes only: nodes being provisioned are not
	// offered to policies and contribute nothing.
	Cluster policies.Cluster
	// Provisioning is the number of nodes ordered but not yet ready.
	Provisioning int
	// MinNodes and MaxNodes bound the cluster (ready plus provisioning).
	MinNodes, MaxNodes int
	// Jobs are the active jobs, as the policy sees them.
	Jobs []policies.Job
}

// Autoscaler decides, once per scheduling round, how many nodes the
// cluster should have. Like a Policy it may keep state between rounds;
// create one per simulation.
type Autoscaler interface {
	// Name identifies the autoscaler, e.g. "goodput".
	Name() string
	// Target returns the desired number of nodes, ready and provisioning
	// together. The engine clamps it to [MinNodes, MaxNodes]; orders nodes
	// when it exceeds the ready and provisioning ones, and otherwise
	// cancels provisioning nodes first, then releases ready ones.
	Target(s State) int
}

// Clamp bounds n to [lo, hi], and to at least one node.
func Clamp(n, lo, hi int) int {
	if n > hi {
		n = hi
	}
	if n < lo {
		n = lo
	}
	if n < 1 {
		n = 1
	}
	return n
}

// Current is the state's node count, ready plus provisioning.
func (s State) Current() int { return s.Cluster.Nodes + s.Provisioning }
