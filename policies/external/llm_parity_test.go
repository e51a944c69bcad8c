package external_test

import (
	"cmp"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/external"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// floorFirst is the Go twin of python/examples/llm_floor.py: a policy
// that sizes LLM jobs itself and places them in whole tensor units, by
// rack (that file's doc states the rule). sizes says whether it declares
// the trait.
type floorFirst struct{ sizes bool }

func (floorFirst) Name() string { return "llm-floor" }
func (f floorFirst) Traits() policies.Traits {
	return policies.Traits{SizesLLMJobs: f.sizes}
}

// want is the GPUs a job runs on: an LLM job's floor rounded up to a power
// of two, another job's request.
func want(j *policies.Job) int {
	if j.MinGPUs <= 0 {
		return j.Request.GPUs
	}
	k := 1
	for k < j.MinGPUs {
		k *= 2
	}
	return k
}

func (floorFirst) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	free := make([]int, c.Nodes)
	for n := range free {
		free[n] = c.NodeGPUs(n)
	}
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i := range jobs {
		if a := jobs[i].Alloc; a != nil && policies.Sum(a) == want(&jobs[i]) {
			d.Alloc[i] = a
			for n, v := range a {
				free[n] -= v
			}
		}
	}
	for i := range jobs {
		if d.Alloc[i] == nil {
			k := want(&jobs[i])
			d.Alloc[i] = placeFloor(c, free, k, jobs[i].TensorUnit(k))
		}
	}
	return d
}

// placeFloor is llm_floor.py's place.
func placeFloor(c policies.Cluster, free []int, k, unit int) []int {
	usable := make([]int, len(free))
	racks := map[int]int{}
	total := 0
	for n, f := range free {
		usable[n] = f / unit * unit
		racks[c.Rack(n)] += usable[n]
		total += usable[n]
	}
	if total < k {
		return nil
	}
	best := -1
	for r := range c.Nodes {
		if u, ok := racks[r]; ok && u >= k && (best < 0 || u > racks[best]) {
			best = r
		}
	}
	var nodes []int
	for n := range free {
		if best < 0 || c.Rack(n) == best {
			nodes = append(nodes, n)
		}
	}
	slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(usable[b], usable[a]) })
	alloc := make([]int, len(free))
	left := k
	for _, n := range nodes {
		take := min(usable[n], left)
		alloc[n], free[n], left = take, free[n]-take, left-take
	}
	return alloc
}

// TestPythonLLMFloorMatchesGo: a Python policy reading what protocol
// version 4 carries for LLM jobs (the trait sizes_llm_jobs, min_gpus,
// node_unit, the cluster's racks; python/examples/llm_floor.py) decides
// as its Go twin on a small LLM workload on two racks: every job's
// start, finish, GPU-seconds and restarts agree to the bit. The workload
// exercises the trait: the twin without it (jobs rigid at their
// requests) schedules otherwise.
func TestPythonLLMFloorMatchesGo(t *testing.T) {
	py := needPython(t)
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "h100", Nodes: 4, GPUsPerNode: 8})
	cfg.Cluster.Racks, cfg.Cluster.Oversubscription = 2, 4
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{
		{Name: "a", App: "llm-70b-eval", Replicas: 32, Batch: 64},
		{Name: "b", App: "llm-13b-eval", Replicas: 8, Batch: 64},
		{Name: "c", Time: 30, App: "llm-7b-eval", Replicas: 8, Batch: 64},
		{Name: "d", Time: 60, App: "llm-30b-eval", Replicas: 16, Batch: 64},
		{Name: "e", Time: 90, App: "llm-1b-eval", Replicas: 4, Batch: 64},
		{Name: "f", Time: 120, App: "llm-7b-sft", Replicas: 8, Batch: 64},
		{Name: "g", Time: 150, App: "llm-13b-eval", Replicas: 16, Batch: 64},
	}}
	simulate := func(p policies.Policy) []sim.JobResult {
		t.Helper()
		res, err := sim.Run(cfg, profiles.LLM(), w, p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Jobs != len(w.Jobs) {
			t.Fatalf("%d of %d jobs finished", res.Summary.Jobs, len(w.Jobs))
		}
		return res.Jobs
	}
	goJobs := simulate(floorFirst{sizes: true})
	p, err := external.Start(external.Config{Argv: []string{py, filepath.Join(repoRoot(t), "python", "examples", "llm_floor.py")},
		Timeout: time.Minute, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer p.(io.Closer).Close()
	if !p.Traits().SizesLLMJobs {
		t.Fatal("the Python policy's sizes_llm_jobs did not cross the wire")
	}
	pyJobs := simulate(p)
	for i := range goJobs {
		g, q := goJobs[i], pyJobs[i]
		if g.Name != q.Name || g.FirstStart != q.FirstStart || g.Finish != q.Finish || g.GPUSeconds != q.GPUSeconds || g.Restarts != q.Restarts {
			t.Errorf("job %s: Go %+v\nPython %+v", g.Name, g, q)
		}
	}
	rigid := simulate(floorFirst{sizes: false})
	same := true
	for i := range goJobs {
		same = same && rigid[i].Finish == goJobs[i].Finish && rigid[i].GPUSeconds == goJobs[i].GPUSeconds
	}
	if same {
		t.Error("the workload does not exercise the trait: jobs rigid at their requests run alike")
	}
}
