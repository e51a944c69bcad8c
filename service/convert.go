package service

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// Bounds of one round, beyond the body size.
const (
	maxNodeGPUs = 1 << 12 // GPUs on one node
	maxNameLen  = 253     // a node's or job's name (a Kubernetes name's length)
	// maxBatch bounds every batch size a job names (its hints,
	// request_batch, fixed_batch), samples: 2^31 − 1, so that no product
	// of a batch and a GPU count (at most maxNodeGPUs × 4,096 nodes, or
	// the limit on nodes) overflows.
	maxBatch = 1<<31 - 1
)

// round is a decoded, checked round: what the policy is given (its view:
// the nodes and jobs AdaptDL's policy would optimise, see adaptdl.go) and
// what the answer is written from.
type round struct {
	now     float64
	cluster policies.Cluster // the policy's view of the nodes
	// provisioning is the nodes ordered, not ready (for the autoscaler)
	provisioning int
	names        []string       // the view's node names, in the policy's order
	index        map[string]int // node name → its number in the request
	jobs         []policies.Job // the policy's view of the jobs: all but the pinned

	full  policies.Cluster // every node of the request, in its order
	nodes []string         // every node's name, in the request's order
	out   []outJob         // every job of the request, in its order
}

// errorf is a request error: its message names the field.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// finite checks that x is a finite, non-negative number.
func finite(field string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return errorf("%s: want a finite number ≥ 0, got %v", field, x)
	}
	return nil
}

// count checks that n is not negative.
func count(field string, n int) error {
	if n < 0 {
		return errorf("%s: want an integer ≥ 0, got %d", field, n)
	}
	return nil
}

// decodeRound checks a round request against the service's bounds and
// against what a policy of traits t needs of each job (needsBatch), and
// builds the policy's view of it. A node list of one GPU count and the
// default GPU type is a cluster without pools, as the simulator's default
// cluster is; otherwise consecutive nodes of one type and GPU count form a
// pool.
func decodeRound(req *RoundRequest, lim Limits, t policies.Traits) (*round, error) {
	return decodeRoundNamed(req, lim, t, func(i int) string { return "jobs[" + strconv.Itoa(i) + "]" })
}

// decodeRoundNamed is decodeRound naming the request's job i field(i) in
// its errors.
func decodeRoundNamed(req *RoundRequest, lim Limits, t policies.Traits, field func(i int) string) (*round, error) {
	if err := finite("time", req.Time); err != nil {
		return nil, err
	}
	if len(req.Nodes) == 0 {
		return nil, errorf("nodes: want at least one node")
	}
	if len(req.Nodes) > lim.MaxNodes {
		return nil, errorf("nodes: %d nodes, more than the service's limit of %d", len(req.Nodes), lim.MaxNodes)
	}
	if len(req.Jobs) > lim.MaxJobs {
		return nil, errorf("jobs: %d jobs, more than the service's limit of %d", len(req.Jobs), lim.MaxJobs)
	}
	if n := int64(len(req.Jobs)) * int64(len(req.Nodes)); n > int64(lim.MaxJobNodes) {
		return nil, errorf("jobs: %d jobs on %d nodes, %d pairs, more than the service's limit of %d jobs × nodes", len(req.Jobs), len(req.Nodes), n, lim.MaxJobNodes)
	}
	if err := count("provisioning", req.Provisioning); err != nil {
		return nil, err
	}
	r := &round{now: req.Time, provisioning: req.Provisioning, index: make(map[string]int, len(req.Nodes)), nodes: make([]string, len(req.Nodes))}
	var pools []policies.Pool
	gpus := 0
	for i, n := range req.Nodes {
		f := "nodes[" + strconv.Itoa(i) + "]"
		if err := checkName(f+".name", n.Name); err != nil {
			return nil, err
		}
		if _, dup := r.index[n.Name]; dup {
			return nil, errorf("%s.name: node %q listed twice", f, n.Name)
		}
		if n.GPUs < 1 || n.GPUs > maxNodeGPUs {
			return nil, errorf("%s.gpus: want 1 to %d, got %d", f, maxNodeGPUs, n.GPUs)
		}
		if gpus += n.GPUs; gpus > lim.MaxGPUs {
			return nil, errorf("%s.gpus: the nodes hold %d GPUs up to here, more than the service's limit of %d GPUs in a round", f, gpus, lim.MaxGPUs)
		}
		t := n.GPUType
		if t == "" {
			t = policies.DefaultType
		}
		if err := checkName(f+".gpu_type", t); err != nil {
			return nil, err
		}
		r.index[n.Name], r.nodes[i] = i, n.Name
		pools = addNode(pools, t, n.GPUs)
	}
	r.full = clusterOf(pools)
	if err := withRacks(&r.full, req); err != nil {
		return nil, err
	}
	r.cluster, r.names = r.full, r.nodes // while decoding: every node
	used := make([]int, len(req.Nodes))
	seen := make(map[string]bool, len(req.Jobs))
	r.out = make([]outJob, len(req.Jobs))
	for i := range req.Jobs {
		f := field(i)
		if err := checkJobGPUs(f, &req.Jobs[i], lim); err != nil {
			return nil, err
		}
		o := &r.out[i]
		if err := r.decodeJob(f, &req.Jobs[i], &o.job, used); err != nil {
			return nil, err
		}
		if err := needsBatch(f, &o.job, t, false); err != nil {
			return nil, err
		}
		if err := o.adaptdl(f, &req.Jobs[i], r.full.TotalGPUs()); err != nil {
			return nil, err
		}
		if seen[o.job.Name] {
			return nil, errorf("%s.name: job %q listed twice", f, o.job.Name)
		}
		seen[o.job.Name] = true
	}
	for n, u := range used {
		if u > req.Nodes[n].GPUs {
			return nil, errorf("nodes[%d]: the jobs' allocations hold %d GPUs of node %q, which has %d", n, u, req.Nodes[n].Name, req.Nodes[n].GPUs)
		}
	}
	r.view(req.Nodes)
	if r.full.Racks > 0 && (r.cluster.Nodes != r.full.Nodes || !slices.Equal(r.names, r.nodes)) {
		return nil, errorf("racks: %d racks of consecutive nodes, but preemptible nodes or non-preemptible jobs holding GPUs reorder the nodes the policy sees; leave racks out", r.full.Racks)
	}
	r.cluster.Racks, r.cluster.Oversubscription = r.full.Racks, r.full.Oversubscription
	if b := answerBound(r); b > lim.MaxResponse {
		return nil, errorf("nodes: the answer to this round could take %d bytes (every GPU given, named by its node), more than the service's limit of %d", b, lim.MaxResponse)
	}
	return r, nil
}

// withRacks gives cluster c the round's two-tier network, checked.
// Racks, when given, is at least 1 (CheckNetwork then says when it does
// not divide the nodes).
func withRacks(c *policies.Cluster, req *RoundRequest) error {
	if err := finite("oversubscription", req.Oversubscription); err != nil {
		return err
	}
	if k := req.Racks; k != nil {
		if *k < 1 {
			return errorf("racks: want an integer ≥ 1 that divides the round's %d nodes into racks of equal size (leave racks out for one tier), got %d", c.Nodes, *k)
		}
		c.Racks = *k
	}
	c.Oversubscription = req.Oversubscription
	if c.Racks > 0 && c.Oversubscription == 0 {
		c.Oversubscription = 1
	}
	if err := c.CheckNetwork(); err != nil {
		return errorf("racks: %v", err)
	}
	return nil
}

// racksOf is cluster c's racks as a request gives them: absent on one
// tier.
func racksOf(c policies.Cluster) *int {
	if c.Racks <= 0 {
		return nil
	}
	k := c.Racks
	return &k
}

// clusterOf is the cluster of pools: without pools when there is one of
// the default type (as the simulator's default cluster).
func clusterOf(pools []policies.Pool) policies.Cluster {
	if len(pools) == 1 && pools[0].Type == policies.DefaultType {
		return policies.Cluster{Nodes: pools[0].Nodes, GPUsPerNode: pools[0].GPUsPerNode}
	}
	return policies.NewCluster(pools...)
}

// addNode adds a node of g GPUs of type t after pools: to the last pool
// when of its type and GPU count, else as a pool of its own.
func addNode(pools []policies.Pool, t string, g int) []policies.Pool {
	if k := len(pools) - 1; k >= 0 && pools[k].Type == t && pools[k].GPUsPerNode == g {
		pools[k].Nodes++
		return pools
	}
	return append(pools, policies.Pool{Type: t, Nodes: 1, GPUsPerNode: g})
}

// checkFloor checks an LLM job's memory floor (min_gpus) against the GPUs
// it asks for, when it names them: a floor above request_gpus or
// max_replicas is a job that could never run as asked. A floor above the
// round's GPUs is accepted, as request_gpus is: a round's nodes change
// (failures, preemptible nodes, an autoscaler growing the cluster), and
// the job gets none until they hold its floor. The service's GPU limit
// bounds it as the other counts (checkJobGPUs).
func checkFloor(f string, w *Job) error {
	for _, c := range []struct {
		name string
		v    int
	}{{"request_gpus", w.RequestGPUs}, {"max_replicas", w.MaxReplicas}} {
		if c.v > 0 && w.MinGPUs > c.v {
			return errorf("%s.min_gpus: %d is above %s %d", f, w.MinGPUs, c.name, c.v)
		}
	}
	return nil
}

// decodeJob checks one job and fills its policy view; used counts the
// GPUs its allocation holds per node.
func (r *round) decodeJob(f string, w *Job, j *policies.Job, used []int) error {
	if err := checkName(f+".name", w.Name); err != nil {
		return err
	}
	if w.Application != "" {
		if err := checkName(f+".application", w.Application); err != nil {
			return err
		}
	}
	if err := finite(f+".submission_time", w.SubmissionTime); err != nil {
		return err
	}
	if w.SubmissionTime > r.now {
		return errorf("%s.submission_time: %v is after the round's time %v", f, w.SubmissionTime, r.now)
	}
	if err := finite(f+".deadline", w.Deadline); err != nil {
		return err
	}
	if w.Deadline != 0 && !(w.Deadline > w.SubmissionTime) {
		return errorf("%s.deadline: %v is not after the job's submission_time %v (leave it out for a best-effort job)", f, w.Deadline, w.SubmissionTime)
	}
	if err := finite(f+".attained_gpu_seconds", w.Attained); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"restarts", w.Restarts}, {"interruptions", w.Interruptions}, {"request_gpus", w.RequestGPUs}, {"request_batch", w.RequestBatch},
		{"fixed_batch", w.FixedBatch}, {"max_replicas", w.MaxReplicas}, {"epoch", w.Epoch}, {"min_gpus", w.MinGPUs}} {
		if err := count(f+"."+c.name, c.v); err != nil {
			return err
		}
	}
	if err := checkFloor(f, w); err != nil {
		return err
	}
	if err := batchSize(f+".request_batch", w.RequestBatch); err != nil {
		return err
	}
	if w.NodeUnit < 0 || w.NodeUnit > maxNodeGPUs {
		return errorf("%s.node_unit: want 0 to %d (the GPUs of an NVLink domain), got %d", f, maxNodeGPUs, w.NodeUnit)
	}
	// An NVLink domain lies within a node: a unit larger than every node
	// would leave the job's tensor groups no node to sit on. A unit that
	// does not divide a node's GPUs is kept (gcd(K, node_unit) GPUs per
	// node, policies.Job.TensorUnit, is defined for any unit).
	if largest := r.cluster.MaxNodeGPUs(); w.NodeUnit > largest {
		return errorf("%s.node_unit: %d GPUs, more than the largest node's %d (an NVLink domain lies within one node)", f, w.NodeUnit, largest)
	}
	if err := batchSize(f+".fixed_batch", w.FixedBatch); err != nil {
		return err
	}
	pj := protocol.Job{
		Name: w.Name, App: w.Application, Submit: w.SubmissionTime, Deadline: w.Deadline, Age: r.now - w.SubmissionTime,
		Restarts: w.Restarts, Interruptions: w.Interruptions, Attained: w.Attained,
		Request:    protocol.Request{GPUs: w.RequestGPUs, Batch: w.RequestBatch},
		FixedBatch: w.FixedBatch, MaxGPUs: w.MaxReplicas, Epoch: w.Epoch,
		MinGPUs: w.MinGPUs, NodeUnit: w.NodeUnit,
	}
	if len(w.Allocation) > 0 {
		if len(w.Allocation) > r.cluster.TotalGPUs() {
			return errorf("%s.allocation: %d replicas, more than the cluster's %d GPUs", f, len(w.Allocation), r.cluster.TotalGPUs())
		}
		pj.Alloc = make([]int, len(r.names))
		for k, name := range w.Allocation {
			n, ok := r.index[name]
			if !ok {
				return errorf("%s.allocation[%d]: node %q is not in nodes", f, k, name)
			}
			pj.Alloc[n]++
			used[n]++
		}
		for n, v := range pj.Alloc {
			if v > r.cluster.NodeGPUs(n) {
				return errorf("%s.allocation: %d replicas on node %q, which has %d GPUs", f, v, r.names[n], r.cluster.NodeGPUs(n))
			}
		}
	}
	// M0 when the hints do not say it: the user's batch, or the job's
	// fixed one.
	m0 := cmp.Or(w.RequestBatch, w.FixedBatch)
	if w.Hints == nil {
		pj.Limits = batchLimits(m0, 0, 0, 0)
	} else {
		if pj.Request.Batch == 0 {
			pj.Request.Batch = w.Hints.InitBatchSize // AdaptDL: the batch the user submitted
		}
		if err := decodeHints(f+".hints", w.Hints, m0, &pj.Params, &pj.Limits); err != nil {
			return err
		}
		// More than the round's GPUs counts as all of them: no policy caps
		// a job below twice that, and policies size caches by it.
		pj.MaxSeenGPUs = min(w.Hints.MaxProfiledReplicas, r.cluster.TotalGPUs())
		if g := w.Hints.GradParams; g != nil {
			pj.Grad = protocol.GradStats{Sqr: g.Norm, Var: g.Var}
		}
	}
	if len(w.GPUTypes) > 0 {
		pj.Types = append([]string(nil), w.GPUTypes...)
	}
	if len(w.TypeHints) > 0 {
		pj.TypeModels = make(map[string]protocol.TypeModel, len(w.TypeHints))
		for t, h := range w.TypeHints {
			var m protocol.TypeModel
			p := &m.Params
			if err := decodeHints(f+".type_hints["+strconv.Quote(t)+"]", &h, m0, &p, &m.Limits); err != nil {
				return err
			}
			if h.PerfParams == nil {
				return errorf("%s.type_hints[%q].perfParams: missing", f, t)
			}
			pj.TypeModels[t] = m
		}
	}
	*j = pj.Policies()
	// gradientAccumulation false (explicit: absent allows it, as every
	// simulated job does) forbids accumulation steps, in the policy's
	// goodput and in the answer's config.
	if w.Hints != nil && noAccum(w.Hints) {
		j.Limits.NoAccum = true
	}
	for t, h := range w.TypeHints {
		if m := j.TypeModels[t]; noAccum(&h) {
			m.Limits.NoAccum = true
			j.TypeModels[t] = m
		}
	}
	return nil
}

// needsBatch checks that job j names a batch (request_batch, fixed_batch
// or hints.initBatchSize) where its run time is needed: always in an
// admission (all, the admission request's jobs: admission control decides
// on their runs), and in a round for a job with a deadline under a policy
// that asks its oracle about a job's run at the batch the job asked for
// and does not choose batches itself (NeedsOracle without AdaptiveBatch:
// EDF with admission, edf-elastic, ElasticFlow, Chronus, Themis, Optimus,
// SRTF, Gavel). A job without one has no batch to ask about. Other jobs
// of a round may name none, as AdaptDL's do (their answers then carry no
// config; an oracle is asked about the batch the job's GPUs are configured
// with, models.SplitLocal splitting it without a per-GPU cap).
func needsBatch(f string, j *policies.Job, t policies.Traits, all bool) error {
	if j.Request.Batch > 0 || j.FixedBatch > 0 {
		return nil
	}
	switch {
	case all:
		return errorf("%s.request_batch: missing; an admission asks about the job's run at the batch it asked for (name request_batch, fixed_batch or hints.initBatchSize)", f)
	case t.NeedsOracle && !t.AdaptiveBatch && j.Deadline > 0:
		return errorf("%s.request_batch: missing; the job has a deadline and this session's policy asks its oracle about each job's run at the batch the job asked for (name request_batch, fixed_batch or hints.initBatchSize)", f)
	}
	return nil
}

// noAccum says hints forbid gradient accumulation.
func noAccum(h *Hints) bool { return h.GradientAccumulation != nil && !*h.GradientAccumulation }

// decodeHints checks a job's hints and sets its θ_sys (*params, left
// alone without perfParams) and batch limits (batchLimits; m0 is M0 when
// initBatchSize is absent). Hints that no batch can satisfy are refused,
// naming the field: initBatchSize above maxBatchSize (AdaptDL's
// goodput.optimize asserts the same), localBszBounds out of order, a
// smallest per-GPU batch above M0 or above the largest batch, perfParams
// without a batch to be relative to.
func decodeHints(f string, h *Hints, m0 int, params **protocol.Params, lim *protocol.Limits) error {
	for _, c := range []struct {
		name string
		v    int
	}{{"initBatchSize", h.InitBatchSize}, {"globalBatchSize", h.GlobalBatchSize}, {"maxBatchSize", h.MaxBatchSize},
		{"maxProfiledReplicas", h.MaxProfiledReplicas}} {
		if err := count(f+"."+c.name, c.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"initBatchSize", h.InitBatchSize}, {"globalBatchSize", h.GlobalBatchSize}, {"maxBatchSize", h.MaxBatchSize}} {
		if err := batchSize(f+"."+c.name, c.v); err != nil {
			return err
		}
	}
	var minLocal, maxLocal int // 0 or null: absent
	switch len(h.LocalBszBounds) {
	case 0:
	case 2:
		minLocal, maxLocal = h.LocalBszBounds[0], h.LocalBszBounds[1]
		if minLocal < 0 || maxLocal < 0 || maxLocal > 0 && maxLocal < minLocal {
			return errorf("%s.localBszBounds: want [min, max] with 0 ≤ min ≤ max (0 or null: none), got %v", f, h.LocalBszBounds)
		}
		if err := batchSize(f+".localBszBounds", max(minLocal, maxLocal)); err != nil {
			return err
		}
	default:
		return errorf("%s.localBszBounds: want [min, max], got %d numbers", f, len(h.LocalBszBounds))
	}
	init := cmp.Or(h.InitBatchSize, m0)
	if h.MaxBatchSize > 0 && init > h.MaxBatchSize {
		return errorf("%s.maxBatchSize: %d is below initBatchSize %d (or request_batch without it)", f, h.MaxBatchSize, init)
	}
	if h.PerfParams != nil && init == 0 {
		return errorf("%s.initBatchSize: missing, and perfParams need it (the batch their efficiency is relative to)", f)
	}
	*lim = batchLimits(init, h.MaxBatchSize, minLocal, maxLocal)
	if init > 0 && lim.MinLocal > init {
		return errorf("%s.localBszBounds: the smallest per-GPU batch %d is above initBatchSize %d", f, lim.MinLocal, init)
	}
	if lim.MaxBatch > 0 && lim.MinLocal > lim.MaxBatch {
		return errorf("%s.localBszBounds: the smallest per-GPU batch %d is above maxBatchSize %d", f, lim.MinLocal, lim.MaxBatch)
	}
	if g := h.GradParams; g != nil {
		if err := finite(f+".gradParams.norm", g.Norm); err != nil {
			return err
		}
		if err := finite(f+".gradParams.var", g.Var); err != nil {
			return err
		}
	}
	if pp := h.PerfParams; pp != nil {
		for _, c := range []struct {
			name string
			v    float64
		}{{"alpha_c", pp.AlphaC}, {"beta_c", pp.BetaC}, {"alpha_n", pp.AlphaN}, {"beta_n", pp.BetaN},
			{"alpha_r", pp.AlphaR}, {"beta_r", pp.BetaR}, {"gamma", pp.Gamma}} {
			if err := finite(f+".perfParams."+c.name, c.v); err != nil {
				return err
			}
		}
		if *params == nil {
			*params = new(protocol.Params)
		}
		**params = *pp
	}
	return nil
}

// batchLimits are a job's batch limits as AdaptDL's allocator reads its
// hints (allocator.py _get_job_info, goodput.py optimize; 0 is absent,
// as null is): the largest batch is maxBatchSize or else M0
// (initBatchSize), the smallest per-GPU batch localBszBounds[0] or else
// 1, the largest localBszBounds[1] or else the largest batch. A job that
// names no batch at all has none (all 0): its answer carries no config.
func batchLimits(init, maxBatchSize, minLocal, maxLocal int) protocol.Limits {
	lim := protocol.Limits{InitBatch: init, MaxBatch: cmp.Or(maxBatchSize, init)}
	lim.MaxLocal = cmp.Or(maxLocal, lim.MaxBatch)
	if lim.MaxLocal > 0 {
		lim.MinLocal = cmp.Or(minLocal, 1)
	}
	return lim
}

// batchSize checks that a job's batch size is at most maxBatch.
func batchSize(field string, v int) error {
	if v > maxBatch {
		return errorf("%s: %d samples, more than the service's limit of %d", field, v, maxBatch)
	}
	return nil
}

// NodeName is the name the client gives node n of a simulated cluster.
func NodeName(n int) string { return "n" + strconv.Itoa(n) }

// EncodeRound writes the policy's input of one round as a round request:
// node n is named NodeName(n). It is the inverse of what the service
// decodes, so that the service's policy sees exactly these jobs.
func EncodeRound(now float64, c policies.Cluster, jobs []policies.Job) RoundRequest {
	req := RoundRequest{Time: now, Nodes: encodeNodes(c), Jobs: make([]Job, len(jobs)), Racks: racksOf(c), Oversubscription: c.Oversubscription}
	for i := range jobs {
		req.Jobs[i] = encodeJob(&jobs[i])
	}
	return req
}

// encodeNodes names the nodes of c: node n is NodeName(n).
func encodeNodes(c policies.Cluster) []Node {
	nodes := make([]Node, c.Nodes)
	for n := range nodes {
		nodes[n] = Node{Name: NodeName(n), GPUs: c.NodeGPUs(n), GPUType: c.NodeType(n)}
	}
	return nodes
}

// encodeJob writes one job of a round as the service reads it.
func encodeJob(j *policies.Job) Job {
	pj := protocol.FromJob(j)
	w := Job{Name: pj.Name, Application: pj.App, SubmissionTime: pj.Submit, Deadline: pj.Deadline, Restarts: pj.Restarts, Interruptions: pj.Interruptions,
		Attained: pj.Attained, Allocation: replicas(pj.Alloc, NodeName),
		RequestGPUs: pj.Request.GPUs, RequestBatch: pj.Request.Batch, FixedBatch: pj.FixedBatch,
		MaxReplicas: pj.MaxGPUs, Epoch: pj.Epoch, GPUTypes: pj.Types, MinGPUs: pj.MinGPUs, NodeUnit: pj.NodeUnit}
	w.Hints = encodeHints(pj.Params, pj.Limits, j.Limits.NoAccum)
	w.Hints.MaxProfiledReplicas = pj.MaxSeenGPUs
	w.Hints.GradParams = &GradParams{Norm: pj.Grad.Sqr, Var: pj.Grad.Var}
	if len(pj.TypeModels) > 0 {
		w.TypeHints = make(map[string]Hints, len(pj.TypeModels))
		for t, m := range pj.TypeModels {
			w.TypeHints[t] = *encodeHints(&m.Params, m.Limits, j.TypeModels[t].Limits.NoAccum)
		}
	}
	return w
}

// encodeHints writes θ_sys (nil: none) and batch limits as hints;
// noAccum writes gradientAccumulation false.
func encodeHints(p *protocol.Params, lim protocol.Limits, noAccum bool) *Hints {
	h := &Hints{InitBatchSize: lim.InitBatch, MaxBatchSize: lim.MaxBatch, PerfParams: p}
	if noAccum {
		h.GradientAccumulation = new(bool)
	}
	if lim.MinLocal != 0 || lim.MaxLocal != 0 {
		h.LocalBszBounds = []int{lim.MinLocal, lim.MaxLocal}
	}
	return h
}

// replicas writes an allocation (GPUs per node) as the node of each
// replica.
func replicas(alloc []int, node func(int) string) []string {
	var out []string
	for n, v := range alloc {
		for range v {
			out = append(out, node(n))
		}
	}
	return out
}
