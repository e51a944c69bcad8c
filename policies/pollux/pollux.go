package pollux

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/polluxsim/polluxsim/internal/parallel"
	"github.com/polluxsim/polluxsim/policies"
)

// Options configure the Pollux policy. The zero value is not useful; start
// from DefaultOptions.
type Options struct {
	// P is the power-mean exponent of the fitness: 1 is the arithmetic
	// mean (throughput), −1 (default) the harmonic mean, more negative is
	// fairer; 0 is the geometric mean.
	P float64 `option:"p" doc:"power-mean exponent of the fitness: 1 throughput, -1 the paper's default, more negative fairer, 0 geometric; any finite number"`
	// RestartDelay δ in seconds, used by the re-allocation factor.
	RestartDelay float64
	// NoInterferenceAvoidance allows several multi-node jobs per node.
	NoInterferenceAvoidance bool `option:"no_interference_avoidance" doc:"allow several multi-node jobs on one node"`
	// MaxGPUsPerJob caps any job's GPUs (the reference: 64); 0 = no cap.
	// A job with a memory floor (Job.MinGPUs > 0, an LLM job) may still
	// get its request and its floor (see jobCap).
	MaxGPUsPerJob int `option:"max_gpus_per_job" doc:"cap on any job's GPUs, 0 or more (0: no cap); an LLM job may still get the GPUs it asked for"`
	// MaxNodesPerJob caps the nodes any job spans (the reference: 16);
	// a job with a memory floor may still span the nodes its request
	// fills packed.
	MaxNodesPerJob int `option:"max_nodes_per_job" doc:"cap on the nodes any job spans, at least 1; an LLM job may still span the nodes its request fills"`
	// Population and Generations size the genetic algorithm (100 and 100).
	Population  int `option:"population" serve:"256" doc:"genetic algorithm population, in [1, 100000]"`
	Generations int `option:"generations" serve:"1000" doc:"genetic algorithm generations per round in [0, 100000] (0: only local search from the carried-over population)"`
	// CrossoverProb is the probability that two parents are crossed (0.9).
	CrossoverProb float64 `option:"crossover_prob" doc:"probability that two parents are crossed, in [0, 1]"`
	// LocalSearch enables the greedy single-GPU improvement of the best
	// individual after the genetic algorithm.
	LocalSearch bool `option:"local_search" doc:"polish the genetic algorithm's best with single-GPU moves"`
	// Seed seeds the search; the same seed gives the same decisions.
	Seed uint64
	// Stall ends the genetic algorithm early when its best individual has
	// not improved for this many generations (0: never).
	Stall int `option:"stall" doc:"stop the genetic algorithm after this many generations without improvement, in [0, 100000] (0: never)"`
	// MaxRowsPerRound caps Population × Generations × jobs, the work of the
	// genetic algorithm in one round, by lowering the generations (at
	// least 1); 0 means no cap.
	MaxRowsPerRound int `option:"max_rows_per_round" doc:"cap on population x generations x jobs per round, lowering the generations, 0 or more (0: no cap)"`
	// MaxLocalRows caps the local search's work in one round, starts ×
	// sweeps × jobs, by first lowering the starts (to the current
	// allocation and the genetic algorithm's best) and then the sweeps
	// per start (at least 1); 0 means no cap.
	MaxLocalRows int `option:"max_local_rows" doc:"cap on local-search starts x sweeps x jobs per round, lowering the starts to 2, then the sweeps, 0 or more (0: no cap)"`
	// SkipUnchanged keeps the last round's decision without searching when
	// nothing changed since: the same jobs, with the same fitted models
	// and gradient statistics, holding what the last round gave them (no
	// arrival, completion, epoch boundary or refit). Only the jobs' age
	// and restarts, which enter the re-allocation factor, differ. On by
	// default.
	SkipUnchanged bool `option:"skip_unchanged" doc:"keep the last decision without searching when no job arrived, finished, crossed an epoch or was refitted since"`
	// SkipSettled keeps the current allocation without searching when it
	// is provably the search's optimum (see settled): on an overloaded
	// cluster every GPU is held by a different job on one GPU, the fair
	// share is one GPU, and no job's speedup grows faster than its GPUs.
	// It binds only under overload (never on the reference workloads).
	// On by default.
	SkipSettled bool `option:"skip_settled" doc:"keep the allocation without searching when it is provably optimal: an overloaded cluster full of one-GPU jobs"`
	// QuickStall, when positive, ends the genetic algorithm after this
	// many generations without improvement (instead of Stall) in rounds
	// whose jobs are the last round's (no arrival or completion), where
	// the search starts from the last round's final population. 1 by
	// default; no effect when Stall is 0 (never stop early).
	QuickStall int `option:"quick_stall" doc:"in rounds without arrivals or completions, stop the genetic algorithm after this many generations without improvement, in [0, 100000] (0: use stall)"`
	// NSGA2 selects and survives as the reference's NSGA-II on two
	// objectives, the power mean and the cluster utility (see nsga2.go),
	// instead of on the power mean alone; the result is still the best
	// power mean found. For the reference's search, combine it with
	// ReferenceOptions' budget.
	NSGA2 bool `option:"nsga2" doc:"reference-compatible selection: NSGA-II on (power mean, cluster utility) as the reference's pymoo search; the pick is still the best power mean (use with population=100 generations=100 local_search=false stall=0 max_rows_per_round=0 skip_unchanged=false skip_settled=false waiting_per_gpu=0 for the reference's search)"`
	// WaitingPerGPU, when positive, caps the waiting jobs (those holding
	// no GPU) a round considers at this many per GPU of the cluster
	// (rounded up): the first in the order of Schedule's input (the
	// simulator's workload order, which generated and trace workloads
	// give by submission time). The others wait unseen that round; every
	// job holding GPUs is always considered, and speedups stay relative
	// to the fair share among all active jobs. Under overload Pollux admits a waiting job to
	// every GPU that frees up (an unscheduled job weighs 1/ε in the power
	// mean), so a window in arrival order keeps the cluster full, admits
	// in arrival order, and cannot starve a job: new arrivals queue behind
	// it, preempted jobs included. It keeps a round's cost with the
	// cluster's size rather than the queue's and binds only on an
	// overloaded cluster (the reference workloads never have more than
	// one job waiting). 0.25 by default; 0 considers every job.
	WaitingPerGPU float64 `option:"waiting_per_gpu" doc:"consider at most this many waiting jobs per GPU in a round, first in workload order in [0, 100000] (0: all; binds only on an overloaded cluster)"`
	// Workers is the number of goroutines that mutate and repair children
	// (0: GOMAXPROCS, at most 8). Decisions do not depend on it.
	Workers int
}

// DefaultOptions are the reference settings, except the search budget:
// population 64 and 40 generations followed by local search, which in our
// measurements reaches the fitness of the reference's 100 × 100 genetic
// algorithm (see docs/how-it-works.md) at a fraction of its cost; an
// early stop after 5 generations without improvement (Stall); and cheaper
// rounds when little changed: SkipUnchanged, and QuickStall 1 (see
// docs/scale.md for what they cost in JCT; stall=10 skip_unchanged=false
// quick_stall=0 give the earlier search). ReferenceOptions gives the
// reference budget.
func DefaultOptions() Options {
	return Options{
		P: -1, RestartDelay: 30, MaxGPUsPerJob: 64, MaxNodesPerJob: 16,
		Population: 64, Generations: 40, CrossoverProb: 0.9, LocalSearch: true, Seed: 1,
		MaxRowsPerRound: 100_000, MaxLocalRows: 12_000, Stall: 5, SkipUnchanged: true, QuickStall: 1,
		WaitingPerGPU: 0.25, SkipSettled: true,
	}
}

// ReferenceOptions are the reference implementation's settings: population
// 100, 100 generations, no local search, a full search every round over
// every job.
func ReferenceOptions() Options {
	o := DefaultOptions()
	o.Population, o.Generations, o.LocalSearch, o.MaxRowsPerRound, o.MaxLocalRows, o.Stall = 100, 100, false, 0, 0, 0
	o.SkipUnchanged, o.QuickStall, o.WaitingPerGPU, o.SkipSettled = false, 0, 0, false
	return o
}

// Local search runs at most sweepsPerGPU sweeps per GPU of a node plus
// minSweeps (a sweep moves each job by at most one GPU, so this lets a job
// fill a node and more).
const (
	sweepsPerGPU = 4
	minSweeps    = 8
)

// localStarts is the number of the genetic algorithm's best individuals
// the local search starts from (besides the current allocation).
const localStarts = 4

// Policy is the Pollux scheduler. It keeps the last round's population to
// seed the next round's search. Create one per simulation with New.
type Policy struct {
	opt         Options
	rng         *rand.Rand
	prevJobs    []string
	prevPop     []*state // final population of the last round, rows in prevJobs order
	prevN       int
	caches      map[string]*goodputCache
	rounds      uint64
	workers     []*worker
	team        *parallel.Team // runs the workers
	lastFitness float64
	last        lastRound
	skipped     int
	pool        []*state // states no population holds, reused from round to round
	scratch     scratch  // the search's working memory, reused from round to round
	inc         inc      // when driven by ScheduleIncremental
}

// New returns a Pollux policy.
func New(opt Options) *Policy {
	if opt.Population <= 0 {
		opt.Population = 100
	}
	if opt.Generations < 0 {
		opt.Generations = 0
	}
	if opt.Workers <= 0 {
		opt.Workers = min(runtime.GOMAXPROCS(0), 8)
	}
	return &Policy{
		opt:    opt,
		rng:    rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15)),
		caches: map[string]*goodputCache{},
	}
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// PolicyStats implements policies.StatsReporter: the fitness of the
// allocation chosen in the latest round (in a round SkipUnchanged skipped,
// that of the search whose decision it kept); no counters.
func (p *Policy) PolicyStats() policies.Stats {
	return policies.Stats{HasFitness: true, Fitness: p.lastFitness}
}

// Traits implements policies.Policy: jobs adapt their batch sizes.
func (*Policy) Traits() policies.Traits {
	return policies.Traits{AdaptiveBatch: true, SizesLLMJobs: true}
}

// order returns job indices sorted by (attained service, submission time):
// the priority in which repair resolves conflicts.
func order(jobs []policies.Job) []int {
	idx := make([]int, len(jobs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(jobs[a].Attained, jobs[b].Attained); c != 0 {
			return c
		}
		return cmp.Compare(jobs[a].Submit, jobs[b].Submit)
	})
	return idx
}

// Schedule implements policies.Policy.
func (p *Policy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	sub := considered(jobs, p.waitingLimit(c))
	if sub == nil {
		return p.decide(c, jobs, len(jobs))
	}
	in := make([]policies.Job, len(sub))
	for k, i := range sub {
		in[k] = jobs[i]
	}
	d := p.decide(c, in, len(jobs))
	dec := policies.Decision{Alloc: make([][]int, len(jobs))}
	for k, i := range sub {
		dec.Alloc[i] = d.Alloc[k]
	}
	return dec
}

// waitingLimit is the most waiting jobs a round considers on cluster c (0:
// all), see Options.WaitingPerGPU.
func (p *Policy) waitingLimit(c policies.Cluster) int {
	if !(p.opt.WaitingPerGPU > 0) {
		return 0
	}
	return max(1, int(math.Ceil(p.opt.WaitingPerGPU*float64(c.TotalGPUs()))))
}

// considered returns the indices, in input order, of the jobs a round
// considers: every job holding GPUs and the first limit waiting ones (see
// Options.WaitingPerGPU); nil when that is every job.
func considered(jobs []policies.Job, limit int) []int {
	if limit <= 0 || len(jobs) <= limit {
		return nil
	}
	waiting := 0
	for i := range jobs {
		if policies.Sum(jobs[i].Alloc) == 0 {
			waiting++
		}
	}
	if waiting <= limit {
		return nil
	}
	out := make([]int, 0, len(jobs)-waiting+limit)
	for i := range jobs {
		if policies.Sum(jobs[i].Alloc) > 0 {
			out = append(out, i)
		} else if limit > 0 {
			out = append(out, i)
			limit--
		}
	}
	return out
}

// decide decides a round for jobs, the jobs it considers among active
// ones (the fair share, every speedup's base, is among all active jobs).
func (p *Policy) decide(c policies.Cluster, jobs []policies.Job, active int) policies.Decision {
	dec := policies.Decision{Alloc: make([][]int, len(jobs))}
	if len(jobs) == 0 {
		p.last.valid = false
		return dec
	}
	if p.opt.SkipUnchanged && p.last.same(c, jobs, active, p.opt.RestartDelay) {
		p.skipped++
		return p.last.decision(jobs)
	}
	idx := order(jobs)
	sorted := make([]policies.Job, len(jobs))
	for k, i := range idx {
		sorted[k] = jobs[i]
	}
	// Drop the goodput caches of finished jobs (and of those not
	// considered).
	seen := make(map[string]bool, len(jobs))
	for i := range jobs {
		seen[jobs[i].Name] = true
	}
	for name := range p.caches {
		if !seen[name] {
			delete(p.caches, name)
		}
	}
	pr := newProblem(c, sorted, active, p.opt, p.caches)
	if p.opt.SkipSettled && settled(pr, c, p.opt) {
		p.skipped++
		p.lastFitness = pr.fitness(&pr.base)
		for i := range jobs {
			if policies.Sum(jobs[i].Alloc) > 0 {
				dec.Alloc[i] = jobs[i].Alloc
			}
		}
		if p.opt.SkipUnchanged {
			p.last.remember(c, jobs, active, dec, p.opt.RestartDelay)
		}
		return dec
	}
	best := p.search(pr, sorted, c)
	if placed, ok := placeLLM(pr, c, sorted, best); ok { // LLM jobs' nodes (llmplace.go)
		best, p.lastFitness = placed, pr.fitness(placed)
	}
	keep := !c.Heterogeneous() // OneType below may rewrite a row
	for k, i := range idx {
		if a := jobs[i].Alloc; keep && len(a) == c.Nodes && len(pr.base.row(k)) > 0 && equalRows(best.row(k), pr.base.row(k)) {
			// Unchanged: the job's own allocation (the engine then
			// need not compare it).
			dec.Alloc[i] = a
			continue
		}
		dec.Alloc[i] = best.denseRow(k, c.Nodes)
	}
	if c.Heterogeneous() {
		for i := range jobs {
			dec.Alloc[i] = OneType(c, &jobs[i], dec.Alloc[i])
		}
	}
	if p.opt.SkipUnchanged {
		p.last.remember(c, jobs, active, dec, p.opt.RestartDelay)
	}
	return dec
}

// Skipped is the number of rounds decided without a search
// (SkipUnchanged, SkipSettled).
func (p *Policy) Skipped() int { return p.skipped }

// OneType projects an allocation onto one GPU type, as the
// heterogeneity-unaware Pollux needs on a cluster of several types: its
// search treats every GPU alike (the job's one throughput model, per-node
// capacities), then each job keeps only its GPUs of the offered type it got
// most of (ties: the type it holds now, else the type of the lowest node);
// the GPUs it drops stay idle for the round. The result is nil when no
// offered type remains.
func OneType(c policies.Cluster, j *policies.Job, alloc []int) []int {
	per := map[string]int{}
	best := ""
	cur := c.AllocType(j.Alloc)
	for n, v := range alloc {
		t := c.NodeType(n)
		if v <= 0 || !j.Offers(t) {
			continue
		}
		per[t] += v
	}
	for n := range alloc {
		t := c.NodeType(n)
		if per[t] == 0 {
			continue
		}
		if best == "" || per[t] > per[best] || (per[t] == per[best] && t == cur && best != cur) {
			best = t
		}
	}
	if best == "" {
		return nil
	}
	out := make([]int, len(alloc))
	for n, v := range alloc {
		if c.NodeType(n) == best {
			out[n] = v
		}
	}
	return out
}

// search runs the genetic algorithm (and local search) on pr, remembers
// the final population for the next round and returns the best state.
func (p *Policy) search(pr *problem, jobs []policies.Job, c policies.Cluster) *state {
	N := c.Nodes
	p.rounds++
	if len(p.workers) == 0 || len(p.workers[0].stamp) != N {
		p.workers = p.workers[:0]
		for w := 0; w < p.opt.Workers; w++ {
			p.workers = append(p.workers, newWorker(N))
		}
		p.team = parallel.NewTeam(len(p.workers))
	}
	workers := p.workers
	if pr.nJobs < 8 {
		workers = workers[:1] // not worth the goroutines
	}
	opt := p.opt
	// Cap the genetic algorithm's work at MaxRowsPerRound job rows: on
	// very large problems the local search does the work better.
	if opt.MaxRowsPerRound > 0 && opt.Population*opt.Generations*pr.nJobs > opt.MaxRowsPerRound {
		opt.Generations = max(1, opt.MaxRowsPerRound/(opt.Population*pr.nJobs))
	}
	if opt.QuickStall > 0 && opt.Stall > 0 && opt.QuickStall < opt.Stall && p.sameJobs(jobs) {
		opt.Stall = opt.QuickStall
	}
	s := &searcher{pr: pr, rng: p.rng, opt: opt, round: p.rounds * 0x9e3779b97f4a7c15, workers: workers, team: p.team, free: p.pool, scratch: &p.scratch}
	base := s.get()
	base.copyFrom(&pr.base)
	initial := append([]*state{base}, p.adapt(jobs, s)...)
	if seed := pr.floorSeed(c, jobs, s); seed != nil { // floorseed.go
		initial = append(initial, seed)
	}
	pop := s.run(initial)
	best, fit := pop[0].st, pop[0].fit
	if p.opt.LocalSearch {
		// Polish the genetic algorithm's best few and, independently, the
		// current allocation; keep the best.
		sweeps := sweepsPerGPU*pr.capacity + minSweeps
		nStarts := localStarts
		if lim := opt.MaxLocalRows; lim > 0 && (1+nStarts)*sweeps*pr.nJobs > lim {
			nStarts = max(1, lim/(sweeps*pr.nJobs)-1)
			sweeps = max(1, min(sweeps, lim/((1+nStarts)*pr.nJobs)))
		}
		starts := []*state{&pr.base}
		for k := 0; k < len(pop) && k < nStarts; k++ {
			starts = append(starts, pop[k].st)
		}
		// The starts are polished in parallel (each on its own copy;
		// the problem's tables are safe for concurrent use) and compared
		// in order, as one after the other.
		cands := make([]individual, len(starts))
		s.each(len(starts), func(k int) {
			cands[k].st, cands[k].fit = s.localSearch(starts[k], sweeps)
		})
		fit = math.Inf(-1)
		for _, c := range cands {
			if c.fit > fit {
				best, fit = c.st, c.fit
			}
		}
	}
	best, fit = pr.restore(best, fit)
	p.lastFitness = fit
	// Remember the population (with the local search's result first).
	p.prevJobs = p.prevJobs[:0]
	for _, j := range jobs {
		p.prevJobs = append(p.prevJobs, j.Name)
	}
	p.prevPop = p.prevPop[:0]
	if best != pop[0].st {
		p.prevPop = append(p.prevPop, best)
	}
	for _, ind := range pop {
		p.prevPop = append(p.prevPop, ind.st)
	}
	p.prevN = N
	p.pool = s.free
	return best
}

// sameJobs reports whether jobs are the last round's, in any order.
func (p *Policy) sameJobs(jobs []policies.Job) bool {
	if len(p.prevPop) == 0 || len(jobs) != len(p.prevJobs) || p.prevN != len(p.workers[0].stamp) {
		return false
	}
	names := make(map[string]bool, len(jobs))
	for _, n := range p.prevJobs {
		names[n] = true
	}
	for i := range jobs {
		if !names[jobs[i].Name] {
			return false
		}
	}
	return true
}

// adapt maps the previous round's final population onto the current jobs:
// rows of jobs still active are carried over, new jobs start with none.
// The new states come from s's recycled ones, and the previous
// population's states are recycled into s.
func (p *Policy) adapt(jobs []policies.Job, s *searcher) []*state {
	if len(p.prevPop) == 0 || p.prevN != len(p.workers[0].stamp) {
		return nil
	}
	prevRow := make(map[string]int, len(p.prevJobs))
	for r, name := range p.prevJobs {
		prevRow[name] = r
	}
	rows := make([]int, len(jobs))
	for i, j := range jobs {
		r, ok := prevRow[j.Name]
		if !ok {
			r = -1
		}
		rows[i] = r
	}
	out := make([]*state, 0, len(p.prevPop))
	for _, old := range p.prevPop {
		st := s.get()
		st.begin()
		for _, r := range rows {
			if r >= 0 {
				st.ents = append(st.ents, old.row(r)...)
			}
			st.endRow()
		}
		out = append(out, st)
	}
	for _, old := range p.prevPop {
		s.put(old)
	}
	return out
}
