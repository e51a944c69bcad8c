package gavel

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// Policy is one of the Gavel family. It keeps the round state (the round's
// start, the jobs running in it, the rounds each job has received per GPU
// type) between calls; create one per simulation.
type Policy struct {
	name    string
	opt     Options
	weights map[string]float64

	started    bool
	roundStart float64
	running    map[string]bool           // jobs given GPUs in the current round
	active     map[string]int            // rounds each job has been waiting or running
	received   map[string]map[string]int // rounds each job ran, per GPU type
	// jobTime and typeTime are the seconds each job ran per GPU type and
	// all jobs' seconds per type, each job starting at half a round on
	// every type (share type, Gavel's code); typeTime is never reset.
	jobTime  map[string]map[string]float64
	typeTime map[string]float64
	rounds   int
	failures int

	// cache of the last allocation, for the policies whose allocation
	// depends only on the set of jobs (not gavel-ftf)
	cacheKey string
	cacheX   [][]float64

	// workers holds each running job's GPUs (placement workers).
	workers map[string][]worker
}

var _ policies.Policy = (*Policy)(nil)

// New returns the Gavel policy of the given registered name (LAS, FTF or
// Throughput) with the given options.
func New(name string, opt Options) (*Policy, error) {
	switch name {
	case LAS, FTF, Throughput:
	default:
		return nil, fmt.Errorf("gavel: unknown policy %q (want %s, %s or %s)", name, LAS, FTF, Throughput)
	}
	if err := opt.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if opt.Weights != "" && name != LAS {
		return nil, fmt.Errorf("weights apply to %s only", LAS)
	}
	if opt.Normalise && name != Throughput {
		return nil, fmt.Errorf("normalise applies to %s only", Throughput)
	}
	if opt.LP == LPInterior && name != Throughput {
		return nil, fmt.Errorf("lp=%s applies to %s only", LPInterior, Throughput)
	}
	w, _ := parseWeights(opt.Weights)
	return &Policy{name: name, opt: opt, weights: w,
		running: map[string]bool{}, active: map[string]int{}, received: map[string]map[string]int{},
		jobTime: map[string]map[string]float64{}, typeTime: map[string]float64{}, workers: map[string][]worker{}}, nil
}

// Name implements policies.Policy.
func (p *Policy) Name() string { return p.name }

// Traits implements policies.Policy: jobs run at the GPUs and batch size
// their users asked for; the oracle gives Gavel its measured throughputs
// per GPU type (and gavel-ftf the remaining work).
func (*Policy) Traits() policies.Traits { return policies.Traits{NeedsOracle: true, UserGPUs: true} }

// Rounds is the number of rounds begun so far.
func (p *Policy) Rounds() int { return p.rounds }

// SolverFailures counts rounds whose program could not be solved; such a
// round falls back to an all-zero allocation (jobs in arrival order).
func (p *Policy) SolverFailures() int { return p.failures }

// Schedule implements policies.Policy. Between round boundaries it keeps
// the round's jobs where they are (a finished job's GPUs stay idle and
// arrivals wait, as in Gavel); at a boundary it solves the policy's
// program and picks the round's jobs by priority.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	if p.started && now < p.roundStart+p.opt.RoundSeconds-1e-9 {
		if d, ok := p.hold(c, jobs); ok {
			return d
		}
	}
	return p.newRound(now, c, jobs)
}

// hold keeps the current round's allocations; false if they no longer fit
// the cluster (it changed under the policy).
func (p *Policy) hold(c policies.Cluster, jobs []policies.Job) (policies.Decision, bool) {
	alloc := make([][]int, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		if p.running[j.Name] && len(j.Alloc) == c.Nodes && policies.Sum(j.Alloc) == j.Request.GPUs {
			alloc[i] = append([]int(nil), j.Alloc...)
		}
	}
	for _, f := range policies.FreeGPUs(c, alloc) {
		if f < 0 {
			return policies.Decision{}, false
		}
	}
	return policies.Decision{Alloc: alloc}, true
}

// typeInfo lists the cluster's GPU types with their GPUs and the largest
// node's GPUs (for packed placements).
func typeInfo(c policies.Cluster) (types []string, caps []float64, perNode []int) {
	types = c.Types()
	caps = make([]float64, len(types))
	perNode = make([]int, len(types))
	for k, t := range types {
		caps[k] = float64(c.TypeGPUs(t))
	}
	for n := 0; n < c.Nodes; n++ {
		k := slices.Index(types, c.NodeType(n))
		perNode[k] = max(perNode[k], c.NodeGPUs(n))
	}
	return types, caps, perNode
}

// JobThroughput is job j's throughput, optimizer steps per second at its
// requested GPUs packed onto nodes of perNode GPUs and its requested batch,
// on GPU type t, from the oracle's TypeIterTime. 0 when the job cannot run
// on t.
func JobThroughput(j *policies.Job, t string, perNode int) float64 {
	n := j.Request.GPUs
	if n <= 0 || !j.Offers(t) || j.Oracle == nil {
		return 0
	}
	s, ok := j.Oracle.TypeIterTime(t, models.PackedPlacement(n, perNode), j.Request.Batch)
	if !ok || !(s > 0) {
		return 0
	}
	return 1 / s
}

// solve returns X[i][k], the time fraction of job i on type k.
func (p *Policy) solve(c policies.Cluster, jobs []policies.Job, types []string, caps []float64, perNode []int) [][]float64 {
	key := ""
	if p.name != FTF {
		var b strings.Builder
		fmt.Fprint(&b, c.Nodes, c.Pools, c.MaxNodeGPUs())
		for i := range jobs {
			b.WriteString("|" + jobs[i].Name)
		}
		key = b.String()
		if key == p.cacheKey && p.cacheX != nil {
			return p.cacheX
		}
	}
	thr := make([][]float64, len(jobs))
	for i := range jobs {
		thr[i] = make([]float64, len(types))
		for k, t := range types {
			thr[i][k] = JobThroughput(&jobs[i], t, perNode[k])
		}
	}
	w := make([]float64, len(jobs))
	for i := range jobs {
		w[i] = 1
		if v, ok := p.weights[jobs[i].App]; ok && p.name == LAS {
			w[i] = v
		}
	}
	var X [][]float64
	var err error
	if p.name == FTF {
		pr := &problem{caps: caps, scale: make([]float64, len(jobs)), thr: thr}
		age, rem := make([]float64, len(jobs)), make([]float64, len(jobs))
		for i := range jobs {
			pr.scale[i] = float64(jobs[i].Request.GPUs)
			age[i] = jobs[i].Age
			if jobs[i].Oracle != nil {
				rem[i] = jobs[i].Oracle.RemainingIterations(jobs[i].Request.Batch)
			}
		}
		X, _, err = pr.ftf(age, rem, p.opt.Tolerance)
		if err != nil {
			X = pr.allocation(nil, nil)
		}
	} else {
		// Identical jobs (same throughputs, GPUs and weight) share a row.
		pr := &problem{caps: caps}
		class := make([]int, len(jobs))
		seen := map[string]int{}
		var cw []float64
		for i := range jobs {
			k := fmt.Sprint(thr[i], jobs[i].Request.GPUs, w[i])
			c, ok := seen[k]
			if !ok {
				c = len(pr.thr)
				seen[k] = c
				pr.thr = append(pr.thr, thr[i])
				pr.scale = append(pr.scale, float64(jobs[i].Request.GPUs))
				pr.count = append(pr.count, 0)
				cw = append(cw, w[i])
			}
			pr.count[c]++
			class[i] = c
		}
		var Xc [][]float64
		if p.name == LAS {
			Xc, err = pr.las(cw)
		} else {
			Xc, err = pr.throughput(p.opt.Normalise, p.opt.LP == LPInterior)
		}
		if err != nil {
			Xc = pr.allocation(nil, nil)
		}
		X = make([][]float64, len(jobs))
		for i := range jobs {
			X[i] = Xc[class[i]]
		}
	}
	if err != nil {
		p.failures++
	}
	p.cacheKey, p.cacheX = key, X
	return X
}

// candidate is one (job, type) a round may pick.
type candidate struct {
	i, k    int
	x, prio float64
	current bool // the job runs on type k now
}

// newRound begins a round at now.
func (p *Policy) newRound(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	p.started, p.roundStart = true, now
	p.rounds++
	types, caps, perNode := typeInfo(c)
	X := p.solve(c, jobs, types, caps, perNode)

	// Priorities: X[i][k] over job i's share of type k (infinite for a
	// share of 0): of all jobs' time on k (share type), or of its own
	// rounds (share job).
	if p.opt.Share == ShareType {
		for i := range jobs {
			if _, ok := p.jobTime[jobs[i].Name]; !ok {
				m := make(map[string]float64, len(types))
				for _, t := range types {
					m[t] = p.opt.RoundSeconds / 2
					p.typeTime[t] += m[t]
				}
				p.jobTime[jobs[i].Name] = m
			}
		}
	}
	var cands []candidate
	for i := range jobs {
		j := &jobs[i]
		cur := ""
		if policies.Sum(j.Alloc) > 0 && len(j.Alloc) == c.Nodes {
			cur = c.AllocType(j.Alloc)
		}
		for k, t := range types {
			if JobThroughput(j, t, perNode[k]) <= 0 || float64(j.Request.GPUs) > caps[k] {
				continue
			}
			prio := 0.0
			if x := X[i][k]; x > 0 {
				share := 0.0
				switch a := p.active[j.Name]; {
				case p.opt.Share == ShareType:
					if tt := p.typeTime[t]; tt > 0 {
						share = p.jobTime[j.Name][t] / tt
					}
				case a > 0:
					share = float64(p.received[j.Name][t]) / float64(a)
				}
				prio = math.Inf(1)
				if share > 0 {
					prio = x / share
				}
			}
			cands = append(cands, candidate{i: i, k: k, x: X[i][k], prio: prio, current: cur == t})
		}
	}
	sortCandidates(cands, p.opt.Ties)
	free := make([]int, len(types))
	for k := range types {
		free[k] = int(caps[k])
	}
	pick := make([]int, len(jobs))
	for i := range pick {
		pick[i] = -1
	}
	var order []int // the picked jobs in picking order
	for _, cd := range cands {
		if g := jobs[cd.i].Request.GPUs; pick[cd.i] < 0 && g <= free[cd.k] {
			pick[cd.i] = cd.k
			free[cd.k] -= g
			order = append(order, cd.i)
		}
	}

	var alloc [][]int
	if p.opt.Placement == PlaceWorkers {
		alloc, p.workers = placeWorkers(c, types, jobs, pick, order, p.workers)
	} else {
		alloc = placePacked(c, types, jobs, pick)
	}

	// Book-keeping for the next round's priorities.
	live := make(map[string]bool, len(jobs))
	for i := range jobs {
		name := jobs[i].Name
		live[name] = true
		p.active[name]++
		p.running[name] = alloc[i] != nil
		if alloc[i] != nil {
			if p.received[name] == nil {
				p.received[name] = map[string]int{}
			}
			p.received[name][types[pick[i]]]++
			if p.opt.Share == ShareType {
				t := types[pick[i]]
				p.jobTime[name][t] += p.opt.RoundSeconds
				p.typeTime[t] += p.opt.RoundSeconds
			}
		}
	}
	for name := range p.active {
		if !live[name] {
			delete(p.active, name)
			delete(p.received, name)
			delete(p.running, name)
			delete(p.jobTime, name)
		}
	}
	return policies.Decision{Alloc: alloc}
}

// placePacked places the round's picks (placement packed, the default): a
// job that stays on its type with its GPUs keeps them; the others go to
// the most free nodes of their type.
func placePacked(c policies.Cluster, types []string, jobs []policies.Job, pick []int) [][]int {
	alloc := make([][]int, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		if k := pick[i]; k >= 0 && len(j.Alloc) == c.Nodes && policies.Sum(j.Alloc) == j.Request.GPUs && c.AllocType(j.Alloc) == types[k] {
			alloc[i] = append([]int(nil), j.Alloc...)
		}
	}
	nodeFree := policies.FreeGPUs(c, alloc)
	for i := range jobs {
		k := pick[i]
		if k < 0 || alloc[i] != nil {
			continue
		}
		sub := make([]int, c.Nodes)
		for n, f := range nodeFree {
			if c.NodeType(n) == types[k] {
				sub[n] = f
			}
		}
		a := policies.PlaceMostFree(sub, jobs[i].Request.GPUs)
		if a == nil {
			continue
		}
		for n, v := range a {
			nodeFree[n] -= v
		}
		alloc[i] = a
	}
	return alloc
}

// sortCandidates orders a round's (job, type) pairs: decreasing priority,
// then decreasing time fraction, then by ties (TiesType: the types' order,
// then submission order; else the job's current type first, then
// submission order).
func sortCandidates(cands []candidate, ties string) {
	slices.SortStableFunc(cands, func(a, b candidate) int {
		if d := cmp.Compare(b.prio, a.prio); d != 0 {
			return d
		}
		if d := cmp.Compare(b.x, a.x); d != 0 {
			return d
		}
		if ties == TiesType {
			if d := cmp.Compare(a.k, b.k); d != 0 {
				return d
			}
			return cmp.Compare(a.i, b.i)
		}
		if a.current != b.current {
			if a.current {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.i, b.i) // submission order
	})
}
