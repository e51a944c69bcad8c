package pollux

import (
	"math/rand/v2"
	"slices"
)

// individual is one candidate allocation matrix and its fitness.
type individual struct {
	state []int
	fit   float64
	hash  uint64
}

// searcher runs the genetic algorithm for one round.
type searcher struct {
	pr    *problem
	rng   *rand.Rand
	opt   Options
	perm  []int // scratch: node permutation
	used  []int // scratch: per-node totals
	multi []int // scratch
}

// hash is FNV-1a over the state's entries, for duplicate elimination.
func (s *searcher) hash(state []int) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range state {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}

func (s *searcher) newIndividual(state []int) individual {
	s.repair(state)
	return individual{state: state, fit: s.pr.fitness(state), hash: s.hash(state)}
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
		for tries := 0; len(offspring) < P && tries < 4*P; tries++ {
			a, b := s.tournament(pop), s.tournament(pop)
			c1, c2 := s.crossover(a.state, b.state)
			for _, c := range [][]int{c1, c2} {
				s.mutate(c)
				ind := s.newIndividual(c)
				if !seen[ind.hash] {
					seen[ind.hash] = true
					offspring = append(offspring, ind)
				}
			}
		}
		pop = append(pop, offspring...)
		sortPop(pop)
		if len(pop) > P {
			for _, dead := range pop[P:] {
				delete(seen, dead.hash)
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
	c1 := slices.Clone(a)
	c2 := slices.Clone(b)
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
func (s *searcher) mutate(state []int) {
	pr := s.pr
	N := pr.nNodes
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		if s.rng.Float64() < 0.1 {
			copy(row, pr.base[i*N:(i+1)*N])
		}
		if s.rng.Float64() < 0.1 {
			for c := range row {
				if s.rng.Float64() < 0.1 {
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
	nFree := 0
	for _, f := range free {
		if f >= 1 {
			nFree++
		}
	}
	if nFree == 0 {
		return
	}
	p1 := 1 / float64(nFree)
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		nOwn := 0
		for c, v := range row {
			if v > 0 && free[c] >= 1 {
				nOwn++
			}
		}
		for c, v := range row {
			if free[c] < 1 {
				continue
			}
			p := p1
			if v > 0 {
				p2 := 1 / float64(nOwn)
				p = p1 + p2 - p1*p2
			}
			if s.rng.Float64() < p && v < pr.capacity {
				row[c] = v + s.rng.IntN(pr.capacity-v+1)
			}
		}
	}
}

// repair makes a state feasible, giving way in job order: interference
// avoidance (the first multi-node job on a node keeps it), per-job GPU and
// node caps (trimmed over the nodes in random order), node capacity.
func (s *searcher) repair(state []int) {
	pr := s.pr
	N := pr.nNodes
	if pr.avoid {
		owner := s.multi[:N]
		for c := range owner {
			owner[c] = -1
		}
		for i := 0; i < pr.nJobs; i++ {
			row := state[i*N : (i+1)*N]
			if nodesOf(row) <= 1 {
				continue
			}
			for c, v := range row {
				if v <= 0 {
					continue
				}
				if owner[c] < 0 {
					owner[c] = i
				} else {
					row[c] = 0
				}
			}
		}
	}
	perm := s.perm[:N]
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		k, n := 0, 0
		for _, v := range row {
			if v > 0 {
				k += v
				n++
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
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		for c, v := range row {
			if v < 0 {
				v = 0
			}
			v = min(v, pr.capacity-used[c])
			row[c] = v
			used[c] += v
		}
	}
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
