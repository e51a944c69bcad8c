package pollux

import (
	"cmp"
	"math"
	"slices"
)

// Transfers in local search: job i gives a GPU on node a to a receiver
// r. For most receivers r holds no GPU on a, now or in the current
// allocation, and the move's value for r is then the same whatever a is:
// one more GPU on one more node. The sweep caches that value and whether
// it is allowed for each receiver (refreshed whenever a move is applied,
// the only time they can change), with the receivers in order of that
// value, and evaluates the few receivers that hold or held a GPU on a in
// full. The best of the others is then the first in value order that
// may take the GPU, not a scan of them all. The result is the move the
// full evaluation of every receiver would pick, ties included.

// Receiver modes for a GPU on a node the receiver neither holds nor held.
const (
	recvNever   uint8 = iota // over a cap, or a multi-node job with a conflicting node
	recvAlways               // allowed on any node
	recvIfClean              // allowed on a node no multi-node job uses
)

// nodeJobs lists, per node, the jobs holding GPUs on it (in any order).
type nodeJobs struct {
	off  []int32 // node c's slots are jobs[off[c]:off[c+1]]
	n    []int32 // slots in use per node
	jobs []int32
}

// reset sizes nj for room[c] jobs on node c, empty.
func (nj *nodeJobs) reset(room []int32) {
	nj.off = append(nj.off[:0], 0)
	total := int32(0)
	for _, r := range room {
		total += r
		nj.off = append(nj.off, total)
	}
	nj.n = append(nj.n[:0], make([]int32, len(room))...)
	nj.jobs = append(nj.jobs[:0], make([]int32, total)...)
}

func (nj *nodeJobs) on(c int32) []int32 { return nj.jobs[nj.off[c] : nj.off[c]+nj.n[c]] }

func (nj *nodeJobs) add(c, j int32) {
	nj.jobs[nj.off[c]+nj.n[c]] = j
	nj.n[c]++
}

func (nj *nodeJobs) remove(c, j int32) {
	s := nj.on(c)
	for x, o := range s {
		if o == j {
			s[x] = s[len(s)-1]
			nj.n[c]--
			return
		}
	}
}

// fill lists on each node the jobs whose rows (row(i) for i < jobs) use
// it; room[c] must be at least the number of rows using node c.
func (nj *nodeJobs) fill(row func(i int) []entry, jobs int, room []int32) {
	nj.reset(room)
	for i := 0; i < jobs; i++ {
		for _, e := range row(i) {
			nj.add(e.node, int32(i))
		}
	}
}

// initTransfers builds the per-node job lists of the current rows and of
// the current allocation.
func (ls *local) initTransfers() {
	pr := ls.pr
	room := make([]int32, pr.nNodes)
	for c := range room {
		// A job on a node holds a GPU there; there are nJobs jobs in all
		// (on nodes of many GPUs, GPUs alone would size the lists far
		// beyond the jobs).
		room[c] = min(max(pr.caps[c], ls.used[c]), int32(pr.nJobs))
	}
	ls.jobsOn.fill(func(i int) []entry { return ls.rows[i] }, pr.nJobs, room)
	clear(room)
	for _, e := range pr.base.ents {
		room[e.node]++
	}
	ls.baseOn.fill(pr.base.row, pr.nJobs, room)
	ls.excStamp = make([]uint32, pr.nJobs)
}

// refreshReceivers recomputes, for every receiver of the sweep, its
// conflicting nodes and the cached value and mode of one more GPU on a
// node it neither holds nor held.
func (ls *local) refreshReceivers() {
	pr := ls.pr
	ls.recvConflicts = ls.recvConflicts[:0]
	ls.recvGain = ls.recvGain[:0]
	ls.recvMode = ls.recvMode[:0]
	for _, r := range ls.recv {
		conf := ls.conflicts(r)
		ls.recvConflicts = append(ls.recvConflicts, conf)
		// changeWith(r, 0, 0, +1): one more node and GPU, a change.
		n, k := ls.n[r]+1, ls.k[r]+1
		mode := recvAlways
		switch {
		case pr.overCaps(r, n, k):
			mode = recvNever
		case !pr.avoid || n <= 1:
		case conf > 0:
			mode = recvNever
		default:
			mode = recvIfClean
		}
		g := 0.0
		if mode != recvNever {
			g = ls.gain(ls.terms[r], ls.termAt(r, n, k, true))
		}
		ls.recvMode = append(ls.recvMode, mode)
		ls.recvGain = append(ls.recvGain, g)
	}
	ls.sortByGain()
}

// indexReceivers records each job's index in ls.recv (−1: none).
func (ls *local) indexReceivers() {
	if len(ls.recvOf) != ls.pr.nJobs {
		ls.recvOf = make([]int32, ls.pr.nJobs)
	}
	for r := range ls.recvOf {
		ls.recvOf[r] = -1
	}
	for x, r := range ls.recv {
		ls.recvOf[r] = int32(x)
	}
}

// sortByGain lists the receivers that may take a GPU on a node they
// neither hold nor held, by their cached gain, largest first (ties: the
// first receiver first): byGain[0] those allowed on any node, byGain[1]
// those allowed on a clean node (recvAlways and recvIfClean). A gain that
// is NaN is left out: no transfer with it is ever picked.
func (ls *local) sortByGain() {
	all, clean := ls.byGain[0][:0], ls.byGain[1][:0]
	for x, mode := range ls.recvMode {
		if mode == recvNever || math.IsNaN(ls.recvGain[x]) {
			continue
		}
		if mode == recvAlways {
			all = append(all, int32(x))
		}
		clean = append(clean, int32(x))
	}
	byGain := func(a, b int32) int {
		if c := cmp.Compare(ls.recvGain[b], ls.recvGain[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	slices.SortFunc(all, byGain)
	slices.SortFunc(clean, byGain)
	ls.byGain[0], ls.byGain[1] = all, clean
}

// bestTransfer is the best transfer of job i's GPU on node a, whose loss
// to job i is lose: the receiver and the move's gain (−1 and −Inf if no
// receiver may take it). Ties go to the first receiver.
func (ls *local) bestTransfer(i int, a int32, lose float64) (int, float64) {
	if math.IsInf(lose, 0) || math.IsNaN(lose) {
		return ls.scanTransfer(i, a, lose) // lose + gain need not follow gain
	}
	ls.stampExcluded(a)
	// The best receiver that neither holds nor held a GPU on a: with lose
	// finite, lose + gain grows with gain, so it is the first allowed one
	// in gain order, or an allowed one after it of equal lose + gain
	// that comes first among the receivers.
	list := ls.byGain[0]
	if ls.multi[a] == 0 {
		list = ls.byGain[1]
	}
	bx, bestGain := int32(-1), math.Inf(-1)
	for _, x := range list {
		r := ls.recv[x]
		if r == i || ls.excStamp[r] == ls.excGen {
			continue
		}
		g := lose + ls.recvGain[x]
		if bx >= 0 && g < bestGain {
			break
		}
		if g > bestGain || (g == bestGain && bx >= 0 && x < bx) {
			bx, bestGain = x, g
		}
	}
	// The receivers that hold or held a GPU on a, in full.
	for _, on := range [2][]int32{ls.jobsOn.on(a), ls.baseOn.on(a)} {
		for _, j := range on {
			x := ls.recvOf[j]
			if x < 0 || int(j) == i || ls.excStamp[j] != ls.excGen {
				continue
			}
			ls.excStamp[j] = ls.excGen - 1 // evaluated once
			if g, ok := ls.transferTo(int(j), int(x), a, lose); ok && (g > bestGain || (g == bestGain && bx >= 0 && x < bx)) {
				bx, bestGain = x, g
			}
		}
	}
	if bx < 0 {
		return -1, math.Inf(-1)
	}
	return ls.recv[bx], bestGain
}

// stampExcluded stamps the jobs that hold or held a GPU on node a: their
// transfers are evaluated in full.
func (ls *local) stampExcluded(a int32) {
	ls.excGen++
	if ls.excGen <= 1 { // wrapped (or new): clear for real
		clear(ls.excStamp)
		ls.excGen = 2 // excGen − 1 marks "evaluated" and must not be 0
	}
	for _, j := range ls.jobsOn.on(a) {
		ls.excStamp[j] = ls.excGen
	}
	for _, j := range ls.baseOn.on(a) {
		ls.excStamp[j] = ls.excGen
	}
}

// transferTo is the gain of the transfer of a GPU on node a, lost at
// lose, to receiver r (index x in ls.recv), which holds or held a GPU on
// a; false if r may not take it.
func (ls *local) transferTo(r, x int, a int32, lose float64) (float64, bool) {
	pr := ls.pr
	if ls.k[r]+1 > pr.maxGPUs[r] {
		return 0, false
	}
	v := gpusOn(ls.rows[r], a)
	nr, kr, dr := ls.changeWith(r, v, gpusOn(pr.base.row(r), a), +1)
	if !ls.allowedWith(r, nr, kr, ls.recvConflicts[x], -1, a, v) {
		return 0, false
	}
	return lose + ls.gain(ls.terms[r], ls.termAt(r, nr, kr, dr > 0)), true
}

// scanTransfer is bestTransfer by a scan of every receiver, in order.
func (ls *local) scanTransfer(i int, a int32, lose float64) (int, float64) {
	ls.stampExcluded(a)
	clean := ls.multi[a] == 0
	best, bestGain := -1, math.Inf(-1)
	for x, r := range ls.recv {
		if r == i {
			continue
		}
		var g float64
		if ls.excStamp[r] == ls.excGen {
			var ok bool
			if g, ok = ls.transferTo(r, x, a, lose); !ok {
				continue
			}
		} else {
			switch ls.recvMode[x] {
			case recvNever:
				continue
			case recvIfClean:
				if !clean {
					continue
				}
			}
			g = lose + ls.recvGain[x]
		}
		if g > bestGain {
			best, bestGain = r, g
		}
	}
	return best, bestGain
}
