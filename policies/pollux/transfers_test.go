package pollux

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// fullTransfer evaluates every receiver of a transfer of job i's GPU on
// node a in full, as local search did before its cache: the reference
// bestTransfer must agree with.
func fullTransfer(ls *local, i int, a int32, lose float64) (int, float64) {
	best, bestGain := -1, math.Inf(-1)
	for _, rg := range transferGains(ls, i, a, lose) {
		if rg.g > bestGain {
			best, bestGain = rg.r, rg.g
		}
	}
	return best, bestGain
}

// receiverGain is a receiver and the gain of a transfer to it.
type receiverGain struct {
	r int
	g float64
}

// transferGains lists, in receiver order, the receivers that may take job
// i's GPU on node a (lost at lose) and each transfer's gain, evaluated in
// full.
func transferGains(ls *local, i int, a int32, lose float64) []receiverGain {
	pr := ls.pr
	var out []receiverGain
	for _, r := range ls.recv {
		if r == i || ls.k[r]+1 > pr.maxGPUs[r] {
			continue
		}
		v := gpusOn(ls.rows[r], a)
		nr, kr, dr := ls.changeWith(r, v, gpusOn(pr.base.row(r), a), +1)
		if !ls.allowedWith(r, nr, kr, ls.conflicts(r), -1, a, v) {
			continue
		}
		out = append(out, receiverGain{r, lose + ls.gain(ls.terms[r], ls.termAt(r, nr, kr, dr > 0))})
	}
	return out
}

// checkTransfers compares bestTransfer with fullTransfer for every GPU of
// every job, and the per-node job lists with the rows; it returns how
// many transfers had a receiver.
func checkTransfers(t *testing.T, ls *local, what string) int {
	t.Helper()
	found := 0
	for i := 0; i < ls.pr.nJobs; i++ {
		for _, e := range ls.rows[i] {
			n, k, d := ls.change(i, e.node, -1)
			lose := ls.gain(ls.terms[i], ls.termAt(i, n, k, d > 0))
			r, g := ls.bestTransfer(i, e.node, lose)
			wr, wg := fullTransfer(ls, i, e.node, lose)
			if r != wr || (r >= 0 && g != wg) {
				t.Fatalf("%s: job %d node %d: cached transfer to %d (gain %v), in full to %d (gain %v)", what, i, e.node, r, g, wr, wg)
			}
			if r >= 0 {
				found++
			}
		}
	}
	for c := int32(0); c < int32(ls.pr.nNodes); c++ {
		var want []int32
		for i := 0; i < ls.pr.nJobs; i++ {
			if gpusOn(ls.rows[i], c) > 0 {
				want = append(want, int32(i))
			}
		}
		got := slices.Clone(ls.jobsOn.on(c))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: node %d lists jobs %v, the rows hold %v", what, c, got, want)
		}
	}
	return found
}

// TestBestTransferMatchesFullEvaluation: on random small instances and on
// large ones (more nodes and jobs than the exhaustive lists take), from
// repaired random states and after each sweep, the cached transfer is the
// one the full evaluation picks, with the same gain.
func TestBestTransferMatchesFullEvaluation(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	found := 0
	for inst := 0; inst < 160; inst++ {
		var pr *problem
		if inst%8 == 7 {
			c := policies.Cluster{Nodes: manyNodes + 1 + rng.IntN(16), GPUsPerNode: 4}
			jobs := testJobs(manyJobs+1+rng.IntN(40), c.Nodes, rng.Uint64())
			opt := DefaultOptions()
			opt.NoInterferenceAvoidance = rng.IntN(2) == 0
			pr = newProblem(c, jobs, len(jobs), opt, nil)
		} else {
			pr, _ = randomInstance(rng)
		}
		sweepStates(pr, inst, func(int) state { return randomState(rng, pr) }, func(ls *local) {
			found += checkTransfers(t, ls, "instance")
		})
	}
	if found < 1000 {
		t.Errorf("only %d transfers had a receiver: the comparison is nearly vacuous", found)
	}
}

// TestReceiversAreTheTopGains: on large instances the receivers are the
// jobs with the largest gain from one more GPU (ties: the lower job),
// listed in job order, as a stable sort of all of them gives.
func TestReceiversAreTheTopGains(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for inst := 0; inst < 20; inst++ {
		c := policies.Cluster{Nodes: 8, GPUsPerNode: 4}
		jobs := testJobs(manyJobs+1+rng.IntN(100), c.Nodes, rng.Uint64())
		// Every third job a copy of the first's model: ties in gain.
		for i := 3; i < len(jobs); i += 3 {
			jobs[i].Params, jobs[i].Grad, jobs[i].MaxSeenGPUs = jobs[0].Params, jobs[0].Grad, jobs[0].MaxSeenGPUs
			jobs[i].Age, jobs[i].Restarts, jobs[i].Alloc = jobs[0].Age, jobs[0].Restarts, nil
		}
		pr := newProblem(c, jobs, len(jobs), DefaultOptions(), nil)
		ls := newLocal(pr, &pr.base)
		type cand struct {
			r int
			g float64
		}
		var all []cand
		for r := 0; r < pr.nJobs; r++ {
			if ls.k[r]+1 > pr.maxGPUs[r] {
				continue
			}
			g := ls.gain(ls.terms[r], ls.termAt(r, max(ls.n[r], 1), ls.k[r]+1, true))
			if ls.n[r] < pr.maxNodes[r] || pr.maxNodes[r] <= 0 {
				g = max(g, ls.gain(ls.terms[r], ls.termAt(r, ls.n[r]+1, ls.k[r]+1, true)))
			}
			all = append(all, cand{r, g})
		}
		slices.SortStableFunc(all, func(a, b cand) int { return cmp.Compare(b.g, a.g) })
		var want []int
		for _, c := range all[:min(len(all), nReceivers)] {
			want = append(want, c.r)
		}
		slices.Sort(want)
		if got := ls.receivers(); !slices.Equal(got, want) {
			t.Fatalf("instance %d: receivers %v, the top gains are %v", inst, got, want)
		}
	}
}

// TestBestTransferTies: with every job a copy of one model, many
// receivers gain alike; the transfer picked from the receivers in order
// of gain is still the full evaluation's, the first of the receivers
// that tie. It counts the transfers where receivers tied at the best
// gain, so that the comparison is not vacuous.
func TestBestTransferTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	found, tied := 0, 0
	for inst := 0; inst < 60; inst++ {
		c := policies.Cluster{Nodes: 2 + rng.IntN(6), GPUsPerNode: 1 + rng.IntN(4)}
		if inst%3 == 2 {
			c.Nodes = manyNodes + 1 + rng.IntN(16)
		}
		jobs := testJobs(2+rng.IntN(manyJobs+40), c.Nodes, rng.Uint64())
		oneModel(jobs)
		opt := DefaultOptions()
		opt.NoInterferenceAvoidance = rng.IntN(2) == 0
		pr := newProblem(c, jobs, len(jobs), opt, nil)
		sweepStates(pr, inst, func(int) state { return randomState(rng, pr) }, func(ls *local) {
			found += checkTransfers(t, ls, "ties")
			tied += tiedTransfers(ls)
		})
	}
	if found < 1000 || tied < 100 {
		t.Errorf("%d transfers had a receiver, %d of them among tied receivers: the comparison is nearly vacuous", found, tied)
	}
}

// tiedTransfers counts the transfers of ls's GPUs where more than one
// receiver reaches the best gain (by fullTransfer's evaluation).
func tiedTransfers(ls *local) int {
	n := 0
	for i := 0; i < ls.pr.nJobs; i++ {
		for _, e := range ls.rows[i] {
			nn, k, d := ls.change(i, e.node, -1)
			lose := ls.gain(ls.terms[i], ls.termAt(i, nn, k, d > 0))
			r, g := fullTransfer(ls, i, e.node, lose)
			if r < 0 {
				continue
			}
			ties := 0
			for _, rg := range transferGains(ls, i, e.node, lose) {
				if rg.g == g {
					ties++
				}
			}
			if ties > 1 {
				n++
			}
		}
	}
	return n
}

// sweepStates calls visit on local searches of pr from three repaired
// starting states (start(k), k = 0, 1, 2), before each of up to three
// sweeps, with the sweep's receivers ready.
func sweepStates(pr *problem, inst int, start func(k int) state, visit func(ls *local)) {
	w := newWorker(pr.nNodes)
	for k := 0; k < 3; k++ {
		in := start(k)
		w.reseed(uint64(inst), uint64(k))
		var st state
		w.repair(pr, &in, &st)
		ls := newLocal(pr, &st)
		for sweep := 0; sweep < 3; sweep++ {
			ls.receivers()
			ls.refreshReceivers()
			visit(ls)
			if !ls.sweep() {
				break
			}
		}
	}
}

// oneModel makes every job a copy of the first's model, age and restarts,
// so that many gain alike.
func oneModel(jobs []policies.Job) {
	for i := 1; i < len(jobs); i++ {
		jobs[i].Params, jobs[i].Grad, jobs[i].MaxSeenGPUs = jobs[0].Params, jobs[0].Grad, jobs[0].MaxSeenGPUs
		jobs[i].Age, jobs[i].Restarts = jobs[0].Age, jobs[0].Restarts
	}
}
