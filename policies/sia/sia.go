// Package sia implements the Sia scheduler (Jayaram Subramanya et al.,
// SOSP'23, "Sia: Heterogeneity-aware, goodput-optimized ML-cluster
// scheduling") as its artifact's simulator builds it (sia-simulator/sia.py):
// every round, for each job and each candidate configuration (GPU type,
// nodes, GPUs) it estimates the job's goodput from the throughput model its
// agent fitted on that type, normalises the goodputs per job to its slowest
// configuration, discounts every configuration but the current one by the
// job's restart factor, raises them to the power p and chooses at most one
// configuration per job so that the GPUs used per type fit, optimising
//
//	Σ_j Σ_c X_jc·A_jc + λ_n·(#jobs − Σ X)
//
// (minimised for p < 0, maximised for p > 0) exactly (Solve). The chosen
// counts are then placed on nodes of their type: multi-node configurations
// on whole free nodes, the others best-fit on one node.
//
// Two mechanisms of the artifact's code beyond the paper, on by default:
// the doubling cap (option doubling_cap; cluster.py
// get_sia_multi_job_info: a job's configurations on a type are capped at
// twice the most replicas it has been profiled at there, the paper's
// "scale up by a maximum of 2× in each round") and the workload batch
// limit (option workload_batch; job.py get_speedup_fn: goodput is valued
// over total batch sizes up to the workload's batch size, target_batch_size,
// or the smallest batch a configuration's GPUs can split if larger, while
// the job itself still tunes its batch up to the application's largest). The restart penalties of the restart factor are sia.py's
// get_restart_penalty per model (option restart_penalty_s for one value),
// distinct from what the engine charges for a restart. The restart factor
// discounts a job's configurations other than its current one; a job
// without GPUs, waiting or preempted, on all of them (option
// idle_restart_factor, on by default), where sia.py (__solve_mip_rescaled)
// values it undiscounted (idle_restart_factor=false).
//
// Bootstrap: on a cluster of several types our engine measures one GPU of
// every offered type when a job arrives (Sia's profiling), so every type
// has a fitted model and counts as profiled at one GPU (cap 2). The
// artifact by default has no model on a type until the job has run there
// (a value of 1 on one GPU of that type, cap 1); its --project_throughputs
// instead projects the goodput from a type with a model through the
// measured throughput ratios between types: option project_throughputs
// (project.go).
package sia

import (
	"math"
	"sort"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// zeroGain is the normalised goodput below which a configuration counts as
// useless (Sia's ZERO_ALLOC_GAIN).
const zeroGain = 1e-4

// Policy is the Sia scheduler. Create one per simulation with New.
type Policy struct {
	opt          Options
	restartDelay float64
	// delayByApp overrides restartDelay per application (the engine's
	// calibrated restart delays).
	delayByApp map[string]float64
	// changed holds, per job, when this policy last changed its
	// allocation: a job whose restart is still under way keeps its
	// configuration (Sia's non-preemptible constraint).
	changed map[string]float64
	// profiled holds, per job and GPU type, the most GPUs the job has run
	// on there (the doubling cap's base).
	profiled map[string]map[string]int
	// unproven counts the rounds whose allocation the branch and bound
	// did not prove optimal within Options.MaxNodes; maxGap is the
	// largest bound on their shortfall.
	unproven int
	maxGap   float64
}

var _ policies.StatsReporter = (*Policy)(nil)

// PolicyStats implements policies.StatsReporter: the counters of the rounds
// solved without a proof of optimality (the search stopped at
// max_search_nodes) and the largest bound on their shortfall in objective
// units; both 0 when every round was solved exactly.
func (p *Policy) PolicyStats() policies.Stats {
	return policies.Stats{Counters: map[string]float64{"sia_rounds_unproven": float64(p.unproven), "sia_max_gap": p.maxGap}}
}

// New returns a Sia policy with options opt in environment env.
func New(opt Options, env policies.Env) *Policy {
	return &Policy{opt: opt, restartDelay: env.RestartDelay, delayByApp: env.RestartDelayByApp, changed: map[string]float64{}, profiled: map[string]map[string]int{}}
}

// Name implements policies.Policy.
func (p *Policy) Name() string {
	if p.opt.Rigid {
		return RigidName
	}
	return Name
}

// Traits implements policies.Policy: jobs tune their batch size for
// goodput, as under Pollux.
func (*Policy) Traits() policies.Traits { return policies.Traits{AdaptiveBatch: true} }

// modelPenalty is Sia's restart penalty measured per model, in seconds.
func modelPenalty(app string) float64 {
	switch app {
	case "imagenet":
		return 250
	case "bert":
		return 120
	case "yolov3":
		return 45
	case "deepspeech2":
		return 25
	}
	return 30
}

// config is one candidate configuration.
type config struct {
	typ         int // index into the round's types
	nodes, gpus int
	perNode     int // GPUs per node of the type
	// spread marks a rigid job's request (Options.Rigid): its GPUs on
	// any nodes (nodes is the fewest it can take, as its goodput is
	// valued).
	spread bool
}

// rigidConfig is the configuration of job j's request on type t (held to
// its cap, policies.GPUCap: NeuMF's one GPU whatever it asks), or false
// if the type has too few GPUs for it.
func rigidConfig(r *round, t int, j *policies.Job) (config, bool) {
	k, per := j.Request.GPUs, r.per[t]
	if limit := policies.GPUCap(j, (*Policy)(nil).Traits()); limit > 0 {
		k = min(k, limit) // a request above the application's cap (NeuMF's one GPU)
	}
	if k < 1 || per < 1 { // a type with no node up (failures)
		return config{}, false
	}
	nodes := (k + per - 1) / per
	if nodes > len(r.nodesOf[t]) {
		return config{}, false
	}
	return config{typ: t, nodes: nodes, gpus: k, perNode: per, spread: true}, true
}

// configs lists the candidate configurations of a type with nodes nodes
// of perNode GPUs: one node with 1, 2, 4, ... GPUs up to a full node, then
// 2, 3, ... full nodes (Sia's CONFIGS_4GPU and CONFIGS_8GPU for 4 and 8).
func configs(typ, nodes, perNode int) []config {
	var cs []config
	for k := 1; k < perNode; k *= 2 {
		cs = append(cs, config{typ: typ, nodes: 1, gpus: k, perNode: perNode})
	}
	for n := 1; n <= nodes; n++ {
		cs = append(cs, config{typ: typ, nodes: n, gpus: n * perNode, perNode: perNode})
	}
	return cs
}

// round is one scheduling round's view of the cluster.
type round struct {
	types   []string
	nodesOf [][]int // node indices per type
	per     []int   // GPUs per node per type (the smallest of its nodes)
	cfgs    []config
}

func newRound(c policies.Cluster) *round {
	r := &round{types: c.Types()}
	index := map[string]int{}
	for i, t := range r.types {
		index[t] = i
	}
	r.nodesOf = make([][]int, len(r.types))
	r.per = make([]int, len(r.types))
	for n := 0; n < c.Nodes; n++ {
		t := index[c.NodeType(n)]
		r.nodesOf[t] = append(r.nodesOf[t], n)
		if g := c.NodeGPUs(n); r.per[t] == 0 || g < r.per[t] {
			r.per[t] = g
		}
	}
	for t := range r.types {
		r.cfgs = append(r.cfgs, configs(t, len(r.nodesOf[t]), r.per[t])...)
	}
	return r
}

// Schedule implements policies.Policy.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	dec := policies.Decision{Alloc: make([][]int, len(jobs))}
	if len(jobs) == 0 {
		return dec
	}
	r := newRound(c)
	p.observe(c, jobs)
	prob, cfgOf := p.problem(now, c, r, jobs)
	prob.MaxNodes = p.opt.MaxNodes
	sol, err := Solve(prob)
	if err != nil {
		// Only the fixed jobs can make the problem infeasible (e.g. a
		// cluster smaller than last round): solve without them.
		prob.Fixed = nil
		if sol, err = Solve(prob); err != nil {
			panic("sia: " + err.Error()) // options are built valid: a bug
		}
	}
	if sol.Gap > 0 {
		p.unproven++
		p.maxGap = math.Max(p.maxGap, sol.Gap)
	}
	chosen := make([]*config, len(jobs))
	for i, o := range sol.Choice {
		if o >= 0 {
			chosen[i] = &cfgOf[i][o]
		}
	}
	place(c, r, jobs, chosen, dec.Alloc)
	seen := map[string]bool{}
	for i := range jobs {
		seen[jobs[i].Name] = true
		if !policies.Equal(dec.Alloc[i], jobs[i].Alloc) {
			p.changed[jobs[i].Name] = now
		}
	}
	for name := range p.changed {
		if !seen[name] {
			delete(p.changed, name)
		}
	}
	for name := range p.profiled {
		if !seen[name] {
			delete(p.profiled, name)
		}
	}
	return dec
}

// observe records the GPUs each job has run on per type since last round
// (its current allocation).
func (p *Policy) observe(c policies.Cluster, jobs []policies.Job) {
	for i := range jobs {
		j := &jobs[i]
		k := j.GPUs()
		if k == 0 {
			continue
		}
		t := c.AllocType(j.Alloc)
		m := p.profiled[j.Name]
		if m == nil {
			m = map[string]int{}
			p.profiled[j.Name] = m
		}
		m[t] = max(m[t], k)
	}
}

// typeCap is Sia's doubling cap: twice the most GPUs job j has been
// profiled at on GPU type typ, at least 1. Profiled are the allocations it
// ran on there, the one-GPU bootstrap of a type with a throughput model
// (TypeModels), and on a single-type cluster the engine's MaxSeenGPUs. The
// Sia artifact (cluster.py get_sia_multi_job_info) computes
// min(max(2 × max_profiled_replicas, 1), 64, max batch / min per-GPU
// batch) per type; the last two are GPUCap's and the cluster's bounds.
func (p *Policy) typeCap(c policies.Cluster, j *policies.Job, typ string) int {
	seen := p.profiled[j.Name][typ]
	if p.opt.Project {
		return max(2*seen, 1) // only what it ran on (project.go)
	}
	if _, ok := j.TypeModels[typ]; ok {
		seen = max(seen, 1)
	}
	if len(j.TypeModels) == 0 && len(c.Types()) <= 1 {
		seen = max(seen, j.MaxSeenGPUs)
	}
	return max(2*seen, 1)
}

// problem builds the round's integer program and each job's candidate
// configurations (the program's options, in order).
func (p *Policy) problem(now float64, c policies.Cluster, r *round, jobs []policies.Job) (*Problem, [][]config) {
	prob := &Problem{Capacity: make([]int, len(r.types)), Jobs: make([][]Option, len(jobs)), Fixed: make([]int, len(jobs))}
	for t, typ := range r.types {
		prob.Capacity[t] = c.TypeGPUs(typ)
	}
	cfgOf := make([][]config, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		cfgOf[i], prob.Jobs[i] = p.options(now, c, r, j)
		prob.Fixed[i] = -1
		if at, ok := p.changed[j.Name]; ok && now-at < p.delay(j.App) && j.GPUs() > 0 {
			if k := current(c, r, j, cfgOf[i]); k >= 0 {
				prob.Fixed[i] = k
			}
		}
	}
	return prob, cfgOf
}

// delay is the engine's restart delay for a job of application app: while
// it lasts the job keeps its configuration (the artifact's
// preserve_ckpt_allocs, its job.rescale_time > 0).
func (p *Policy) delay(app string) float64 {
	if d, ok := p.delayByApp[app]; ok {
		return d
	}
	return p.restartDelay
}

// current is the index in cfgs of job j's current configuration, or -1.
func current(c policies.Cluster, r *round, j *policies.Job, cfgs []config) int {
	t := c.AllocType(j.Alloc)
	k, n := j.GPUs(), policies.NodesUsed(j.Alloc)
	for x, cf := range cfgs {
		if r.types[cf.typ] == t && cf.gpus == k && (cf.nodes == n || cf.spread) {
			return x
		}
	}
	return -1
}

// options builds job j's configurations and their objective values
// (maximised by Solve): λ_n − A for p < 0 and A + λ_n for p > 0, where
// A = min(round(s^p, 2), clip) and s is the normalised goodput, times the
// restart factor on a configuration other than the current one of a job
// that holds GPUs (of every job with IdleFactor).
func (p *Policy) options(now float64, c policies.Cluster, r *round, j *policies.Job) ([]config, []Option) {
	limit := policies.GPUCap(j, p.Traits())
	batch := 0
	if p.opt.WorkloadBatch {
		batch = j.Request.Batch
	}
	shared := 0 // the largest per-type cap, with ShareCap
	if p.opt.DoublingCap && (p.opt.ShareCap || p.opt.Project) {
		for _, typ := range r.types {
			if j.Offers(typ) {
				shared = max(shared, p.typeCap(c, j, typ))
			}
		}
	}
	src := -1
	if p.opt.Project {
		src = p.source(r, j)
	}
	var cfgs []config
	var gp []float64
	for t, typ := range r.types {
		if !j.Offers(typ) {
			continue
		}
		tl := limit
		if p.opt.DoublingCap {
			dc := shared
			if dc == 0 {
				dc = p.typeCap(c, j, typ)
			}
			dc = max(dc, j.MinGPUs) // a job with a memory floor starts at it
			if tl == 0 || dc < tl {
				tl = dc
			}
		}
		cands := r.cfgs
		if p.opt.Rigid {
			cf, ok := rigidConfig(r, t, j)
			if !ok {
				continue
			}
			cands, tl = []config{cf}, 0
		}
		for _, cf := range cands {
			if cf.typ != t || (tl > 0 && cf.gpus > tl) || cf.gpus < j.MinGPUs {
				continue
			}
			cfgs = append(cfgs, cf)
			if p.opt.Project {
				gp = append(gp, p.projectedGoodput(c, r, j, typ, cf, batch, src))
			} else {
				gp = append(gp, goodput(c, j, typ, cf, batch))
			}
		}
	}
	// Normalise to the slowest useful configuration; a job without a
	// model yet is worth 1 on one GPU of each type (on MinGPUs for a job
	// with a memory floor) and nothing more (a rigid job, 1 on its request).
	lo := math.Inf(1)
	for _, g := range gp {
		if g > 0 {
			lo = math.Min(lo, g)
		}
	}
	for x := range gp {
		switch {
		case math.IsInf(lo, 1) || gp[x] < 0:
			gp[x] = 0
			if cfgs[x].gpus == max(1, j.MinGPUs) || cfgs[x].spread {
				gp[x] = 1 // a rigid job: at its request
			}
		default:
			gp[x] /= lo
		}
		gp[x] = math.Max(gp[x], zeroGain)
	}
	cur := current(c, r, j, cfgs)
	factor := p.restartFactor(j)
	opts := make([]Option, len(cfgs))
	for x, cf := range cfgs {
		s := gp[x]
		if x != cur && (j.GPUs() > 0 || p.opt.IdleFactor) {
			s *= factor
		}
		s = math.Max(s, zeroGain)
		a := math.Min(math.Round(math.Pow(s, p.opt.P)*100)/100, p.opt.Clip)
		v := p.opt.LambdaN - a
		if p.opt.P > 0 {
			v = a + p.opt.LambdaN
		}
		opts[x] = Option{Type: cf.typ, GPUs: cf.gpus, Value: v}
	}
	return cfgs, opts
}

// restartFactor is the share of a job's life not lost to restarts,
// (age − restarts·penalty)/(age + penalty), or 1 for a job younger than
// the penalty (Sia with Pollux's re-allocation factor).
func (p *Policy) restartFactor(j *policies.Job) float64 {
	pen := p.opt.RestartPenalty
	if pen == 0 {
		pen = modelPenalty(j.App)
	}
	if j.Age < pen {
		return 1
	}
	return models.RestartFactor(j.Age, j.Restarts, pen)
}

// goodput is job j's estimated goodput on configuration cf of type typ:
// the best over batch sizes of the model its agent holds for the type
// (TypeModels on a cluster of several types, else Params), or −1 without
// a model. batch, when positive, caps the total batch sizes searched (the
// workload's own batch size, as the Sia artifact's job.py get_speedup_fn
// does with target_batch_size; never below the initial batch size nor
// below the smallest batch the configuration's GPUs can split).
func goodput(c policies.Cluster, j *policies.Job, typ string, cf config, batch int) float64 {
	var md models.Model
	switch tm, ok := j.TypeModels[typ]; {
	case ok:
		md = models.Model{Params: tm.Params, Grad: j.Grad, Limits: tm.Limits, FixedBatch: j.FixedBatch}
	case j.Params != nil && (len(j.TypeModels) == 0 || c.AllocType(j.Alloc) == typ):
		md = models.Model{Params: *j.Params, Grad: j.Grad, Limits: j.Limits, FixedBatch: j.FixedBatch}
	default:
		return -1
	}
	if batch > 0 && md.FixedBatch == 0 {
		// A configuration whose GPUs cannot split the workload's batch is
		// valued at the smallest batch they can (the artifact's candidate
		// batches then run from that batch down to the workload's, and
		// only the first is feasible).
		md.Limits.MaxBatch = min(md.Limits.MaxBatch, max(batch, md.Limits.InitBatch, cf.gpus*md.Limits.MinLocal))
	}
	if md.Limits.MinLocal > 0 && cf.gpus*md.Limits.MinLocal > max(md.Limits.MaxBatch, j.FixedBatch) {
		return -1 // the batch cannot be split over that many GPUs
	}
	return md.Best(cf.nodes, cf.gpus).Goodput
}

// place turns the chosen configurations into per-node allocations: a job
// keeping its type and configuration keeps its nodes; then, per type,
// multi-node configurations take whole free nodes (largest first) and the
// others the fullest node with room (best fit, largest first). A job that
// fragmentation leaves without such nodes takes its GPUs of that type
// wherever they are free, or none.
func place(c policies.Cluster, r *round, jobs []policies.Job, chosen []*config, out [][]int) {
	free := policies.FreeGPUs(c, nil)
	var todo []int
	for i, cf := range chosen {
		if cf == nil {
			continue
		}
		j := &jobs[i]
		if c.AllocType(j.Alloc) == r.types[cf.typ] && j.GPUs() == cf.gpus && (policies.NodesUsed(j.Alloc) == cf.nodes || cf.spread) && fits(free, j.Alloc) {
			out[i] = append([]int(nil), j.Alloc...)
			for n, v := range j.Alloc {
				free[n] -= v
			}
			continue
		}
		todo = append(todo, i)
	}
	sort.SliceStable(todo, func(a, b int) bool { return chosen[todo[a]].gpus > chosen[todo[b]].gpus })
	for _, i := range todo {
		cf := chosen[i]
		alloc := make([]int, c.Nodes)
		nodes := r.nodesOf[cf.typ]
		ok := false
		if cf.nodes > 1 && cf.gpus == cf.nodes*cf.perNode {
			var whole []int
			for _, n := range nodes {
				if free[n] == c.NodeGPUs(n) && free[n] >= cf.perNode && len(whole) < cf.nodes {
					whole = append(whole, n)
				}
			}
			if len(whole) == cf.nodes {
				for _, n := range whole {
					alloc[n] = cf.perNode
				}
				ok = true
			}
		} else {
			best := -1
			for _, n := range nodes {
				if free[n] >= cf.gpus && (best < 0 || free[n] < free[best]) {
					best = n
				}
			}
			if best >= 0 {
				alloc[best] = cf.gpus
				ok = true
			}
		}
		if !ok {
			sub := make([]int, c.Nodes)
			for _, n := range nodes {
				sub[n] = free[n]
			}
			if a := policies.PlaceMostFree(sub, cf.gpus); a != nil {
				alloc, ok = a, true
			}
		}
		if !ok {
			continue
		}
		for n, v := range alloc {
			free[n] -= v
		}
		out[i] = alloc
	}
}

// fits reports whether alloc fits the free GPUs per node.
func fits(free, alloc []int) bool {
	if len(alloc) > len(free) {
		return false
	}
	for n, v := range alloc {
		if v > free[n] {
			return false
		}
	}
	return true
}
