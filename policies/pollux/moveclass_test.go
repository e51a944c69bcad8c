package pollux

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// scanMoves is bestMove by a scan of every candidate in order, as local
// search did before the move classes: the reference bestMove must agree
// with.
func scanMoves(ls *local, i int, a int32, cand []int32, movedConflicts int, ti float64) (int, float64) {
	best, bestGain := -1, math.Inf(-1)
	for x, b := range cand {
		if b == a || ls.used[b] >= ls.pr.caps[b] {
			continue
		}
		n2, k2, d2 := ls.changeWith(i, ls.candV[x], ls.candB[x], +1)
		if !ls.allowedWith(i, n2, k2, movedConflicts, -1, b, ls.candV[x]) {
			continue
		}
		if g := ls.gain(ti, ls.termAt(i, n2, k2, d2 > 0)); g > bestGain || (best < 0 && g == bestGain) {
			best, bestGain = x, g
		}
	}
	return best, bestGain
}

// TestBestMoveMatchesScan: on random instances small and large, from
// repaired random states and after each sweep, for every GPU of every
// job, the move picked by class is the one a scan of every candidate
// picks (the first of the largest gain), with the same gain; ties are
// made likely by instances whose jobs share one model.
func TestBestMoveMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	found, compared := 0, 0
	for inst := 0; inst < 120; inst++ {
		c := policies.Cluster{Nodes: 2 + rng.IntN(8), GPUsPerNode: 1 + rng.IntN(8)}
		if inst%3 == 2 {
			c.Nodes = manyNodes + 1 + rng.IntN(40)
		}
		jobs := testJobs(2+rng.IntN(30), c.Nodes, rng.Uint64())
		if inst%2 == 1 {
			oneModel(jobs)
		}
		// Current allocations of several GPUs on up to two nodes, so
		// that candidates differ in how they compare with them.
		for i := range jobs {
			if jobs[i].Alloc != nil {
				a := make([]int, c.Nodes)
				for range 1 + rng.IntN(2) {
					a[rng.IntN(c.Nodes)] = 1 + rng.IntN(c.GPUsPerNode)
				}
				jobs[i].Alloc = a
			}
		}
		opt := DefaultOptions()
		opt.NoInterferenceAvoidance = rng.IntN(2) == 0
		opt.MaxNodesPerJob = []int{2, 4, 16}[rng.IntN(3)]
		opt.MaxGPUsPerJob = []int{0, 3, 64}[rng.IntN(3)]
		pr := newProblem(c, jobs, len(jobs), opt, nil)
		sweepStates(pr, inst, func(k int) state {
			if k == 2 {
				return nearBase(rng, pr)
			}
			return randomState(rng, pr)
		}, func(ls *local) {
			f, n := checkMoves(t, ls)
			found, compared = found+f, compared+n
		})
	}
	if found < 2000 || compared < 5000 {
		t.Errorf("%d of %d trials had a move: the comparison is nearly vacuous", found, compared)
	}
}

// checkMoves compares bestMove with scanMoves for every GPU of every job
// of ls, set up as a sweep sets up a job's turn and each trial; it returns
// the trials with a move and the trials compared.
func checkMoves(t *testing.T, ls *local) (found, compared int) {
	t.Helper()
	var cand []int32
	for i := 0; i < ls.pr.nJobs; i++ {
		cand = ls.candidates(i, cand)
		ls.candV, ls.candB = ls.candV[:0], ls.candB[:0]
		for _, b := range cand {
			ls.candV = append(ls.candV, gpusOn(ls.rows[i], b))
			ls.candB = append(ls.candB, gpusOn(ls.pr.base.row(i), b))
		}
		ls.classify(i, cand)
		conflicts := ls.conflicts(i)
		ti := ls.terms[i]
		memo := termMemo{n0: ls.n[i], k0: ls.k[i]}
		n0, k0, d0 := ls.n[i], ls.k[i], ls.diff[i]
		for _, e := range ls.rows[i] {
			n, k, d := ls.change(i, e.node, -1)
			moved := conflicts
			if e.gpus == 1 && ls.conflicting(i, e.node) {
				moved--
			}
			ls.n[i], ls.k[i], ls.diff[i] = n, k, d
			x, g := ls.bestMove(i, e.node, cand, moved, ti, &memo)
			wx, wg := scanMoves(ls, i, e.node, cand, moved, ti)
			ls.n[i], ls.k[i], ls.diff[i] = n0, k0, d0
			compared++
			if x != wx || (x >= 0 && g != wg) {
				t.Fatalf("job %d node %d: move by class to candidate %d (gain %v), by scan to %d (gain %v)", i, e.node, x, g, wx, wg)
			}
			if x >= 0 {
				found++
			}
		}
	}
	return found, compared
}

// nearBase is the current allocation of pr with a few GPUs moved to other
// nodes: rows that differ from it by one GPU here and there, where moves
// back to it (which make the row unchanged) are among the candidates.
func nearBase(rng *rand.Rand, pr *problem) state {
	dense := make([]int, pr.nJobs*pr.nNodes)
	for i := 0; i < pr.nJobs; i++ {
		for _, e := range pr.base.row(i) {
			dense[i*pr.nNodes+int(e.node)] = int(e.gpus)
		}
	}
	var holding []int
	for i := 0; i < pr.nJobs; i++ {
		if len(pr.base.row(i)) > 0 {
			holding = append(holding, i)
		}
	}
	for m := 0; m < 1+rng.IntN(3) && len(holding) > 0; m++ {
		i := holding[rng.IntN(len(holding))]
		if m > 0 && rng.IntN(2) == 0 {
			i = holding[0] // several moves of one job
		}
		r := pr.base.row(i)
		from := int(r[rng.IntN(len(r))].node)
		to := rng.IntN(pr.nNodes)
		if dense[i*pr.nNodes+from] > 0 {
			dense[i*pr.nNodes+from]--
			dense[i*pr.nNodes+to]++
		}
	}
	return fromDense(dense, pr.nJobs, pr.nNodes)
}
