package conformance

import (
	"slices"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// App is an application of the canned scenarios: what its jobs tell a
// policy (limits, caps, fitted throughput model, gradient statistics) and
// the ground truth behind their oracle.
type App struct {
	Name       string
	Limits     models.Limits
	FixedBatch int // see policies.Job.FixedBatch
	MaxGPUs    int // see policies.Job.MaxGPUs
	// Params and Grad are what the job's agent reports once the job has
	// run (Params stays nil before).
	Params models.Params
	Grad   models.GradStats
	// Iterations is a job's length in steps at its requested batch; Epochs
	// splits it into epochs.
	Iterations float64
	Epochs     int
	// Step is the ground truth of a step's time (see Oracle).
	Step StepModel
}

// JobSpec is one job of a scenario. It is active from round Arrive up to,
// not including, round Finish (0: to the end).
type JobSpec struct {
	Name           string
	App            *App
	GPUs, Batch    int // the request
	Arrive, Finish int
	// Alloc, when set, is the GPUs per node the job already holds when it
	// first appears, placed by an earlier scheduler (it has run before).
	Alloc []int
	// Types, on a cluster of several GPU types, are the types the job may
	// run on (policies.Job.Types); its agent's model on each is the App's
	// with compute times divided by the type's speed (typeSpeed).
	Types []string
}

// typeSpeed is how much faster than a T4 the mixed scenario's GPU types
// compute.
func typeSpeed(t string) float64 {
	if t == "a100" {
		return 2.5
	}
	return 1
}

// Scenario is a canned sequence of scheduling rounds on one cluster.
// Round r happens at time (r+1)·Interval; jobs are listed to the policy in
// the order of Jobs, which is their submission order.
type Scenario struct {
	Name     string
	Doc      string
	Cluster  policies.Cluster
	Interval float64 // seconds between rounds
	Rounds   int
	Jobs     []JobSpec
	// Down, when set, lists per round the nodes of Cluster that are down
	// (failed, not yet repaired): the policy is given a cluster of the
	// nodes up only, numbered in order, and a job holding GPUs on a node
	// that is down has lost them (it is pending), as the engine does under
	// failures (sim.Config.Failures). Jobs' Alloc are on Cluster's nodes.
	Down map[int][]int
}

// up is the nodes of sc.Cluster that are up in round r, in order, and the
// cluster a policy sees then.
func (sc *Scenario) up(r int) ([]int, policies.Cluster) {
	c := sc.Cluster
	var nodes []int
	for n := 0; n < c.Nodes; n++ {
		if !slices.Contains(sc.Down[r], n) {
			nodes = append(nodes, n)
		}
	}
	if len(c.Pools) == 0 {
		c.Nodes = len(nodes)
		return nodes, c
	}
	// Each pool has its nodes up, in order (a pool may have none).
	pools := slices.Clone(c.Pools)
	first := 0
	for i := range pools {
		up := 0
		for _, n := range nodes {
			if n >= first && n < first+c.Pools[i].Nodes {
				up++
			}
		}
		first += c.Pools[i].Nodes
		pools[i].Nodes = up
	}
	return nodes, policies.NewCluster(pools...)
}

// project is alloc (on every node) on the nodes up, nil for none.
func project(alloc []int, up []int) []int {
	if alloc == nil {
		return nil
	}
	out := make([]int, len(up))
	for i, n := range up {
		out[i] = alloc[n]
	}
	return out
}

// lift is alloc (on the nodes up) on every one of nodes nodes.
func lift(alloc []int, up []int, nodes int) []int {
	if alloc == nil || len(up) == nodes {
		return alloc
	}
	out := make([]int, nodes)
	for i, n := range up {
		if i < len(alloc) {
			out[n] = alloc[i]
		}
	}
	return out
}

// The applications of the canned scenarios; their limits are those of the
// reference's measured applications.
var (
	appCifar = &App{
		Name:   "cifar10",
		Limits: models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 1024},
		Params: models.Params{AlphaC: 0.02, BetaC: 0.0004, AlphaR: 0.01, BetaR: 0.002, AlphaN: 0.05, BetaN: 0.01, Gamma: 1.3},
		Grad:   models.GradStats{Sqr: 1, Var: 20}, Iterations: 40000, Epochs: 100,
		Step: StepModel{Compute: 0.02, PerSample: 0.0004, Local: 0.01, Network: 0.05},
	}
	appBert = &App{
		Name:   "bert",
		Limits: models.Limits{InitBatch: 12, MaxBatch: 384, MinLocal: 4, MaxLocal: 12},
		Params: models.Params{AlphaC: 0.1, BetaC: 0.02, AlphaR: 0.05, BetaR: 0.005, AlphaN: 0.2, BetaN: 0.02, Gamma: 2},
		Grad:   models.GradStats{Sqr: 1, Var: 3}, Iterations: 15000, Epochs: 2,
		Step: StepModel{Compute: 0.1, PerSample: 0.02, Local: 0.05, Network: 0.2},
	}
	appImagenet = &App{
		Name:   "imagenet",
		Limits: models.Limits{InitBatch: 200, MaxBatch: 12800, MinLocal: 20, MaxLocal: 200},
		Params: models.Params{AlphaC: 0.05, BetaC: 0.003, AlphaR: 0.03, BetaR: 0.004, AlphaN: 0.1, BetaN: 0.02, Gamma: 1.6},
		Grad:   models.GradStats{Sqr: 1, Var: 300}, Iterations: 200000, Epochs: 90,
		Step: StepModel{Compute: 0.05, PerSample: 0.003, Local: 0.03, Network: 0.1},
	}
	// appNarrow's batch range admits few GPUs: at most 64/32 = 2 at its
	// initial batch and 256/32 = 8 at its largest.
	appNarrow = &App{
		Name:   "narrow",
		Limits: models.Limits{InitBatch: 64, MaxBatch: 256, MinLocal: 32, MaxLocal: 64},
		Params: models.Params{AlphaC: 0.01, BetaC: 0.001, AlphaR: 0.002, BetaR: 0.001, AlphaN: 0.01, BetaN: 0.002, Gamma: 1},
		Grad:   models.GradStats{Sqr: 1, Var: 1000}, Iterations: 5000, Epochs: 5,
		Step: StepModel{Compute: 0.01, PerSample: 0.001, Local: 0.002, Network: 0.01},
	}
	// appNCF is pinned to one GPU and a fixed batch, as the reference pins
	// NeuMF.
	appNCF = &App{
		Name:       "ncf",
		Limits:     models.Limits{InitBatch: 256, MaxBatch: 32768, MinLocal: 32, MaxLocal: 32768},
		FixedBatch: 32768, MaxGPUs: 1,
		Params: models.Params{AlphaC: 0.01, BetaC: 0.00001, AlphaR: 0.01, BetaR: 0.001, AlphaN: 0.05, BetaN: 0.01, Gamma: 1.1},
		Grad:   models.GradStats{Sqr: 1, Var: 50}, Iterations: 3000, Epochs: 10,
		Step: StepModel{Compute: 0.01, PerSample: 0.00001, Local: 0.01, Network: 0.05},
	}
)

// Scenarios returns the canned scenarios, new on every call.
func Scenarios() []Scenario {
	return []Scenario{
		{
			Name: "empty-cluster",
			Doc:  "rounds without jobs, jobs arriving on an idle cluster, the cluster emptying and filling again",
			// Rounds: 0 none, 1–2 three jobs, 3 none, 4 one job.
			Cluster: policies.Cluster{Nodes: 2, GPUsPerNode: 4}, Interval: 60, Rounds: 5,
			Jobs: []JobSpec{
				{Name: "cifar10-a", App: appCifar, GPUs: 3, Batch: 384, Arrive: 1, Finish: 3},
				{Name: "bert-b", App: appBert, GPUs: 1, Batch: 12, Arrive: 1, Finish: 3},
				{Name: "ncf-c", App: appNCF, GPUs: 1, Batch: 32768, Arrive: 1, Finish: 3},
				{Name: "imagenet-d", App: appImagenet, GPUs: 4, Batch: 800, Arrive: 4},
			},
		},
		{
			Name:    "oversubscribed",
			Doc:     "twelve jobs asking for 30 GPUs of 8, one for more than the cluster has",
			Cluster: policies.Cluster{Nodes: 2, GPUsPerNode: 4}, Interval: 60, Rounds: 4,
			Jobs: []JobSpec{
				{Name: "imagenet-0", App: appImagenet, GPUs: 4, Batch: 800},
				{Name: "cifar10-1", App: appCifar, GPUs: 2, Batch: 256},
				{Name: "bert-2", App: appBert, GPUs: 1, Batch: 12},
				{Name: "narrow-3", App: appNarrow, GPUs: 2, Batch: 64},
				{Name: "ncf-4", App: appNCF, GPUs: 1, Batch: 32768},
				{Name: "imagenet-5", App: appImagenet, GPUs: 8, Batch: 1600},
				{Name: "cifar10-6", App: appCifar, GPUs: 1, Batch: 128},
				{Name: "bert-7", App: appBert, GPUs: 3, Batch: 36},
				{Name: "narrow-8", App: appNarrow, GPUs: 1, Batch: 64},
				{Name: "imagenet-9", App: appImagenet, GPUs: 16, Batch: 3200},
				{Name: "ncf-10", App: appNCF, GPUs: 1, Batch: 256},
				{Name: "cifar10-11", App: appCifar, GPUs: 4, Batch: 512},
			},
		},
		{
			Name: "fragmented",
			Doc:  "running jobs leave one or two GPUs free per node; jobs larger than any node's free GPUs arrive",
			// Free GPUs at the start: 1, 1, 1, 2.
			Cluster: policies.Cluster{Nodes: 4, GPUsPerNode: 4}, Interval: 120, Rounds: 5,
			Jobs: []JobSpec{
				{Name: "cifar10-f0", App: appCifar, GPUs: 3, Batch: 384, Alloc: []int{3, 0, 0, 0}},
				{Name: "imagenet-f1", App: appImagenet, GPUs: 3, Batch: 600, Alloc: []int{0, 3, 0, 0}, Finish: 3},
				{Name: "bert-f2", App: appBert, GPUs: 3, Batch: 36, Alloc: []int{0, 0, 3, 0}},
				{Name: "narrow-f3", App: appNarrow, GPUs: 2, Batch: 64, Alloc: []int{0, 0, 0, 2}, Finish: 2},
				{Name: "imagenet-g", App: appImagenet, GPUs: 4, Batch: 800},
				{Name: "cifar10-h", App: appCifar, GPUs: 2, Batch: 256},
				{Name: "ncf-i", App: appNCF, GPUs: 1, Batch: 32768, Arrive: 1},
				{Name: "bert-j", App: appBert, GPUs: 3, Batch: 36, Arrive: 2},
			},
		},
		{
			Name:    "churn",
			Doc:     "jobs arriving and finishing over twelve half-hour rounds; long jobs pass 16 GPU-hours of service",
			Cluster: policies.Cluster{Nodes: 4, GPUsPerNode: 4}, Interval: 1800, Rounds: 12,
			Jobs: []JobSpec{
				{Name: "imagenet-long", App: appImagenet, GPUs: 4, Batch: 800},
				{Name: "cifar10-long", App: appCifar, GPUs: 8, Batch: 1024},
				{Name: "bert-0", App: appBert, GPUs: 2, Batch: 24, Finish: 3},
				{Name: "ncf-1", App: appNCF, GPUs: 1, Batch: 32768, Arrive: 1, Finish: 4},
				{Name: "narrow-2", App: appNarrow, GPUs: 2, Batch: 64, Arrive: 2, Finish: 9},
				{Name: "imagenet-3", App: appImagenet, GPUs: 16, Batch: 3200, Arrive: 3, Finish: 7},
				{Name: "cifar10-4", App: appCifar, GPUs: 1, Batch: 128, Arrive: 4},
				{Name: "bert-5", App: appBert, GPUs: 4, Batch: 48, Arrive: 5, Finish: 10},
				{Name: "ncf-6", App: appNCF, GPUs: 1, Batch: 256, Arrive: 6},
				{Name: "cifar10-7", App: appCifar, GPUs: 2, Batch: 256, Arrive: 8},
				{Name: "narrow-8", App: appNarrow, GPUs: 1, Batch: 64, Arrive: 9, Finish: 11},
				{Name: "imagenet-9", App: appImagenet, GPUs: 6, Batch: 1200, Arrive: 10},
			},
		},
		{
			Name: "node-failures",
			Doc:  "nodes fail and come back between rounds: jobs on a failed node lose their GPUs, the cluster shrinks to the nodes up and grows again",
			// Rounds: 0 all up, 1 node 1 down, 2 nodes 1 and 3, 3 node 3, 4 none, 5 nodes 0, 1 and 2.
			Cluster: policies.Cluster{Nodes: 4, GPUsPerNode: 4}, Interval: 300, Rounds: 6,
			Down: map[int][]int{1: {1}, 2: {1, 3}, 3: {3}, 5: {0, 1, 2}},
			Jobs: []JobSpec{
				{Name: "imagenet-x0", App: appImagenet, GPUs: 8, Batch: 1600, Alloc: []int{4, 4, 0, 0}},
				{Name: "cifar10-x1", App: appCifar, GPUs: 4, Batch: 512, Alloc: []int{0, 0, 4, 0}},
				{Name: "bert-x2", App: appBert, GPUs: 2, Batch: 24, Arrive: 1},
				{Name: "ncf-x3", App: appNCF, GPUs: 1, Batch: 32768, Arrive: 2},
				{Name: "narrow-x4", App: appNarrow, GPUs: 2, Batch: 64, Arrive: 2, Finish: 5},
			},
		},
		{
			Name: "node-failures-pools",
			Doc:  "nodes of two GPU types fail and come back: a pool shrinks, then has no node up at all, and grows again",
			// Rounds: 0 all up, 1 A100 node 2 down, 2 T4 node 0 and A100 node 3, 3 both A100 nodes, 4 none, 5 T4 node 1.
			Cluster: policies.NewCluster(
				policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4},
				policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8},
			),
			Interval: 300, Rounds: 6,
			Down: map[int][]int{1: {2}, 2: {0, 3}, 3: {2, 3}, 5: {1}},
			Jobs: []JobSpec{
				{Name: "imagenet-f0", App: appImagenet, GPUs: 8, Batch: 1600, Types: []string{"a100", "t4"}, Alloc: []int{0, 0, 8, 0}},
				{Name: "cifar10-f1", App: appCifar, GPUs: 4, Batch: 512, Types: []string{"a100", "t4"}, Alloc: []int{4, 0, 0, 0}},
				{Name: "narrow-f2", App: appNarrow, GPUs: 2, Batch: 64, Types: []string{"t4"}, Arrive: 1},
				{Name: "bert-f3", App: appBert, GPUs: 6, Batch: 72, Types: []string{"a100", "t4"}, Arrive: 2},
				{Name: "ncf-f4", App: appNCF, GPUs: 1, Batch: 32768, Types: []string{"a100", "t4"}, Arrive: 3, Finish: 5},
			},
		},
		{
			Name: "mixed-types",
			Doc:  "two 4-GPU T4 nodes and one 8-GPU A100 node; jobs hold one GPU type, narrow has no A100 tables",
			Cluster: policies.NewCluster(
				policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4},
				policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8},
			),
			Interval: 60, Rounds: 6,
			Jobs: []JobSpec{
				{Name: "narrow-m0", App: appNarrow, GPUs: 2, Batch: 64, Types: []string{"t4"}},
				{Name: "imagenet-m1", App: appImagenet, GPUs: 8, Batch: 1600, Types: []string{"a100", "t4"}},
				{Name: "cifar10-m2", App: appCifar, GPUs: 4, Batch: 512, Types: []string{"a100", "t4"}},
				{Name: "bert-m3", App: appBert, GPUs: 6, Batch: 72, Types: []string{"a100", "t4"}, Arrive: 1, Finish: 4},
				{Name: "ncf-m4", App: appNCF, GPUs: 1, Batch: 32768, Types: []string{"a100", "t4"}, Arrive: 2},
				{Name: "narrow-m5", App: appNarrow, GPUs: 4, Batch: 128, Types: []string{"t4"}, Arrive: 3},
			},
		},
	}
}
