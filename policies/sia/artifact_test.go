package sia

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// artifactJob is a job whose throughput scales almost linearly (tiny
// synchronisation costs) with a large gradient noise, so more GPUs and
// larger batches are always worth more: without caps Sia would give it
// the largest configuration there is.
func artifactJob(c policies.Cluster) policies.Job {
	lim := models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 16, MaxLocal: 256}
	p := models.Params{AlphaC: 0.01, BetaC: 0.001, AlphaR: 0.001, BetaR: 0.0001, AlphaN: 0.002, BetaN: 0.0002, Gamma: 1}
	j := policies.Job{Name: "j", App: "toy", Age: 10, Request: policies.Request{GPUs: 1, Batch: 256},
		Limits: lim, Params: &p, Grad: models.GradStats{Sqr: 1, Var: 1000}}
	if len(c.Types()) > 1 {
		j.TypeModels = map[string]policies.TypeModel{}
		for _, t := range c.Types() {
			j.TypeModels[t] = policies.TypeModel{Params: p, Limits: lim}
		}
	}
	return j
}

// largest is the most GPUs among job j's configurations on type typ.
func largest(p *Policy, c policies.Cluster, j *policies.Job, typ string) int {
	r := newRound(c)
	cfgs, _ := p.options(0, c, r, j)
	most := 0
	for _, cf := range cfgs {
		if r.types[cf.typ] == typ {
			most = max(most, cf.gpus)
		}
	}
	return most
}

// The doubling cap: on each type a job is offered at most twice the most
// GPUs it has run on there, the one-GPU bootstrap counting as one.
func TestDoublingCap(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8})
	j := artifactJob(c)
	opt := DefaultOptions()
	opt.WorkloadBatch = false
	p := New(opt, policies.Env{RestartDelay: 30})
	if a, b := largest(p, c, &j, "t4"), largest(p, c, &j, "a100"); a != 2 || b != 2 {
		t.Errorf("bootstrapped only: largest configurations t4 %d, a100 %d; want 2 and 2", a, b)
	}
	// Four GPUs on one T4 node, in a round: eight T4 GPUs next, A100 unchanged.
	j.Alloc = make([]int, c.Nodes)
	j.Alloc[0] = 4
	d := p.Schedule(60, c, []policies.Job{j})
	if a, b := largest(p, c, &j, "t4"), largest(p, c, &j, "a100"); a != 8 || b != 2 {
		t.Errorf("after 4 T4 GPUs: t4 %d, a100 %d; want 8 and 2", a, b)
	}
	if g := policies.Sum(d.Alloc[0]); g > 8 {
		t.Errorf("allocated %d GPUs, past the cap of 8", g)
	}
	// Shared across types (the artifact's --share_max_replicas): the
	// largest per-type cap, 8, on every type.
	opt.ShareCap = true
	ps := New(opt, policies.Env{RestartDelay: 30})
	ps.Schedule(60, c, []policies.Job{j})
	if a, b := largest(ps, c, &j, "t4"), largest(ps, c, &j, "a100"); a != 8 || b != 8 {
		t.Errorf("shared cap after 4 T4 GPUs: t4 %d, a100 %d; want 8 and 8", a, b)
	}
	opt.ShareCap = false
	// The cap forgets a finished job.
	k := artifactJob(c)
	k.Name = "k"
	p.Schedule(120, c, []policies.Job{k})
	if _, ok := p.profiled["j"]; ok {
		t.Errorf("profiled %v: a finished job is remembered", p.profiled)
	}
	// Off: only the batch limits (4096 / 16 = 256 GPUs) and the cluster bound it.
	opt.DoublingCap = false
	p = New(opt, policies.Env{RestartDelay: 30})
	j = artifactJob(c)
	if a, b := largest(p, c, &j, "t4"), largest(p, c, &j, "a100"); a != 16 || b != 16 {
		t.Errorf("without the cap: t4 %d, a100 %d; want 16 and 16", a, b)
	}
	// A single-type cluster: the engine's MaxSeenGPUs is the base; a job
	// that has not run is offered one GPU.
	one := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4})
	p = New(DefaultOptions(), policies.Env{RestartDelay: 30})
	j = artifactJob(one)
	if a := largest(p, one, &j, "t4"); a != 1 {
		t.Errorf("single type, never run: %d GPUs, want 1", a)
	}
	j.MaxSeenGPUs = 2
	if a := largest(p, one, &j, "t4"); a != 4 {
		t.Errorf("single type, ran on 2: %d GPUs, want 4", a)
	}
}

// The workload batch limit: goodput is valued over total batches up to
// the job's own batch size: the model's best under that cap, or for a
// configuration whose smallest batch (GPUs × the smallest per-GPU batch)
// is past it, the goodput at that smallest batch, as in the artifact.
func TestWorkloadBatchLimit(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8})
	j := artifactJob(c)
	r := newRound(c)
	for _, cf := range r.cfgs {
		typ := r.types[cf.typ]
		full := goodput(c, &j, typ, cf, 0)
		capped := goodput(c, &j, typ, cf, j.Request.Batch)
		md := models.Model{Params: *j.Params, Grad: j.Grad, Limits: j.Limits}
		if full != md.Best(cf.nodes, cf.gpus).Goodput {
			t.Errorf("%s %d GPUs: uncapped goodput %v, want the model's best %v", typ, cf.gpus, full, md.Best(cf.nodes, cf.gpus).Goodput)
		}
		md.Limits.MaxBatch = j.Request.Batch
		switch smallest := cf.gpus * j.Limits.MinLocal; {
		case smallest > j.Request.Batch:
			m := md
			m.Limits.MaxBatch = smallest
			at := m.Best(cf.nodes, cf.gpus)
			if capped != at.Goodput || at.Batch != smallest || !(capped <= full) {
				t.Errorf("%s %d GPUs: goodput %v, want %v at batch %d (the smallest the GPUs split; got batch %d)", typ, cf.gpus, capped, at.Goodput, smallest, at.Batch)
			}
		case capped != md.Best(cf.nodes, cf.gpus).Goodput || !(capped < full):
			t.Errorf("%s %d GPUs: capped goodput %v, want the best up to batch %d (%v), below the uncapped %v", typ, cf.gpus, capped, j.Request.Batch, md.Best(cf.nodes, cf.gpus).Goodput, full)
		}
	}
	// A batch below the initial one never caps below it.
	j.Request.Batch = 64
	cf := config{typ: 0, nodes: 1, gpus: 1, perNode: 4}
	md := models.Model{Params: *j.Params, Grad: j.Grad, Limits: j.Limits}
	md.Limits.MaxBatch = j.Limits.InitBatch
	if g := goodput(c, &j, "t4", cf, 64); g != md.Best(1, 1).Goodput {
		t.Errorf("batch 64 < M0 128: goodput %v, want %v at M0", g, md.Best(1, 1).Goodput)
	}
	// The option: off, the application's largest batch.
	opt := DefaultOptions()
	opt.DoublingCap = false
	j = artifactJob(c)
	on := New(opt, policies.Env{})
	opt.WorkloadBatch = false
	off := New(opt, policies.Env{})
	if a, b := largest(on, c, &j, "t4"), largest(off, c, &j, "t4"); a != 16 || b != 16 {
		t.Errorf("configurations listed: %d and %d GPUs, want 16 both (worthless ones are listed, valued at the floor)", a, b)
	}
}

// The restart factor scales a job with GPUs on every configuration but
// its current one; a job without GPUs (waiting, or preempted) is valued
// undiscounted, as the artifact's sia.py does (its prev_allocs entry is
// None), unless idle_restart_factor asks for the discount there too.
func TestRestartFactorIdle(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8})
	j := artifactJob(c)
	j.App = "cifar10" // sia.py's penalty 30 s
	j.Age, j.Restarts = 600, 5
	f := models.RestartFactor(600, 5, 30) // (600 − 150) / 630
	opt := DefaultOptions()
	opt.DoublingCap = false
	value := func(s float64) float64 { return opt.LambdaN - math.Round(math.Pow(s, opt.P)*100)/100 }
	for _, idle := range []bool{false, true} {
		o := opt
		o.IdleFactor = idle
		p := New(o, policies.Env{RestartDelay: 30})
		r := newRound(c)
		// Without GPUs: the one-GPU configuration of the slowest type is
		// worth λ_n − 1 undiscounted, λ_n − f^p with the option.
		j.Alloc = nil
		cfgs, opts := p.options(0, c, r, &j)
		want := value(1)
		if idle {
			want = value(f)
		}
		best := math.Inf(-1)
		for x, cf := range cfgs {
			if cf.gpus == 1 {
				best = math.Max(best, opts[x].Value)
			}
		}
		lowest := math.Inf(1)
		for x := range cfgs {
			lowest = math.Min(lowest, opts[x].Value)
		}
		if lowest != want {
			t.Errorf("idle_restart_factor=%v, no GPUs: slowest configuration worth %v, want %v", idle, lowest, want)
		}
		// With GPUs: the current configuration undiscounted, the others
		// discounted, whatever the option.
		j.Alloc = make([]int, c.Nodes)
		j.Alloc[0] = 1
		cfgs, opts = p.options(0, c, r, &j)
		cur := current(c, r, &j, cfgs)
		if cur < 0 {
			t.Fatal("the current configuration is not among the options")
		}
		g := make([]float64, len(cfgs))
		lo := math.Inf(1)
		for x, cf := range cfgs {
			g[x] = goodput(c, &j, r.types[cf.typ], cf, j.Request.Batch)
			if g[x] > 0 {
				lo = math.Min(lo, g[x])
			}
		}
		for x := range cfgs {
			s := g[x] / lo
			if x != cur {
				s *= f
			}
			if w := value(math.Max(s, zeroGain)); opts[x].Value != w {
				t.Errorf("idle_restart_factor=%v, on one T4 GPU: option %d (%+v) worth %v, want %v", idle, x, cfgs[x], opts[x].Value, w)
			}
		}
	}
}
