package runspec

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// The run's cluster has one representation: the policies.Cluster that
// ClusterOf derives from the spec (the node pools of Cluster when set,
// else Nodes × GPUsPerNode T4 GPUs; an elastic cluster's initial size).
// RunSpec keeps the fields it always had, for its JSON form (stored runs'
// settings, run identities), and SetCluster is their one writer: Nodes and
// GPUsPerNode are the pools' total nodes and largest node, kept in step
// with Cluster there and checked by Validate. Everything else reads the
// cluster through ClusterOf and the accessors below.

// ClusterOf is the run's cluster.
func (s RunSpec) ClusterOf() policies.Cluster {
	if s.Cluster != "" {
		if c, err := ParseCluster(s.Cluster); err == nil { // Validate reports errors
			return c
		}
	}
	return policies.Cluster{Nodes: s.Nodes, GPUsPerNode: s.GPUsPerNode}
}

// SetCluster makes c the run's cluster: its pools in ParseCluster's
// syntax (none for a cluster without pools), its nodes and its largest
// node.
func (s *RunSpec) SetCluster(c policies.Cluster) {
	s.Cluster, s.Nodes, s.GPUsPerNode = ClusterString(c), c.Nodes, c.GPUsPerNode
}

// ClusterGPUs is the GPUs of the run's cluster (an elastic cluster's
// initial size).
func (s RunSpec) ClusterGPUs() int { return s.ClusterOf().TotalGPUs() }

// MaxJobGPUs is the most GPUs a job of the run can ever hold, the one
// bound a workload's requests are checked against (by a run and by a
// sweep's plan, see runner.CheckWorkload): the cluster's GPUs, or on an
// elastic cluster its largest size (the autoscaler's maximum nodes ×
// GPUs per node).
func (s RunSpec) MaxJobGPUs() int {
	n := s.ClusterGPUs()
	if s.Autoscaler != "" {
		_, hi := s.ElasticSpec.bounds(s.Nodes)
		n = max(n, hi*s.GPUsPerNode)
	}
	return n
}

// checkClusterFields reports a spec whose Nodes or GPUsPerNode disagree
// with its pools (a hand-edited spec; SetCluster keeps them in step).
func (s RunSpec) checkClusterFields() error {
	if s.Cluster == "" {
		return nil
	}
	c, err := ParseCluster(s.Cluster)
	if err != nil {
		return err
	}
	if c.Nodes != s.Nodes || c.GPUsPerNode != s.GPUsPerNode {
		return fmt.Errorf("cluster %s has %d nodes of at most %d GPUs, but nodes is %d and gpus_per_node %d: give the pools alone", s.Cluster, c.Nodes, c.GPUsPerNode, s.Nodes, s.GPUsPerNode)
	}
	return nil
}
