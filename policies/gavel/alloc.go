package gavel

import (
	"math"
)

// problem is one round's allocation problem: jobs × GPU types, with each
// job's throughput (optimizer steps per second at its requested GPUs and
// batch) on each type, 0 where it cannot run.
//
// Identical jobs may be merged into one row of multiplicity count: the
// programs are symmetric in identical jobs and convex, so they have an
// optimum giving identical jobs identical time fractions, and the merged
// row's X is each member's.
type problem struct {
	caps  []float64   // GPUs of each type
	scale []float64   // GPUs each job asks for (Gavel's scale factor)
	thr   [][]float64 // thr[i][k]: steps/s of job i on type k, 0: cannot run
	count []float64   // jobs each row stands for; nil: 1 each
	// size, when set, is each type's GPUs for the test whether a job fits
	// there at all (caps may be what is left of them); nil: caps.
	size []float64
}

// fits reports whether job i's GPUs fit type k at all.
func (p *problem) fits(i, k int) bool {
	if p.size != nil {
		return p.scale[i] <= p.size[k]
	}
	return p.scale[i] <= p.caps[k]
}

// mult is the number of jobs row i stands for.
func (p *problem) mult(i int) float64 {
	if p.count == nil {
		return 1
	}
	return p.count[i]
}

// pair is one variable of the programs: job i's time fraction on type k.
type pair struct{ i, k int }

// pairs lists the (job, type) combinations a job can run on, job by job.
func (p *problem) pairs() []pair {
	var ps []pair
	for i, row := range p.thr {
		for k, v := range row {
			if v > 0 && p.fits(i, k) {
				ps = append(ps, pair{i, k})
			}
		}
	}
	return ps
}

// runnable reports which jobs have at least one pair.
func runnable(n int, ps []pair) []bool {
	ok := make([]bool, n)
	for _, q := range ps {
		ok[q.i] = true
	}
	return ok
}

// capacityRows appends Gavel's base constraints on the pair variables
// (the first len(ps) of width columns): each job's time fractions sum to
// at most 1, and each type's GPUs, weighted by the jobs' GPU counts, to
// at most its GPUs.
func (p *problem) capacityRows(lp *LP, ps []pair, width int) {
	jobRow := map[int]int{}
	for v, q := range ps {
		r, ok := jobRow[q.i]
		if !ok {
			r = len(lp.A)
			jobRow[q.i] = r
			lp.A = append(lp.A, make([]float64, width))
			lp.B = append(lp.B, 1)
		}
		lp.A[r][v] = 1
	}
	for k, c := range p.caps {
		row := make([]float64, width)
		used := false
		for v, q := range ps {
			if q.k == k {
				row[v] = p.scale[q.i] * p.mult(q.i)
				used = true
			}
		}
		if used {
			lp.A = append(lp.A, row)
			lp.B = append(lp.B, c)
		}
	}
}

// allocation turns an LP solution over pairs into X[i][k].
func (p *problem) allocation(ps []pair, x []float64) [][]float64 {
	X := make([][]float64, len(p.thr))
	for i := range X {
		X[i] = make([]float64, len(p.caps))
	}
	for v, q := range ps {
		X[q.i][q.k] = min(max(x[v], 0), 1)
	}
	return X
}

// tieBreak is the weight of the secondary objective of the max-min
// programs (the sum of the normalised throughputs, over the number of
// jobs): among allocations with the same smallest normalised throughput it
// prefers those that leave fewer GPUs idle.
const tieBreak = 1e-4

// maxMin solves Gavel's max-min program: maximise min over runnable jobs
// of Σ_k coef[i][k]·X[i][k] (plus tieBreak times the mean of these sums),
// subject to the base constraints. It returns X and the minimum reached.
//
// On a single GPU type the program is solved in closed form (see
// maxMinOneType) instead, without the tie-break.
func (p *problem) maxMin(coef [][]float64, secondary float64) ([][]float64, float64, error) {
	if len(p.caps) == 1 {
		X, t := p.maxMinOneType(coef)
		return X, t, nil
	}
	lp, ps := p.maxMinLP(coef, secondary)
	if lp == nil {
		return p.allocation(nil, nil), 0, nil
	}
	x, _, err := lp.Solve()
	if err != nil {
		return nil, 0, err
	}
	return p.allocation(ps, x), x[len(ps)], nil
}

// maxMinOneType solves the max-min program on one GPU type: job i reaches
// t with X_i = t/c_i, so the largest t is that of the water level
// Σ_i gpus_i·count_i·min(1, t/c_i) = GPUs, at most min_i c_i (X ≤ 1). X
// is the smallest allocation reaching it (X_i = min(1, t/c_i)): with the
// capacity binding there is nothing left to hand out, and otherwise every
// job at the minimum has all its time. Tests check it against the simplex.
func (p *problem) maxMinOneType(coef [][]float64) ([][]float64, float64) {
	X := p.allocation(nil, nil)
	ps := p.pairs()
	if len(ps) == 0 {
		return X, 0
	}
	hi, need := math.Inf(1), 0.0
	for _, q := range ps {
		c := coef[q.i][0]
		if !(c > 0) {
			return X, 0
		}
		hi = math.Min(hi, c)
		need += p.scale[q.i] * p.mult(q.i)
	}
	used := func(t float64) float64 {
		u := 0.0
		for _, q := range ps {
			u += p.scale[q.i] * p.mult(q.i) * math.Min(1, t/coef[q.i][0])
		}
		return u
	}
	t := hi
	if need > p.caps[0] && used(hi) > p.caps[0] {
		lo := 0.0
		for range 200 {
			mid := (lo + hi) / 2
			if used(mid) > p.caps[0] {
				hi = mid
			} else {
				lo = mid
			}
			if hi-lo <= 1e-15*hi {
				break
			}
		}
		t = lo
	}
	for _, q := range ps {
		X[q.i][0] = math.Min(1, t/coef[q.i][0])
	}
	return X, t
}

// maxMinLP builds maxMin's program over the pairs ps (variables: the
// pairs' time fractions, then t); nil when no job can run.
func (p *problem) maxMinLP(coef [][]float64, secondary float64) (*LP, []pair) {
	ps := p.pairs()
	if len(ps) == 0 {
		return nil, nil
	}
	ok := runnable(len(p.thr), ps)
	jobs := 0.0
	for i, b := range ok {
		if b {
			jobs += p.mult(i)
		}
	}
	width := len(ps) + 1 // pairs, then the minimum t
	lp := &LP{C: make([]float64, width)}
	lp.C[len(ps)] = 1
	rowOf := map[int]int{}
	for v, q := range ps {
		r, seen := rowOf[q.i]
		if !seen {
			r = len(lp.A)
			rowOf[q.i] = r
			row := make([]float64, width)
			row[len(ps)] = 1
			lp.A = append(lp.A, row)
			lp.B = append(lp.B, 0)
		}
		lp.A[r][v] = -coef[q.i][q.k]
		lp.C[v] = secondary * coef[q.i][q.k] * p.mult(q.i) / jobs
	}
	p.capacityRows(lp, ps, width)
	return lp, ps
}

// maxSum solves Gavel's max-sum program: maximise Σ_i Σ_k coef[i][k]·X[i][k]
// subject to the base constraints.
func (p *problem) maxSum(coef [][]float64) ([][]float64, error) {
	ps := p.pairs()
	if len(ps) == 0 {
		return p.allocation(nil, nil), nil
	}
	lp := &LP{C: make([]float64, len(ps))}
	for v, q := range ps {
		lp.C[v] = coef[q.i][q.k] * p.mult(q.i)
	}
	p.capacityRows(lp, ps, len(ps))
	x, _, err := lp.Solve()
	if err != nil {
		return nil, err
	}
	return p.allocation(ps, x), nil
}

// isolated is each job's throughput on its equal share of the cluster, the
// normaliser of Gavel's policies: the GPUs are water-filled over the
// runnable jobs (each gets c GPUs, or its request if smaller, Σ = all
// GPUs), so a job runs min(1, c/scale) of the time, spread over the types
// it can run on in proportion to their GPUs. Jobs that cannot run get 0.
func (p *problem) isolated() []float64 {
	ps := p.pairs()
	ok := runnable(len(p.thr), ps)
	total := 0.0
	for _, c := range p.caps {
		total += c
	}
	var want, count []float64
	for i, b := range ok {
		if b {
			want = append(want, p.scale[i])
			count = append(count, p.mult(i))
		}
	}
	c := waterLevel(want, count, total)
	iso := make([]float64, len(p.thr))
	for i, b := range ok {
		if !b {
			continue
		}
		frac := math.Min(1, c/p.scale[i])
		gpus, sum := 0.0, 0.0
		for k, v := range p.thr[i] {
			if v > 0 && p.fits(i, k) {
				gpus += p.caps[k]
				sum += p.caps[k] * v
			}
		}
		iso[i] = frac * sum / gpus
	}
	return iso
}

// waterLevel returns the level c with Σ count_i·min(want_i, c) = total,
// or +Inf when Σ count_i·want_i ≤ total (every job gets all it wants).
func waterLevel(want, count []float64, total float64) float64 {
	sum := 0.0
	for i, w := range want {
		sum += w * count[i]
	}
	if sum <= total {
		return math.Inf(1)
	}
	lo, hi := 0.0, total
	for range 100 {
		mid := (lo + hi) / 2
		s := 0.0
		for i, w := range want {
			s += math.Min(w, mid) * count[i]
		}
		if s > total {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// las is gavel-las: max-min fairness over the jobs' throughputs normalised
// by their isolated throughputs and divided by their priority weights,
// water-filled (see waterFill).
func (p *problem) las(weights []float64) ([][]float64, error) {
	iso := p.isolated()
	coef := make([][]float64, len(p.thr))
	for i, row := range p.thr {
		coef[i] = make([]float64, len(row))
		for k, v := range row {
			if iso[i] > 0 {
				coef[i][k] = v / iso[i] / weights[i]
			}
		}
	}
	return p.waterFill(coef)
}

// waterFill is max-min fairness by progressive filling, as Gavel's
// water-filling variant of its max-min program: one max-min program only
// raises the smallest normalised throughput, and a job held back by its
// own time (its fractions already sum to 1) caps everyone else's. So it
// solves the max-min program, fixes the jobs that sit at the minimum with
// their time used up (their X and GPUs leave the program), and solves
// again for the others, until no such job is left; the last program adds
// the tie-break towards fewer idle GPUs. On one GPU type this is exact
// water-filling (a job at the minimum with all its time cannot get more);
// on several it is a heuristic (Gavel finds the bottlenecked jobs with an
// extra program per level).
func (p *problem) waterFill(coef [][]float64) ([][]float64, error) {
	n := len(p.thr)
	X := p.allocation(nil, nil)
	fixed := make([]bool, n)
	caps := append([]float64(nil), p.caps...)
	for range n + 1 {
		var idx []int
		sub := &problem{caps: caps, size: p.caps}
		var sc [][]float64
		for i := range n {
			if fixed[i] {
				continue
			}
			idx = append(idx, i)
			sub.thr = append(sub.thr, p.thr[i])
			sub.scale = append(sub.scale, p.scale[i])
			sub.count = append(sub.count, p.mult(i))
			sc = append(sc, coef[i])
		}
		if len(idx) == 0 {
			return X, nil
		}
		Xs, tmin, err := sub.maxMin(sc, 0)
		if err != nil {
			return nil, err
		}
		progress := false
		for r, i := range idx {
			level, used := 0.0, 0.0
			for k, x := range Xs[r] {
				level += sc[r][k] * x
				used += x
			}
			if used >= 1-1e-9 && level <= tmin*(1+1e-9)+1e-12 && tmin > 0 {
				fixed[i], X[i], progress = true, Xs[r], true
				for k, x := range Xs[r] {
					caps[k] = math.Max(caps[k]-x*p.scale[i]*p.mult(i), 0)
				}
			}
		}
		if !progress {
			Xs, _, err = sub.maxMin(sc, tieBreak)
			if err != nil {
				return nil, err
			}
			for r, i := range idx {
				X[i] = Xs[r]
			}
			return X, nil
		}
	}
	return X, nil
}

// throughput is gavel-throughput: the largest sum of throughputs. Gavel's
// code (scheduler/policies/max_sum_throughput.py) sums the raw
// throughputs, optimizer steps per second, so a job of short steps counts
// for more; with normalise each job's throughput is divided by the sum of
// its throughputs over the GPU types it can run on, so a job counts alike
// whatever its unit of work (the normalisation that file computes and
// never uses); on a single type every job's coefficient is then 1 and the
// program favours jobs of few GPUs.
// With interior the program is solved by the barrier method
// (maxSumInterior), as ECOS solves it for Gavel's code.
func (p *problem) throughput(normalise, interior bool) ([][]float64, error) {
	coef := make([][]float64, len(p.thr))
	for i, row := range p.thr {
		coef[i] = make([]float64, len(row))
		sum := 0.0
		for k, v := range row {
			if v > 0 && p.fits(i, k) {
				sum += v
			}
		}
		for k, v := range row {
			switch {
			case !normalise:
				coef[i][k] = v
			case sum > 0:
				coef[i][k] = v / sum
			}
		}
	}
	if interior {
		return p.maxSumInterior(coef)
	}
	return p.maxSum(coef)
}

// ftf is gavel-ftf, finish-time fairness: minimise the largest ρ_i =
// (age_i + rem_i/thr_i(X)) / (age_i + rem_i/iso_i), the job's expected
// finish time under X over that on its isolated share (Themis's ρ, as
// Gavel defines it). For a fixed ρ the condition ρ_i ≤ ρ is the linear
// thr_i(X) ≥ rem_i / (ρ·E_i − age_i), E_i the isolated finish time, so ρ is
// found by bisection over max-min programs (feasible iff their minimum of
// thr_i(X)·(ρ·E_i − age_i)/rem_i reaches 1), to relative precision tol.
// It returns the allocation with the smallest largest ρ found, and that ρ.
func (p *problem) ftf(age, rem []float64, tol float64) ([][]float64, float64, error) {
	iso := p.isolated()
	n := len(p.thr)
	E := make([]float64, n)
	lo := 0.0
	for i := range p.thr {
		if iso[i] <= 0 {
			continue
		}
		r := math.Max(rem[i], 1e-9)
		E[i] = age[i] + r/iso[i]
		best := 0.0
		for k, v := range p.thr[i] {
			if v > 0 && p.fits(i, k) {
				best = math.Max(best, v)
			}
		}
		lo = math.Max(lo, (age[i]+r/best)/E[i])
	}
	if lo == 0 {
		return p.allocation(nil, nil), 0, nil
	}
	coef := make([][]float64, n)
	for i := range coef {
		coef[i] = make([]float64, len(p.caps))
	}
	// rhoOf is the largest ρ_i an allocation gives, an upper bound on ρ*
	// (any allocation of the program is feasible).
	rhoOf := func(X [][]float64) float64 {
		worst := 0.0
		for i, row := range p.thr {
			if E[i] <= 0 {
				continue
			}
			thr := 0.0
			for k, v := range row {
				thr += v * X[i][k]
			}
			if thr <= 0 {
				return math.Inf(1)
			}
			worst = math.Max(worst, (age[i]+math.Max(rem[i], 1e-9)/thr)/E[i])
		}
		return worst
	}
	// try solves the max-min program at ρ: feasible iff its minimum of
	// thr_i(X)·(ρ·E_i − age_i)/rem_i reaches 1.
	try := func(rho float64) ([][]float64, bool, error) {
		for i, row := range p.thr {
			for k, v := range row {
				coef[i][k] = 0
				if E[i] > 0 {
					coef[i][k] = v * (rho*E[i] - age[i]) / math.Max(rem[i], 1e-9)
				}
			}
		}
		X, t, err := p.maxMin(coef, 0)
		return X, t >= 1-1e-9, err
	}
	// Bisection, with every program's allocation also tightening the
	// upper bound (Dinkelbach's step: the ρ it reaches), which cuts the
	// number of programs.
	X, _, err := try(lo)
	if err != nil {
		return nil, 0, err
	}
	hi := rhoOf(X)
	if math.IsInf(hi, 1) {
		return nil, 0, errNoFTF
	}
	for iter := 0; hi-lo > tol*hi && iter < 200; iter++ {
		mid := (lo + hi) / 2
		x, ok, err := try(mid)
		if err != nil {
			return nil, 0, err
		}
		r := rhoOf(x)
		switch {
		case r < hi:
			X, hi = x, r
		case ok: // feasible at mid up to rounding
			X, hi = x, mid
		}
		if !ok {
			lo = mid
		}
	}
	return X, hi, nil
}
