package sia

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// project_throughputs (the artifact's --project_throughputs): a job that
// has run nowhere is worth 1 on one GPU of each type and offered nothing
// more; once it has run on a type, every other type is valued as the
// goodput there on as many GPUs times the one-GPU throughput ratio, and
// the shared doubling cap counts only what it ran on.
func TestProjectThroughputs(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8})
	j := artifactJob(c)
	// The A100 model: compute twice as fast (one GPU has no
	// synchronisation, so its one-GPU throughput is exactly twice the
	// T4's) and synchronisation ten times slower, so that projecting
	// from the T4 differs from the A100 model on several GPUs.
	fast := j.TypeModels["a100"]
	fp := &fast.Params
	fp.AlphaC, fp.BetaC, fp.AlphaR, fp.BetaR, fp.AlphaN, fp.BetaN = fp.AlphaC/2, fp.BetaC/2, fp.AlphaR*10, fp.BetaR*10, fp.AlphaN*10, fp.BetaN*10
	j.TypeModels["a100"] = fast
	if r := atomicRatio(&j, "a100", "t4"); math.Abs(r-2) > 1e-12 {
		t.Fatalf("a100/t4 one-GPU throughput ratio %v, want 2", r)
	}
	opt := DefaultOptions()
	opt.Project = true
	p := New(opt, policies.Env{RestartDelay: 30})
	r := newRound(c)

	// Never run: one GPU per type, all of equal value.
	cfgs, opts := p.options(0, c, r, &j)
	if len(cfgs) != 2 {
		t.Fatalf("never run: %d configurations %v, want one GPU on each of 2 types", len(cfgs), cfgs)
	}
	for x, cf := range cfgs {
		if cf.gpus != 1 || opts[x].Value != opts[0].Value {
			t.Errorf("never run: configuration %v value %v, want 1 GPU valued as the others (%v)", cf, opts[x].Value, opts[0].Value)
		}
	}
	// Without the option the bootstrap models value both types and the
	// cap is 2 (the bootstrap counts as one GPU run).
	if a := largest(New(DefaultOptions(), policies.Env{RestartDelay: 30}), c, &j, "a100"); a != 2 {
		t.Errorf("bootstrap (default): largest A100 configuration %d, want 2", a)
	}

	// Ran on 4 T4 GPUs: cap 8 on both types, A100 projected from T4.
	j.Alloc = make([]int, c.Nodes)
	j.Alloc[0] = 4
	p.observe(c, []policies.Job{j})
	if a, b := largest(p, c, &j, "t4"), largest(p, c, &j, "a100"); a != 8 || b != 8 {
		t.Errorf("after 4 T4 GPUs: largest t4 %d, a100 %d; want 8 and 8", a, b)
	}
	src := p.source(r, &j)
	if src < 0 || r.types[src] != "t4" {
		t.Fatalf("projection source %d, want t4", src)
	}
	batch := j.Request.Batch
	for _, cf := range r.cfgs {
		typ := r.types[cf.typ]
		got := p.projectedGoodput(c, r, &j, typ, cf, batch, src)
		if typ == "t4" {
			if want := goodput(c, &j, "t4", cf, batch); got != want {
				t.Errorf("t4 %d GPUs: %v, want its own model's %v", cf.gpus, got, want)
			}
			continue
		}
		// On T4 the same GPUs take ceil(k/4) nodes of 4.
		at := config{typ: src, gpus: cf.gpus, nodes: (cf.gpus + 3) / 4, perNode: 4}
		want := 2 * goodput(c, &j, "t4", at, batch)
		if own := goodput(c, &j, "a100", cf, batch); math.Abs(got-want) > 1e-9*want || (cf.gpus > 1 && got == own) {
			t.Errorf("a100 %d GPUs (%d nodes): projected %v, want 2 × the T4 goodput on %d nodes = %v (not the A100 model's %v)", cf.gpus, cf.nodes, got, at.nodes, want, own)
		}
	}
	// A type without a model of the job's cannot be projected onto.
	delete(j.TypeModels, "a100")
	if g := p.projectedGoodput(c, r, &j, "a100", config{typ: 1, nodes: 1, gpus: 1, perNode: 8}, batch, src); g != -1 {
		t.Errorf("no A100 model: projected %v, want -1", g)
	}
}
