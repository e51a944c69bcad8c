package llm

import (
	"fmt"
	"math"
	"sort"
)

// Topology is the network of a cluster of LLM nodes. Every node is an
// NVLink domain of GPU.PerNode GPUs, each GPU with its own NIC of
// GPU.Network bytes/s. With RackNodes = 0 all nodes hang under one
// non-blocking switch; otherwise nodes 0..k−1 form rack 0, k..2k−1 rack 1
// and so on, and racks meet at a spine whose uplinks carry 1/
// Oversubscription of what the rack's NICs can send.
type Topology struct {
	// RackNodes is k, the nodes per rack; 0 for a single tier.
	RackNodes int
	// Oversubscription is the ratio of a rack's NIC bandwidth to its
	// uplink bandwidth to the spine (≥ 1; 1 is non-blocking). Used only
	// when RackNodes > 0.
	Oversubscription float64
}

// Validate reports a rack size or oversubscription that cannot describe
// a network.
func (topo Topology) Validate() error {
	switch {
	case topo.RackNodes < 0 || topo.RackNodes > 1<<20:
		return fmt.Errorf("topology: %d nodes per rack, want 0 (one tier) or a plausible positive size", topo.RackNodes)
	case topo.RackNodes > 0 && !(topo.Oversubscription >= 1 && topo.Oversubscription <= 1e6):
		return fmt.Errorf("topology: oversubscription %g, want a finite ratio ≥ 1 (1 is non-blocking)", topo.Oversubscription)
	}
	return nil
}

// Rack is the rack of node (0 for every node of a single tier).
func (topo Topology) Rack(node int) int {
	if topo.RackNodes <= 0 {
		return 0
	}
	return node / topo.RackNodes
}

// spineFactor is how much slower a node's NICs run for traffic that
// crosses racks: the oversubscription, on the assumption that every node
// of the rack sends across at once (a busy cluster).
func (topo Topology) spineFactor() float64 {
	if topo.RackNodes <= 0 {
		return 1
	}
	return topo.Oversubscription
}

// NodeShare is a job's GPUs on one node of the cluster.
type NodeShare struct {
	Node int // the node's index in the cluster (its rack is Topology.Rack)
	GPUs int
}

// Allocation is a job's GPUs on each node it uses, one share a node.
type Allocation []NodeShare

// AllocationOf is the allocation of a vector of GPUs per node of the
// cluster (the shape of a scheduler's allocation), nodes with none left out.
func AllocationOf(gpusPerNode []int) Allocation {
	var a Allocation
	for n, k := range gpusPerNode {
		if k != 0 {
			a = append(a, NodeShare{Node: n, GPUs: k})
		}
	}
	return a
}

// PerNode is the allocation as a vector of GPUs per node of a cluster of
// nodes nodes (the inverse of AllocationOf); shares on nodes outside the
// cluster are left out.
func (a Allocation) PerNode(nodes int) []int {
	v := make([]int, max(nodes, 0))
	for _, s := range a {
		if s.Node >= 0 && s.Node < len(v) {
			v[s.Node] += s.GPUs
		}
	}
	return v
}

// GPUs is the allocation's GPU count.
func (a Allocation) GPUs() int {
	n := 0
	for _, s := range a {
		n += s.GPUs
	}
	return n
}

// Validate reports a share that no node of GPU type g can hold, or a node
// named twice.
func (a Allocation) Validate(g GPU) error {
	if len(a) == 0 {
		return fmt.Errorf("allocation: no GPUs")
	}
	seen := map[int]bool{}
	for _, s := range a {
		switch {
		case s.Node < 0 || s.Node > 1<<24:
			return fmt.Errorf("allocation: node %d, want an index ≥ 0", s.Node)
		case s.GPUs < 1 || s.GPUs > g.PerNode:
			return fmt.Errorf("allocation: %d GPUs on node %d, want 1 to %d (a %s node)", s.GPUs, s.Node, g.PerNode, g.Name)
		case seen[s.Node]:
			return fmt.Errorf("allocation: node %d named twice", s.Node)
		}
		seen[s.Node] = true
	}
	return nil
}

// ordered is the allocation in the order a layout fills it: by rack, then
// by node index (a launcher's host order, racks kept together so rings
// cross racks as little as the order can make them). Splitting a share
// over its node and the next node of the same rack only refines this
// order, which is why spreading a job never speeds it up (a test).
func (a Allocation) ordered(topo Topology) Allocation {
	o := append(Allocation(nil), a...)
	sort.SliceStable(o, func(i, j int) bool {
		ri, rj := topo.Rack(o[i].Node), topo.Rack(o[j].Node)
		if ri != rj {
			return ri < rj
		}
		return o[i].Node < o[j].Node
	})
	return o
}

// Layout is the order in which a configuration's t·p·d GPUs fill an
// allocation's nodes (taken by rack, then by node index). Tensor-parallel ranks are always innermost, so each tensor group
// is t consecutive GPUs of one node whenever t divides every share.
type Layout int

const (
	// ReplicasInNodes fills nodes replica by replica (tensor, then
	// pipeline, then data): a node holds whole replicas where it can, and
	// data-parallel rings cross nodes. On whole nodes it is the layout
	// Calibration.Step assumes.
	ReplicasInNodes Layout = iota
	// StagesAcrossNodes fills nodes stage by stage (tensor, then data,
	// then pipeline; Megatron-LM's rank order): a node holds one stage of
	// many replicas, pipeline stages sit on different nodes, and
	// data-parallel rings stay inside nodes where they can.
	StagesAcrossNodes
)

var layoutNames = [...]string{"replicas-in-nodes", "stages-across-nodes"}

func (l Layout) String() string {
	if l < 0 || int(l) >= len(layoutNames) {
		return fmt.Sprintf("Layout(%d)", int(l))
	}
	return layoutNames[l]
}

// Layouts are the layouts Plan chooses among.
var layouts = []Layout{ReplicasInNodes, StagesAcrossNodes}

// Nodes places configuration c on allocation a under topology topo with
// layout l and returns the node of each GPU rank, ranks numbered
// tensor-fastest as r = i + t·(j + d·k) for tensor rank i, replica j and
// stage k. It fails when c does not use exactly a's GPUs or when t does not
// divide every share (a tensor group would span nodes).
func (l Layout) Nodes(a Allocation, topo Topology, c Parallelism) ([]int, error) {
	if c.TP < 1 || c.PP < 1 || c.DP < 1 {
		return nil, fmt.Errorf("placement: degrees t=%d p=%d d=%d, want each ≥ 1", c.TP, c.PP, c.DP)
	}
	for _, s := range a {
		if s.GPUs < 1 {
			return nil, fmt.Errorf("placement: %d GPUs on node %d, want ≥ 1", s.GPUs, s.Node)
		}
	}
	if float64(c.TP)*float64(c.PP)*float64(c.DP) != float64(a.GPUs()) {
		return nil, fmt.Errorf("placement: t=%d p=%d d=%d is %d GPUs, the allocation %d", c.TP, c.PP, c.DP, c.GPUs(), a.GPUs())
	}
	if l < ReplicasInNodes || l > StagesAcrossNodes {
		return nil, fmt.Errorf("placement: unknown layout %d", int(l))
	}
	t, p, d := c.TP, c.PP, c.DP
	nodes := make([]int, c.GPUs())
	cell := 0 // the tensor group being placed, in fill order
	for _, s := range a.ordered(topo) {
		if s.GPUs%t != 0 {
			return nil, fmt.Errorf("placement: tensor degree %d does not divide the %d GPUs on node %d", t, s.GPUs, s.Node)
		}
		for range s.GPUs / t {
			var j, k int // replica and stage of this tensor group
			if l == ReplicasInNodes {
				j, k = cell/p, cell%p
			} else {
				j, k = cell%d, cell/d
			}
			base := t * (j + d*k)
			for i := range t {
				nodes[base+i] = s.Node
			}
			cell++
		}
	}
	return nodes, nil
}

// placedLinks are the links of configuration c laid out by l on a: each
// data-parallel group (a tensor rank of a stage across the d replicas)
// runs at NVLink when it is inside one node; otherwise at q·Network, q
// the fewest of its members on any node it touches (those members drive
// q NICs at once, as in Step), divided by the spine factor when it spans
// racks, and at most NVLink. The step waits for the slowest group.
func (g GPU) placedLinks(a Allocation, topo Topology, c Parallelism, l Layout) (links, error) {
	nodes, err := l.Nodes(a, topo, c)
	if err != nil {
		return links{}, err
	}
	t, p, d := c.TP, c.PP, c.DP
	out := links{data: g.NVLink}
	count := map[int]int{}
	racks := map[int]bool{}
	// The t groups of a stage share their nodes (a tensor group sits on
	// one node), so tensor rank 0 stands for them all.
	for k := range p {
		clear(count)
		clear(racks)
		for j := range d {
			n := nodes[t*(j+d*k)]
			count[n]++
			racks[topo.Rack(n)] = true
		}
		if len(count) == 1 {
			continue
		}
		out.acrossNodes = true
		q := math.MaxInt
		for _, v := range count {
			q = min(q, v)
		}
		bw := float64(q) * g.Network
		if len(racks) > 1 {
			bw /= topo.spineFactor()
		}
		out.data = math.Min(out.data, bw)
	}
	return out, nil
}
