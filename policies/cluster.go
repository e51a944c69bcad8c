package policies

import (
	"fmt"
	"sort"
)

// DefaultType is the GPU type of a cluster without pools: the measured
// tables of the reference (adaptdl) data set are NVIDIA T4 measurements.
const DefaultType = "t4"

// Pool is a group of identical nodes of one GPU type.
type Pool struct {
	// Type is the canonical GPU type name (see profiles.CanonicalType),
	// e.g. "t4" or "a100".
	Type        string
	Nodes       int
	GPUsPerNode int
	// Price is the cost of one GPU-hour of this pool (0: not priced).
	Price float64
	// Name is an optional label of the pool (from a cluster file).
	Name string
}

// NewCluster returns a cluster of the given pools, nodes numbered pool by
// pool in order. Nodes is the total node count and GPUsPerNode the largest
// node's GPU count (MaxNodeGPUs); the per-node figures are NodeGPUs and
// NodeType.
func NewCluster(pools ...Pool) Cluster {
	c := Cluster{Pools: append([]Pool(nil), pools...)}
	for _, p := range pools {
		c.Nodes += p.Nodes
		c.GPUsPerNode = max(c.GPUsPerNode, p.GPUsPerNode)
	}
	return c
}

// Heterogeneous reports whether the cluster's nodes differ in GPU type or
// GPUs per node.
func (c Cluster) Heterogeneous() bool {
	for _, p := range c.Pools {
		if p.Type != c.Pools[0].Type || p.GPUsPerNode != c.Pools[0].GPUsPerNode {
			return true
		}
	}
	return false
}

// pool returns the index of node n's pool, or -1 for a cluster without
// pools.
func (c Cluster) pool(n int) int {
	for i, p := range c.Pools {
		if n < p.Nodes {
			return i
		}
		n -= p.Nodes
	}
	return -1
}

// NodeGPUs is the number of GPUs of node n.
func (c Cluster) NodeGPUs(n int) int {
	if i := c.pool(n); i >= 0 {
		return c.Pools[i].GPUsPerNode
	}
	return c.GPUsPerNode
}

// MaxNodeGPUs is the most GPUs of any node: every node's GPUs on a cluster
// without pools, the largest node's with them. Policies that pack a job's
// GPUs onto nodes without looking at the nodes themselves (Optimus, SRTF)
// pack onto nodes of this size; what node n holds is NodeGPUs(n).
func (c Cluster) MaxNodeGPUs() int {
	if len(c.Pools) == 0 {
		return c.GPUsPerNode
	}
	k := 0
	for _, p := range c.Pools {
		k = max(k, p.GPUsPerNode)
	}
	return k
}

// NodeType is the GPU type of node n (DefaultType without pools).
func (c Cluster) NodeType(n int) string {
	if i := c.pool(n); i >= 0 {
		return c.Pools[i].Type
	}
	return DefaultType
}

// Types returns the cluster's GPU types, sorted.
func (c Cluster) Types() []string {
	if len(c.Pools) == 0 {
		return []string{DefaultType}
	}
	seen := map[string]bool{}
	var ts []string
	for _, p := range c.Pools {
		if !seen[p.Type] {
			seen[p.Type] = true
			ts = append(ts, p.Type)
		}
	}
	sort.Strings(ts)
	return ts
}

// TypeGPUs is the number of GPUs of type t in the cluster.
func (c Cluster) TypeGPUs(t string) int {
	if len(c.Pools) == 0 {
		if t == DefaultType {
			return c.Nodes * c.GPUsPerNode
		}
		return 0
	}
	k := 0
	for _, p := range c.Pools {
		if p.Type == t {
			k += p.Nodes * p.GPUsPerNode
		}
	}
	return k
}

// AllocType is the GPU type of an allocation (GPUs per node), or "" when
// it holds no GPU or spans more than one type.
func (c Cluster) AllocType(alloc []int) string {
	t := ""
	for n, v := range alloc {
		if v <= 0 {
			continue
		}
		nt := c.NodeType(n)
		if t != "" && nt != t {
			return ""
		}
		t = nt
	}
	return t
}

// NodesType is the GPU type of nodes, or "" when there are none or they
// span more than one type: the AllocType of an allocation holding GPUs on
// exactly these nodes, for a caller that has them at hand (it costs those
// nodes, not the cluster's).
func (c Cluster) NodesType(nodes []int) string {
	t := ""
	for i, n := range nodes {
		nt := c.NodeType(n)
		if i > 0 && nt != t {
			return ""
		}
		t = nt
	}
	return t
}

// Offers reports whether job j may run on GPU type t: its Types list is
// empty (every type) or holds t.
func (j *Job) Offers(t string) bool {
	if len(j.Types) == 0 {
		return true
	}
	for _, x := range j.Types {
		if x == t {
			return true
		}
	}
	return false
}

// MaxOversubscription bounds Cluster.Oversubscription (a ratio beyond it
// describes no network).
const MaxOversubscription = 1e6

// CheckNetwork reports a two-tier network that cannot describe the
// cluster: racks that do not split the nodes into equal racks, or an
// oversubscription that is not a finite ratio in [1, MaxOversubscription]
// (also one given without racks).
func (c Cluster) CheckNetwork() error {
	switch {
	case c.Racks < 0 || c.Racks > 0 && c.Nodes%c.Racks != 0:
		return fmt.Errorf("racks=%d must divide the cluster's %d nodes into racks of equal size", c.Racks, c.Nodes)
	case c.Racks == 0 && c.Oversubscription != 0:
		return fmt.Errorf("oversub=%g needs racks=R (a one-tier network has no spine)", c.Oversubscription)
	case c.Racks > 0 && !(c.Oversubscription >= 1 && c.Oversubscription <= MaxOversubscription):
		return fmt.Errorf("oversub=%g must be a ratio in [1, %g] (1 is non-blocking)", c.Oversubscription, float64(MaxOversubscription))
	}
	return nil
}

// RackNodes is the nodes of each rack of a two-tier network, 0 on one
// tier.
func (c Cluster) RackNodes() int {
	if c.Racks <= 0 || c.Nodes < c.Racks {
		return 0
	}
	return c.Nodes / c.Racks
}

// Rack is the rack of node n (0 on one tier).
func (c Cluster) Rack(n int) int {
	if k := c.RackNodes(); k > 0 {
		return n / k
	}
	return 0
}
