package sim

import (
	"fmt"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// This file holds the cluster a policy sees under failures: which machine
// (physical node) each of its nodes is, the spare nodes held back
// (faults.Model.Spares), node pools, and the machines of an elastic
// cluster. docs/failures.md states the rules.
//
// Every machine is in one state: serving (a node of the cluster the policy
// sees), spare (up, held back), down (failed, in the cluster: it comes
// back when repaired) or free (an elastic cluster's machine it does not
// hold; its faults go on, unseen). The policy's nodes are the serving
// machines, pool by pool in the cluster's pool order; a machine that
// comes back into service joins the end of its pool.

// machineState is a machine's state under failures.
type machineState uint8

const (
	serving machineState = iota
	spare
	down
	free
)

// faultView is the engine's book of machines under failures.
type faultView struct {
	// phys is the machine of each node of the cluster the policy sees;
	// types, pool and state are per machine: its GPU type, its pool's
	// index (0 without pools) and its state.
	phys  []int
	types []string
	pool  []int
	state []machineState
	// isDown marks the machines a fault holds down (any state).
	isDown []bool
	// spares are the spare machines, in the order they became spares.
	spares []int
	// pools are the cluster's pools (nil: none); slots the nodes of each
	// pool to keep in service (its nodes less its spares; any number on
	// an elastic cluster).
	pools []policies.Pool
	slots []int
	// inDown counts the machines in state down.
	inDown int
}

// servedCluster is the cluster a policy sees at the start of a run with k
// spare nodes held back per pool (the last k of each pool; of the
// cluster without pools): k = 0 is c itself.
func servedCluster(c policies.Cluster, k int) (policies.Cluster, error) {
	if k == 0 {
		return c, nil
	}
	if len(c.Pools) == 0 {
		if k >= c.Nodes {
			return c, fmt.Errorf("--failures spares=%d: the cluster has %d nodes, at least one must stay in service", k, c.Nodes)
		}
		c.Nodes -= k
		return c, nil
	}
	pools := slices.Clone(c.Pools)
	for i := range pools {
		if k >= pools[i].Nodes {
			return c, fmt.Errorf("--failures spares=%d: cluster pool %d (%s) has %d nodes, at least one must stay in service (spares are held back in each pool)", k, i+1, pools[i].Type, pools[i].Nodes)
		}
		pools[i].Nodes -= k
	}
	return policies.NewCluster(pools...), nil
}

// newFaultView lays out the machines of cluster full (machines beyond
// its nodes up to machines, an elastic cluster's, free) with k spares per
// pool.
func newFaultView(full policies.Cluster, machines, k int, elastic bool) *faultView {
	v := &faultView{types: make([]string, machines), pool: make([]int, machines),
		state: make([]machineState, machines), isDown: make([]bool, machines)}
	v.pools = full.Pools
	// One pool of the whole cluster without pools.
	sizes := []int{full.Nodes}
	if len(full.Pools) > 0 {
		sizes = sizes[:0]
		for _, p := range full.Pools {
			sizes = append(sizes, p.Nodes)
		}
	}
	n := 0
	for i, size := range sizes {
		slot := size - k
		if elastic {
			slot = machines
		}
		v.slots = append(v.slots, slot)
		for m := 0; m < size; m, n = m+1, n+1 {
			v.types[n], v.pool[n] = full.NodeType(n), i
			if m < size-k {
				v.state[n] = serving
				v.phys = append(v.phys, n)
			} else {
				v.state[n] = spare
				v.spares = append(v.spares, n)
			}
		}
	}
	for ; n < machines; n++ {
		v.types[n], v.state[n] = full.NodeType(0), free
	}
	return v
}

// place is the node of the policy's cluster that machine m is (-1: none).
func (v *faultView) place(m int) int { return slices.Index(v.phys, m) }

// takeSpare removes and returns a spare of pool p (the longest held), or
// -1.
func (v *faultView) takeSpare(p int) int {
	for i, s := range v.spares {
		if v.pool[s] == p && !v.isDown[s] {
			v.spares = slices.Delete(v.spares, i, i+1)
			return s
		}
	}
	return -1
}

// served counts the serving machines of pool p.
func (v *faultView) served(p int) int {
	k := 0
	for _, m := range v.phys {
		if v.pool[m] == p {
			k++
		}
	}
	return k
}

// goDown applies machines going down to the view: a serving machine is
// replaced in its place by a spare of its pool that is up, or leaves
// the cluster the policy sees. It returns the new machine of each place
// and which places lost their machine (replaced or gone).
func (v *faultView) goDown(ms []int) (next []int, hit []bool) {
	next = slices.Clone(v.phys)
	hit = make([]bool, len(v.phys))
	for _, m := range ms {
		v.isDown[m] = true // no spare going down with them replaces them
	}
	for _, m := range ms {
		switch v.state[m] {
		case spare:
			v.spares = slices.DeleteFunc(v.spares, func(s int) bool { return s == m })
		case serving:
			i := v.place(m)
			hit[i] = true
			if s := v.takeSpare(v.pool[m]); s >= 0 {
				next[i] = s
				v.state[s] = serving
			} else {
				next[i] = -1
			}
		case free:
			continue
		}
		v.state[m] = down
		v.inDown++
	}
	return slices.DeleteFunc(next, func(m int) bool { return m < 0 }), hit
}

// comeUp applies machines coming back: a down machine rejoins the
// service at the end of its pool if its pool is short of nodes, else it
// becomes a spare. It returns the new machine of each place.
func (v *faultView) comeUp(ms []int) []int {
	next := slices.Clone(v.phys)
	for _, m := range ms {
		v.isDown[m] = false
		if v.state[m] != down {
			continue // a free machine: nothing to the cluster
		}
		v.inDown--
		p := v.pool[m]
		if v.servedIn(next, p) >= v.slots[p] {
			v.state[m] = spare
			v.spares = append(v.spares, m)
			continue
		}
		v.state[m] = serving
		// After the last machine of pools up to p.
		i := len(next)
		for i > 0 && v.pool[next[i-1]] > p {
			i--
		}
		next = slices.Insert(next, i, m)
	}
	return next
}

// servedIn counts the machines of pool p in places.
func (v *faultView) servedIn(places []int, p int) int {
	k := 0
	for _, m := range places {
		if v.pool[m] == p {
			k++
		}
	}
	return k
}

// remap makes next the machines of the policy's nodes: each job's
// allocation moves with its machines (a job holds none of the machines
// that left), and the cluster the policy sees is rebuilt. Each node's GPU
// type must be its machine's (checked: an invariant of the view).
func (e *engine) remap(next []int) error {
	v := e.failures.view
	at := make(map[int]int, len(v.phys))
	for i, m := range v.phys {
		at[m] = i
	}
	for _, j := range e.jobs {
		if j.alloc == nil {
			continue
		}
		a := make([]int, len(next))
		for i, m := range next {
			if k, ok := at[m]; ok {
				a[i] = j.alloc[k]
			}
		}
		j.alloc = a // same placement: only empty columns come and go
	}
	v.phys = next
	if v.pools == nil {
		e.cfg.Cluster.Nodes = len(next)
		return nil
	}
	pools := slices.Clone(v.pools)
	for i := range pools {
		pools[i].Nodes = v.servedIn(next, i)
	}
	e.cfg.Cluster = policies.NewCluster(pools...)
	for n, m := range next {
		if t := e.cfg.Cluster.NodeType(n); t != v.types[m] {
			return fmt.Errorf("invariant violated: node %d of the cluster the policy sees is of type %s, its machine %d of type %s (t=%v)", n, t, m, v.types[m], e.now)
		}
	}
	return nil
}

// joinMachines gives an elastic cluster k more machines, the free ones
// of lowest number: those up become nodes at the end of the cluster, those
// down join it down (held, billed, offered when repaired).
func (e *engine) joinMachines(k int) {
	v := e.failures.view
	next := slices.Clone(v.phys)
	for m := 0; m < len(v.state) && k > 0; m++ {
		if v.state[m] != free {
			continue
		}
		k--
		if v.isDown[m] {
			v.state[m] = down
			v.inDown++
			continue
		}
		v.state[m] = serving
		next = append(next, m)
	}
	// An elastic cluster is of one type: nothing to check.
	_ = e.remap(next)
}

// releaseDown releases up to k of an elastic cluster's down machines,
// the lowest numbered first, and returns how many it released.
func (v *faultView) releaseDown(k int) int {
	r := 0
	for m := range v.state {
		if r < k && v.state[m] == down {
			v.state[m] = free
			v.inDown--
			r++
		}
	}
	return r
}

// dropPlaces frees the machines of the places marked gone (an elastic
// cluster releasing ready nodes); the caller renumbers the allocations.
func (v *faultView) dropPlaces(gone []bool) {
	kept := v.phys[:0:0]
	for i, m := range v.phys {
		if gone[i] {
			v.state[m] = free
			continue
		}
		kept = append(kept, m)
	}
	v.phys = kept
}
