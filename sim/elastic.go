package sim

import (
	"fmt"
	"math"
	"sort"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies"
)

// Elastic makes the cluster elastic (paper §5.4.1): every round, before
// the policy, Autoscaler names a node count in [MinNodes, MaxNodes].
// Nodes ordered become ready ProvisionDelay seconds later, at the first
// round after that; until then they are billed but not offered to the
// policy. Fewer nodes cancel provisioning ones first, then release ready
// ones, the least used first; a job holding GPUs on a released node loses
// its GPUs (it is pending until the policy places it again). Every node
// ordered and not released is billed NodePrice per hour, until the last
// job finishes. Config.Cluster.Nodes is the initial count.
//
// Under failures (Config.Failures) the cluster is drawn from MaxNodes
// machines, each failing and being repaired whether the cluster holds it
// or not: a node that fails is no longer offered but stays held (billed,
// and counted in the autoscaler's count of nodes) until repaired, when
// it is offered again; the autoscaler's releases take nodes down first;
// a node ordered takes the free machine of lowest number, which, if down,
// joins held and down.
type Elastic struct {
	Autoscaler         autoscalers.Autoscaler
	MinNodes, MaxNodes int
	// ProvisionDelay is the time in seconds from ordering a node to its
	// being ready.
	ProvisionDelay float64
	// NodePrice is the price of one node-hour (e.g. dollars).
	NodePrice float64
}

// Check validates the settings for an initial cluster of nodes nodes.
func (el *Elastic) Check(nodes int) error {
	switch {
	case el.Autoscaler == nil:
		return fmt.Errorf("elastic cluster without an autoscaler")
	case el.MinNodes < 1:
		return fmt.Errorf("minimum node count must be at least 1, got %d", el.MinNodes)
	case el.MaxNodes < el.MinNodes:
		return fmt.Errorf("maximum node count %d is below the minimum %d", el.MaxNodes, el.MinNodes)
	case nodes < el.MinNodes || nodes > el.MaxNodes:
		return fmt.Errorf("initial node count %d is outside [%d, %d]", nodes, el.MinNodes, el.MaxNodes)
	case el.ProvisionDelay < 0 || math.IsNaN(el.ProvisionDelay) || math.IsInf(el.ProvisionDelay, 0):
		return fmt.Errorf("provisioning delay must be non-negative, got %v s", el.ProvisionDelay)
	case el.NodePrice < 0 || math.IsNaN(el.NodePrice) || math.IsInf(el.NodePrice, 0):
		return fmt.Errorf("node price must be non-negative, got %v", el.NodePrice)
	}
	return nil
}

// NodeStat is the elastic cluster after one round's autoscaling.
type NodeStat struct {
	Time         float64
	Ready        int // nodes offered to the policy
	Provisioning int // nodes ordered, not yet ready
	// NodeHours are the node-hours billed up to Time.
	NodeHours float64
}

// elasticState is the engine's book of an elastic cluster.
type elasticState struct {
	cfg      *Elastic
	pending  []float64 // ready times of the nodes on order, ascending
	billedTo float64   // time up to which nodeSec is accounted
	nodeSec  float64   // node-seconds billed so far
}

// bill accounts the ordered nodes up to now.
func (es *elasticState) bill(now float64, ready int) {
	if now > es.billedTo {
		es.nodeSec += float64(ready+len(es.pending)) * (now - es.billedTo)
		es.billedTo = now
	}
}

// autoscale runs the autoscaler at the start of a round, after the active
// jobs have been brought up to date, and resizes the cluster.
func (e *engine) autoscale(active []*job) error {
	es := e.elastic
	c := &e.cfg.Cluster
	es.bill(e.now, e.held())
	e.promote()
	views := make([]policies.Job, len(active))
	for i, j := range active {
		j.view(&views[i], e.now, false)
	}
	st := autoscalers.State{Now: e.now, Cluster: *c, Provisioning: len(es.pending),
		MinNodes: es.cfg.MinNodes, MaxNodes: es.cfg.MaxNodes, Jobs: views}
	want := autoscalers.Clamp(es.cfg.Autoscaler.Target(st), es.cfg.MinNodes, es.cfg.MaxNodes)
	have := e.held() + len(es.pending)
	switch {
	case want > have:
		for i := have; i < want; i++ {
			es.pending = append(es.pending, e.now+es.cfg.ProvisionDelay)
		}
		e.promote() // a zero delay makes them ready at once
	case want < have:
		cancel := min(have-want, len(es.pending))
		es.pending = es.pending[:len(es.pending)-cancel]
		if drop := have - want - cancel; drop > 0 {
			if err := e.release(active, drop); err != nil {
				return err
			}
		}
	}
	e.res.NodeStats = append(e.res.NodeStats, NodeStat{Time: e.now, Ready: c.Nodes, Provisioning: len(es.pending), NodeHours: es.nodeSec / 3600})
	return nil
}

// promote makes the nodes whose provisioning is over ready, as empty
// nodes at the end of the cluster.
func (e *engine) promote() {
	es := e.elastic
	n := sort.SearchFloat64s(es.pending, math.Nextafter(e.now, math.Inf(1)))
	if n == 0 {
		return
	}
	es.pending = es.pending[n:]
	if e.failures != nil {
		e.joinMachines(n)
		return
	}
	e.resize(e.cfg.Cluster.Nodes+n, nil)
}

// held is the number of nodes the elastic cluster holds, ordered and
// ready: those offered to the policy and, under failures, those down
// (billed while they are repaired).
func (e *engine) held() int {
	if e.failures != nil {
		return e.cfg.Cluster.Nodes + e.failures.view.inDown
	}
	return e.cfg.Cluster.Nodes
}

// release removes drop ready nodes, the least used first (the last of
// equals), and takes their GPUs from the jobs holding any. Under failures
// the nodes down go first.
func (e *engine) release(active []*job, drop int) error {
	if e.failures != nil {
		if drop -= e.failures.view.releaseDown(drop); drop == 0 {
			return nil
		}
	}
	nodes := e.cfg.Cluster.Nodes
	used := make([]int, nodes)
	for _, j := range active {
		for n, v := range j.alloc {
			used[n] += v
		}
	}
	order := make([]int, nodes)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if used[order[a]] != used[order[b]] {
			return used[order[a]] < used[order[b]]
		}
		return order[a] > order[b]
	})
	gone := make([]bool, nodes)
	for _, n := range order[:drop] {
		gone[n] = true
	}
	for _, j := range active {
		for n, v := range j.alloc {
			if v > 0 && gone[n] {
				j.version++
				j.setAlloc(nil)
				if err := j.setPhase(phasePending, e.now); err != nil {
					return err
				}
				if err := j.tune(e.traits.AdaptiveBatch); err != nil {
					return err
				}
				break
			}
		}
	}
	e.resize(nodes-drop, gone)
	return nil
}

// resize sets the cluster to nodes nodes, removing the nodes marked gone
// (none when growing: new nodes are appended), and rewrites the jobs'
// allocations to the new node numbering.
func (e *engine) resize(nodes int, gone []bool) {
	if e.failures != nil && gone != nil {
		e.failures.view.dropPlaces(gone)
	}
	for _, j := range e.jobs {
		if j.alloc == nil {
			continue
		}
		a := make([]int, 0, nodes)
		for n, v := range j.alloc {
			if gone == nil || !gone[n] {
				a = append(a, v)
			}
		}
		for len(a) < nodes {
			a = append(a, 0)
		}
		j.alloc = a // same placement: only empty columns come and go
	}
	e.cfg.Cluster.Nodes = nodes
}

// finishElastic bills the cluster up to the end of the run.
func (e *engine) finishElastic() {
	if e.elastic == nil {
		return
	}
	e.elastic.bill(e.now, e.held())
	s := &e.res.Summary
	s.NodeHours = e.elastic.nodeSec / 3600
	s.Cost = s.NodeHours * e.elastic.cfg.NodePrice
	if s.NodeHours > 0 {
		// Of the GPUs billed, not of the initial cluster.
		s.Utilisation = s.GPUHours / (s.NodeHours * float64(e.cfg.Cluster.MaxNodeGPUs()))
	}
}
