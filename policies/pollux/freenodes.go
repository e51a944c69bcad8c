package pollux

import mbits "math/bits"

// freeNodes indexes the nodes by free GPUs so that local search finds the
// freest node, and the freest node no multi-node job uses, without
// scanning every node for every job: one bitset of nodes per number of
// free GPUs, for all nodes and for the clean ones. Ties go to the lowest
// node, as a scan in node order would.
type freeNodes struct {
	all, clean [][]uint64 // [free GPUs][word]; index 0 unused
	regF       []int32    // free GPUs a node is filed under (0: not filed)
	regClean   []bool     // whether it is filed as clean
}

func newFreeNodes(caps []int32) *freeNodes {
	maxF := int32(0)
	for _, c := range caps {
		maxF = max(maxF, c)
	}
	words := (len(caps) + 63) / 64
	fn := &freeNodes{all: make([][]uint64, maxF+1), clean: make([][]uint64, maxF+1),
		regF: make([]int32, len(caps)), regClean: make([]bool, len(caps))}
	for f := int32(1); f <= maxF; f++ {
		fn.all[f], fn.clean[f] = make([]uint64, words), make([]uint64, words)
	}
	return fn
}

// update refiles node c with free GPUs f, clean or not.
func (fn *freeNodes) update(c int32, f int32, clean bool) {
	w, b := c>>6, uint64(1)<<(c&63)
	if old := fn.regF[c]; old > 0 {
		fn.all[old][w] &^= b
		if fn.regClean[c] {
			fn.clean[old][w] &^= b
		}
	}
	if f <= 0 {
		fn.regF[c], fn.regClean[c] = 0, false
		return
	}
	fn.regF[c], fn.regClean[c] = f, clean
	fn.all[f][w] |= b
	if clean {
		fn.clean[f][w] |= b
	}
}

// best returns the freest node and the freest clean one (−1: none).
func (fn *freeNodes) best() (best, bestClean int32) {
	best, bestClean = -1, -1
	for f := len(fn.all) - 1; f >= 1 && (best < 0 || bestClean < 0); f-- {
		if best < 0 {
			best = firstBit(fn.all[f])
		}
		if bestClean < 0 {
			bestClean = firstBit(fn.clean[f])
		}
	}
	return best, bestClean
}

func firstBit(ws []uint64) int32 {
	for w, x := range ws {
		if x != 0 {
			return int32(w*64 + mbits.TrailingZeros64(x))
		}
	}
	return -1
}
