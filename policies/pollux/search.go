package pollux

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/polluxsim/polluxsim/internal/parallel"
)

// individual is one candidate allocation and its fitness.
type individual struct {
	st   *state
	fit  float64
	hash uint64
	// util, rank and crowd are used only by NSGA-II selection (see
	// nsga2.go).
	util  float64
	rank  int
	crowd float64
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
	pr      *problem
	rng     *rand.Rand // selection and crossover, sequential
	opt     Options
	round   uint64 // distinguishes the child streams of successive rounds
	workers []*worker
	team    *parallel.Team // one member per worker
	free    []*state       // recycled states
	*scratch
}

// scratch is the searcher's working memory, kept by the policy from
// round to round: the population and its hashes (seen), the children of a
// generation and their parents (mates), and the scratch of
// mergeSurvivors (merged, order, sortedTail).
type scratch struct {
	seen       map[uint64]bool
	pop        []individual
	children   []individual
	mates      []mating
	merged     []individual
	order      []int32
	sortedTail []individual
}

func (s *searcher) get() *state {
	if n := len(s.free); n > 0 {
		st := s.free[n-1]
		s.free = s.free[:n-1]
		return st
	}
	return &state{}
}

func (s *searcher) put(st *state) { s.free = append(s.free, st) }

// run evolves the initial states (taking ownership of them) and returns
// the final population, best first.
func (s *searcher) run(initial []*state) []individual {
	P := s.opt.Population
	if s.scratch == nil {
		s.scratch = &scratch{}
	}
	if s.seen == nil {
		s.seen = map[uint64]bool{}
	}
	seen := s.seen
	clear(seen)
	pop := s.pop[:0]
	defer func() { s.pop = pop[:0] }()
	// Repair the initial states in parallel, each on its own random
	// stream, then drop duplicates in order.
	start := slices.Grow(s.children[:0], len(initial))[:len(initial)]
	for k := range start {
		start[k] = individual{st: s.get()}
	}
	s.parallel(len(initial), func(w *worker, k int) {
		w.reseed(s.opt.Seed^s.round, uint64(k)<<1|1)
		start[k].fit, start[k].hash = w.repair(s.pr, initial[k], start[k].st)
		if s.opt.NSGA2 {
			start[k].util = s.pr.utility(start[k].st)
		}
	})
	for k, ind := range start {
		s.put(initial[k])
		if seen[ind.hash] {
			s.put(ind.st)
			continue
		}
		seen[ind.hash] = true
		pop = append(pop, ind)
	}
	pop = s.survive(pop, 0, seen)
	nChildren := 2 * ((P + 1) / 2)
	s.children = slices.Grow(s.children[:0], nChildren)[:nChildren]
	s.mates = slices.Grow(s.mates[:0], nChildren)[:nChildren]
	children, mates := s.children, s.mates
	stall := 0
	defer s.team.Release()
	for g := 0; g < s.opt.Generations; g++ {
		if s.opt.Stall > 0 && stall >= s.opt.Stall {
			break // the best has not improved for Stall generations
		}
		// Selection and the crossover's draws in sequence; then, for each
		// child in parallel on its own random stream, the crossover's
		// rows (read from the parents), mutation and repair; then
		// duplicate elimination in child order: the result does not
		// depend on the number of workers.
		for c := 0; c < nChildren; c += 2 {
			a, b := s.tournament(pop), s.tournament(pop)
			cut := s.crossPoint()
			mates[c] = mating{a.st, b.st, cut}
			mates[c+1] = mating{b.st, a.st, cut}
			children[c].st, children[c+1].st = s.get(), s.get()
		}
		s.parallel(nChildren, func(w *worker, c int) {
			w.reseed(s.opt.Seed^s.round, uint64(g+1)<<32|uint64(c))
			m := &mates[c]
			w.mutate(s.pr, m.head, m.tail, m.cut)
			children[c].fit, children[c].hash = w.repair(s.pr, &w.raised, children[c].st)
			if s.opt.NSGA2 {
				children[c].util = s.pr.utility(children[c].st)
			}
		})
		sorted := len(pop)
		for _, ch := range children {
			if seen[ch.hash] {
				s.put(ch.st)
				continue
			}
			seen[ch.hash] = true
			pop = append(pop, ch)
		}
		prevBest := pop[0].fit
		pop = s.survive(pop, sorted, seen)
		if pop[0].fit > prevBest {
			stall = 0
		} else {
			stall++
		}
	}
	return pop
}

// survive keeps the Population fittest individuals, best first, and
// recycles the rest. Without NSGA-II, pop[:sorted] must already be in
// order (the last survivors, to which the children were appended).
func (s *searcher) survive(pop []individual, sorted int, seen map[uint64]bool) []individual {
	switch {
	case s.opt.NSGA2:
		rankAndCrowd(pop)
	case sorted > 0:
		return s.mergeSurvivors(pop, sorted, seen)
	default:
		sortPop(pop)
	}
	if P := s.opt.Population; len(pop) > P {
		for _, dead := range pop[P:] {
			delete(seen, dead.hash)
			s.put(dead.st)
		}
		pop = pop[:P]
	}
	if s.opt.NSGA2 {
		rankAndCrowd(pop) // the survivors' own ranks, for selection
		bestFirst(pop)
	}
	return pop
}

// mergeSurvivors is survive for a population whose first sorted
// individuals are in order: it sorts the rest and merges the two, which
// gives the order of sortPop on the whole (a stable sort of a sorted
// prefix and a tail is their stable merge), keeping the Population first.
func (s *searcher) mergeSurvivors(pop []individual, sorted int, seen map[uint64]bool) []individual {
	P := s.opt.Population
	// Sort the tail through indices (cheaper to move than individuals),
	// ties by position: the order of a stable sort.
	tail := pop[sorted:]
	s.order = s.order[:0]
	for x := range tail {
		s.order = append(s.order, int32(x))
	}
	slices.SortFunc(s.order, func(a, b int32) int {
		if c := byFitness(tail[a], tail[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	s.sortedTail = s.sortedTail[:0]
	for _, x := range s.order {
		s.sortedTail = append(s.sortedTail, tail[x])
	}
	copy(tail, s.sortedTail)
	out := s.merged[:0]
	i, j := 0, sorted
	for len(out) < P && (i < sorted || j < len(pop)) {
		if i < sorted && (j >= len(pop) || byFitness(pop[j], pop[i]) >= 0) {
			out = append(out, pop[i])
			i++
		} else {
			out = append(out, pop[j])
			j++
		}
	}
	for _, dead := range pop[i:sorted] {
		delete(seen, dead.hash)
		s.put(dead.st)
	}
	for _, dead := range pop[j:] {
		delete(seen, dead.hash)
		s.put(dead.st)
	}
	s.merged = out
	return append(pop[:0], out...)
}

// parallel calls f(worker, i) for i in [0, n), spread over the workers
// by the search's team (member k uses worker k). f's result must not
// depend on which worker runs it.
func (s *searcher) parallel(n int, f func(w *worker, i int)) {
	if len(s.workers) == 1 {
		for i := 0; i < n; i++ {
			f(s.workers[0], i)
		}
		return
	}
	s.team.Run(n, func(m, i int) { f(s.workers[m], i) })
}

// each calls f(i) for i in [0, n) on up to one goroutine per worker (see
// parallel.Each; f must not use the workers' scratch).
func (s *searcher) each(n int, f func(i int)) { parallel.Each(len(s.workers), n, f) }

// sortPop orders a population by fitness, best first, stably.
func sortPop(pop []individual) { slices.SortStableFunc(pop, byFitness) }

// byFitness orders individuals by fitness, best first.
func byFitness(a, b individual) int { return cmp.Compare(b.fit, a.fit) }

// tournament is binary tournament selection on fitness.
func (s *searcher) tournament(pop []individual) individual {
	a := pop[s.rng.IntN(len(pop))]
	b := pop[s.rng.IntN(len(pop))]
	if s.opt.NSGA2 {
		if nsgaBetter(&b, &a) {
			return b
		}
		return a
	}
	if b.fit > a.fit {
		return b
	}
	return a
}

// mating is how one child is crossed: its rows before cut are head's, the
// others tail's.
type mating struct {
	head, tail *state
	cut        int
}

// crossPoint draws the single-point crossover over job rows of two
// parents a and b: with probability CrossoverProb a cut point, whose
// children are a's rows before it then b's and b's rows before it then
// a's; otherwise the number of jobs (the children are copies).
func (s *searcher) crossPoint() int {
	J := s.pr.nJobs
	if s.rng.Float64() >= s.opt.CrossoverProb {
		return J
	}
	return s.rng.IntN(J)
}
