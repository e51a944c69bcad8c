package pollux

import (
	"math"
	"math/rand/v2"
	"slices"
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

// searcher runs the genetic algorithm for one round.
type searcher struct {
	pr    *problem
	rng   *rand.Rand
	bits  bits
	opt   Options
	free  [][]int // recycled state buffers
	perm  []int   // scratch: node permutation
	used  []int   // scratch: per-node totals
	multi []int   // scratch
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

func (s *searcher) newIndividual(state []int) individual {
	fit, hash := s.repair(state)
	return individual{state: state, fit: fit, hash: hash}
}

// run evolves the initial states and returns the final population, best
// first.
func (s *searcher) run(initial [][]int) []individual {
	P := s.opt.Population
	seen := map[uint64]bool{}
	var pop []individual
	for _, st := range initial {
		ind := s.newIndividual(st)
		if !seen[ind.hash] {
			seen[ind.hash] = true
			pop = append(pop, ind)
		}
	}
	sortPop(pop)
	if len(pop) > P {
		pop = pop[:P]
	}
	for g := 0; g < s.opt.Generations; g++ {
		var offspring []individual
		for tries := 0; len(offspring) < P && tries < P; tries++ {
			a, b := s.tournament(pop), s.tournament(pop)
			c1, c2 := s.crossover(a.state, b.state)
			for _, c := range [][]int{c1, c2} {
				s.mutate(c)
				ind := s.newIndividual(c)
				if !seen[ind.hash] {
					seen[ind.hash] = true
					offspring = append(offspring, ind)
				} else {
					s.put(c)
				}
			}
		}
		pop = append(pop, offspring...)
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
	if !s.bits.chance(s.opt.CrossoverProb) {
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
func (s *searcher) mutate(state []int) {
	pr := s.pr
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
func (s *searcher) repair(state []int) (fit float64, hash uint64) {
	pr := s.pr
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
		for c, v := range row {
			if room := pr.capacity - used[c]; v > room {
				v = room
				row[c] = v
			}
			used[c] += v
			hash ^= uint64(v)
			hash *= 1099511628211
		}
		sum += pr.rowTerm(i, row)
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
