package llm

import (
	"fmt"
	"sort"
)

// Place chooses the nodes of a job of gpus GPUs on a cluster whose node n
// has free[n] free GPUs, under topology topo, taking a multiple of unit
// GPUs on every node it uses: unit is the job's tensor degree, so no
// tensor group spans nodes (Plan then accepts that degree). The rule, in
// order of priority:
//
//  1. fewest racks: when one rack can hold the job, one rack, the one
//     that needs the fewest nodes (then the fewest usable GPUs, then the
//     lowest index); otherwise the racks with the most usable GPUs, as
//     few as can hold it, the last of them the rack that lets the job use
//     the fewest nodes (then the fewest usable GPUs, then the lowest
//     index);
//  2. fewest nodes within those racks: the nodes with the most usable
//     GPUs first, each taken whole, until one node can hold the rest;
//  3. the rest on the node with the fewest usable GPUs that holds it
//     (best fit, leaving large holes for large jobs); ties go to the
//     lowest node index.
//
// A node's usable GPUs are its free GPUs rounded down to a multiple of
// unit. The allocation lists nodes in index order. Place fails, saying
// why, when the inputs are malformed or the job does not fit.
func Place(free []int, topo Topology, gpus, unit int) (Allocation, error) {
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	switch {
	case unit < 1 || unit > 1<<20:
		return nil, fmt.Errorf("place: unit %d, want ≥ 1 (the job's tensor degree)", unit)
	case gpus < 1 || gpus%unit != 0:
		return nil, fmt.Errorf("place: %d GPUs, want a positive multiple of the unit %d", gpus, unit)
	}
	usable := make([]int, len(free))
	racks := map[int][]int{} // rack → its nodes with usable GPUs
	total := map[int]int{}   // rack → its usable GPUs
	all := 0
	for n, f := range free {
		if f < 0 || f > 1<<20 {
			return nil, fmt.Errorf("place: %d free GPUs on node %d, want ≥ 0", f, n)
		}
		usable[n] = f / unit * unit
		if usable[n] > 0 {
			r := topo.Rack(n)
			racks[r] = append(racks[r], n)
			total[r] += usable[n]
			all += usable[n]
		}
	}
	if all < gpus {
		return nil, fmt.Errorf("place: %d GPUs in multiples of %d on a node asked, %d free", gpus, unit, all)
	}
	ids := make([]int, 0, len(racks))
	for r := range racks {
		ids = append(ids, r)
	}
	sort.Slice(ids, func(i, j int) bool {
		if total[ids[i]] != total[ids[j]] {
			return total[ids[i]] > total[ids[j]]
		}
		return ids[i] < ids[j]
	})
	// The largest racks until the rest fits in one more rack.
	var chosen []int
	rest := gpus
	for _, r := range ids {
		if rest <= total[r] {
			break
		}
		chosen = append(chosen, r)
		rest -= total[r]
	}
	// The last rack: the fewest nodes, then the fewest usable GPUs, then
	// the lowest index.
	type choice struct{ rack, nodes int }
	var best *choice
	for _, r := range ids[len(chosen):] {
		if total[r] < rest {
			continue
		}
		var pool []int
		for _, c := range chosen {
			pool = append(pool, racks[c]...)
		}
		pool = append(pool, racks[r]...)
		k := len(fill(pool, usable, gpus))
		if best == nil || k < best.nodes || k == best.nodes &&
			(total[r] < total[best.rack] || total[r] == total[best.rack] && r < best.rack) {
			best = &choice{rack: r, nodes: k}
		}
	}
	var pool []int
	for _, c := range append(chosen, best.rack) {
		pool = append(pool, racks[c]...)
	}
	a := fill(pool, usable, gpus)
	sort.Slice(a, func(i, j int) bool { return a[i].Node < a[j].Node })
	return a, nil
}

// fill takes gpus GPUs from the nodes of pool, whose usable GPUs hold
// them: the nodes with the most first, whole, until one node can hold the
// rest, which goes to the node with the fewest that can (ties to the
// lowest index).
func fill(pool, usable []int, gpus int) Allocation {
	p := append([]int(nil), pool...)
	sort.Slice(p, func(i, j int) bool {
		if usable[p[i]] != usable[p[j]] {
			return usable[p[i]] > usable[p[j]]
		}
		return p[i] < p[j]
	})
	var a Allocation
	rest := gpus
	for i := 0; rest > 0; i++ {
		// p[i:] is by usable GPUs, most first: the best fit for the rest
		// is the last node that holds it, the first of its size.
		holds := i + sort.Search(len(p)-i, func(k int) bool { return usable[p[i+k]] < rest })
		if holds > i {
			least := usable[p[holds-1]]
			fit := i + sort.Search(holds-i, func(k int) bool { return usable[p[i+k]] <= least })
			return append(a, NodeShare{Node: p[fit], GPUs: rest})
		}
		a = append(a, NodeShare{Node: p[i], GPUs: usable[p[i]]})
		rest -= usable[p[i]]
	}
	return a
}
