package pollux

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// individual is one candidate allocation matrix and its fitness.
type individual struct {
	state []int
	fit   float64
	hash  uint64
}

// bits hands out cheap 16-bit uniforms from a 64-bit generator.
type bits struct {
	rng *rand.Rand
	buf uint64
	n   int
}

// chance is true with probability p (resolution 2⁻¹⁶).
func (b *bits) chance(p float64) bool {
	if b.n == 0 {
		b.buf, b.n = b.rng.Uint64(), 4
	}
	v := b.buf & 0xffff
	b.buf >>= 16
	b.n--
	return float64(v) < p*65536
}

// worker holds what one goroutine of the search needs to mutate and
// repair children: its own random stream and scratch space.
type worker struct {
	pcg   *rand.PCG
	rng   *rand.Rand
	bits  bits
	perm  []int // scratch: node permutation / open nodes
	used  []int // scratch: per-node totals
	multi []int // scratch
}

func newWorker(n int) *worker {
	w := &worker{pcg: rand.NewPCG(0, 0), perm: make([]int, n), used: make([]int, n), multi: make([]int, n)}
	w.rng = rand.New(w.pcg)
	w.bits.rng = w.rng
	return w
}

// reseed points the worker's stream at (a, b); every child gets its own
// stream, so results do not depend on which worker made it.
func (w *worker) reseed(a, b uint64) {
	w.pcg.Seed(a, b)
	w.bits.n = 0
}

// searcher runs the genetic algorithm for one round.
type searcher struct {
	pr      *problem
	rng     *rand.Rand // selection and crossover, sequential
	opt     Options
	round   uint64 // distinguishes the child streams of successive rounds
	workers []*worker
	free    [][]int // recycled state buffers
}

// get returns a state buffer holding a copy of src.
func (s *searcher) get(src []int) []int {
	var st []int
	if n := len(s.free); n > 0 {
		st, s.free = s.free[n-1], s.free[:n-1]
	} else {
		st = make([]int, len(src))
	}
	copy(st, src)
	return st
}

func (s *searcher) put(st []int) { s.free = append(s.free, st) }

// run evolves the initial states and returns the final population, best
// first.
func (s *searcher) run(initial [][]int) []individual {
	P := s.opt.Population
	seen := map[uint64]bool{}
	var pop []individual
	w0 := s.workers[0]
	for k, st := range initial {
		w0.reseed(s.opt.Seed^s.round, uint64(k)<<1|1)
		fit, h := w0.repair(s.pr, st)
		if !seen[h] {
			seen[h] = true
			pop = append(pop, individual{st, fit, h})
		}
	}
	sortPop(pop)
	if len(pop) > P {
		pop = pop[:P]
	}
	children := make([]individual, 2*((P+1)/2))
	for g := 0; g < s.opt.Generations; g++ {
		// Selection and crossover in sequence, mutation and repair of
		// each child in parallel on its own random stream, then duplicate
		// elimination in child order: the result is independent of the
		// number of workers.
		for c := 0; c < len(children); c += 2 {
			a, b := s.tournament(pop), s.tournament(pop)
			children[c].state, children[c+1].state = s.crossover(a.state, b.state)
		}
		s.parallel(len(children), func(w *worker, c int) {
			w.reseed(s.opt.Seed^s.round, uint64(g+1)<<32|uint64(c))
			w.mutate(s.pr, children[c].state)
			children[c].fit, children[c].hash = w.repair(s.pr, children[c].state)
		})
		for _, ch := range children {
			if seen[ch.hash] {
				s.put(ch.state)
				continue
			}
			seen[ch.hash] = true
			pop = append(pop, ch)
		}
		sortPop(pop)
		if len(pop) > P {
			for _, dead := range pop[P:] {
				delete(seen, dead.hash)
				s.put(dead.state)
			}
			pop = pop[:P]
		}
	}
	return pop
}

// parallel calls f(worker, i) for i in [0, n), spread over the workers.
func (s *searcher) parallel(n int, f func(w *worker, i int)) {
	W := len(s.workers)
	if W == 1 || n < 2*W {
		for i := 0; i < n; i++ {
			f(s.workers[0], i)
		}
		return
	}
	var wg sync.WaitGroup
	for k, w := range s.workers {
		lo, hi := k*n/W, (k+1)*n/W
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(w, i)
			}
		}(w)
	}
	wg.Wait()
}

func sortPop(pop []individual) {
	slices.SortStableFunc(pop, func(a, b individual) int {
		switch {
		case a.fit > b.fit:
			return -1
		case a.fit < b.fit:
			return 1
		}
		return 0
	})
}

// tournament is binary tournament selection on fitness.
func (s *searcher) tournament(pop []individual) individual {
	a := pop[s.rng.IntN(len(pop))]
	b := pop[s.rng.IntN(len(pop))]
	if b.fit > a.fit {
		return b
	}
	return a
}

// crossover is single-point crossover over job rows with probability
// CrossoverProb; otherwise the children are copies of the parents.
func (s *searcher) crossover(a, b []int) ([]int, []int) {
	c1 := s.get(a)
	c2 := s.get(b)
	if s.rng.Float64() >= s.opt.CrossoverProb {
		return c1, c2
	}
	cut := s.rng.IntN(s.pr.nJobs) * s.pr.nNodes
	copy(c1[cut:], b[cut:])
	copy(c2[cut:], a[cut:])
	return c1, c2
}

// mutate applies the reference's three mutations to one state: reset a
// row to the current allocation (p = 0.1 per row); zero entries of a row
// (each with p = 0.1, in a row chosen with p = 0.1); raise entries at
// random towards node capacity (on average about one free node per row,
// more likely where the job already is).
func (s *worker) mutate(pr *problem, state []int) {
	N := pr.nNodes
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		if s.bits.chance(0.1) {
			copy(row, pr.base[i*N:(i+1)*N])
		}
		if s.bits.chance(0.1) {
			for c := range row {
				if s.bits.chance(0.1) {
					row[c] = 0
				}
			}
		}
	}
	free := s.used[:N]
	for c := range free {
		free[c] = pr.capacity
	}
	for i := 0; i < pr.nJobs; i++ {
		for c := 0; c < N; c++ {
			free[c] -= state[i*N+c]
		}
	}
	open := s.perm[:0]
	for c, f := range free {
		if f >= 1 {
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		return
	}
	p1 := 1 / float64(len(open))
	logQ := math.Log1p(-p1)
	raise := func(row []int, c int) {
		if v := row[c]; v < pr.capacity {
			row[c] = v + s.rng.IntN(pr.capacity-v+1)
		}
	}
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		// Each open node is raised with probability p1, and a node the
		// job already uses also with probability 1/(its open nodes):
		// skip-sample the first kind, flip coins for the second.
		nOwn := 0
		for _, c := range open {
			if row[c] > 0 {
				nOwn++
			}
		}
		var hit [64]bool // raise marks for the first 64 open nodes
		if p1 >= 1 {
			hit[0] = true
		} else {
			for k := -1; ; {
				k += 1 + int(math.Log(1-s.rng.Float64())/logQ)
				if k >= len(open) || k >= len(hit) {
					break
				}
				hit[k] = true
			}
		}
		for k, c := range open {
			h := k < len(hit) && hit[k]
			if !h && row[c] > 0 && s.bits.chance(1/float64(nOwn)) {
				h = true
			}
			if h {
				raise(row, c)
			}
		}
	}
}

// repair makes a state feasible, giving way in job order: interference
// avoidance (the first multi-node job on a node keeps it), per-job GPU and
// node caps (trimmed over the nodes in random order), node capacity. It
// returns the repaired state's fitness and hash, computed in the same pass.
func (s *worker) repair(pr *problem, state []int) (fit float64, hash uint64) {
	N := pr.nNodes
	owner := s.multi[:N]
	for c := range owner {
		owner[c] = -1
	}
	perm := s.perm[:N]
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		k, n := 0, 0
		for c, v := range row {
			if v < 0 {
				row[c], v = 0, 0
			}
			if v > 0 {
				k += v
				n++
			}
		}
		if pr.avoid && n > 1 {
			for c, v := range row {
				if v == 0 {
					continue
				}
				if owner[c] < 0 {
					owner[c] = i
				} else {
					row[c] = 0
					k -= v
					n--
				}
			}
		}
		if k <= pr.maxGPUs[i] && (pr.maxNodes <= 0 || n <= pr.maxNodes) {
			continue
		}
		for c := range perm {
			perm[c] = c
		}
		s.rng.Shuffle(N, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		left, nodes := pr.maxGPUs[i], 0
		for _, c := range perm {
			v := row[c]
			if v <= 0 {
				continue
			}
			if left == 0 || (pr.maxNodes > 0 && nodes >= pr.maxNodes) {
				row[c] = 0
				continue
			}
			v = min(v, left)
			row[c] = v
			left -= v
			nodes++
		}
	}
	used := s.used[:N]
	for c := range used {
		used[c] = 0
	}
	hash = 14695981039346656037
	sum := 0.0
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		base := pr.base[i*N : (i+1)*N]
		k, n, changed := 0, 0, false
		for c, v := range row {
			if room := pr.capacity - used[c]; v > room {
				v = room
				row[c] = v
			}
			used[c] += v
			if v > 0 {
				k += v
				n++
			}
			changed = changed || v != base[c]
			hash = (hash ^ uint64(v)) * 1099511628211
		}
		sum += pr.termAt(i, n, k, changed)
	}
	return pr.mean(sum), hash
}

func nodesOf(row []int) int {
	n := 0
	for _, v := range row {
		if v > 0 {
			n++
		}
	}
	return n
}
