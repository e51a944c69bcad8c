package pollux

import (
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// applied returns jobs as they are after dec was applied and a minute
// passed: the new allocations, older.
func applied(jobs []policies.Job, dec policies.Decision) []policies.Job {
	out := make([]policies.Job, len(jobs))
	for i, j := range jobs {
		j.Alloc = nil
		if policies.Sum(dec.Alloc[i]) > 0 {
			j.Alloc = append([]int(nil), dec.Alloc[i]...)
		}
		j.Age += 60
		out[i] = j
	}
	return out
}

// With skip_unchanged a round whose jobs, models and allocations are the
// last round's keeps the last decision without searching; an epoch
// boundary (new gradient statistics), a refit, an arrival or a changed
// allocation makes it search again. Without the option (on by default)
// it always searches.
func TestSkipUnchanged(t *testing.T) {
	c := policies.Cluster{Nodes: 4, GPUsPerNode: 4}
	opt := DefaultOptions()
	opt.SkipUnchanged = true
	opt.WaitingPerGPU = 0 // every round considers every job
	p := New(opt)
	jobs := testJobs(12, c.Nodes, 3)
	first := p.Schedule(0, c, jobs)
	next := applied(jobs, first)
	second := p.Schedule(60, c, next)
	if p.Skipped() != 1 || !reflect.DeepEqual(second, first) {
		t.Fatalf("unchanged round: skipped %d, decision changed %v", p.Skipped(), !reflect.DeepEqual(second, first))
	}
	changes := map[string]func(js []policies.Job) []policies.Job{
		"epoch": func(js []policies.Job) []policies.Job { js[2].Grad.Var *= 1.5; return js },
		"refit": func(js []policies.Job) []policies.Job {
			q := *js[0].Params
			q.AlphaC *= 1.1
			js[0].Params = &q
			return js
		},
		"arrival":    func(js []policies.Job) []policies.Job { return append(js, testJobs(13, c.Nodes, 3)[12]) },
		"completion": func(js []policies.Job) []policies.Job { return js[1:] },
		"allocation": func(js []policies.Job) []policies.Job {
			js[5].Alloc = make([]int, c.Nodes)
			js[5].Alloc[3] = 1 + policies.Sum(js[5].Alloc)
			return js
		},
	}
	for name, change := range changes {
		p := New(opt)
		dec := p.Schedule(0, c, jobs)
		js := change(applied(jobs, dec))
		p.Schedule(60, c, js)
		if p.Skipped() != 0 {
			t.Errorf("%s: the round was skipped", name)
		}
	}
	off := DefaultOptions()
	off.SkipUnchanged = false
	plain := New(off)
	dec := plain.Schedule(0, c, jobs)
	plain.Schedule(60, c, applied(jobs, dec))
	if plain.Skipped() != 0 {
		t.Error("skipped without the option")
	}
}

// quick_stall shortens only rounds with the last round's jobs and keeps
// decisions deterministic and feasible.
func TestQuickStallDeterministic(t *testing.T) {
	c := policies.Cluster{Nodes: 4, GPUsPerNode: 4}
	opt := DefaultOptions()
	opt.QuickStall = 1
	run := func() []policies.Decision {
		p := New(opt)
		jobs := testJobs(16, c.Nodes, 5)
		var out []policies.Decision
		for r := 0; r < 4; r++ {
			dec := p.Schedule(float64(60*r), c, jobs)
			out = append(out, dec)
			jobs = applied(jobs, dec)
		}
		return out
	}
	a, b := run(), run()
	if !reflect.DeepEqual(a, b) {
		t.Error("quick_stall: not deterministic")
	}
	for _, dec := range a {
		used := make([]int, c.Nodes)
		for _, al := range dec.Alloc {
			for n, v := range al {
				used[n] += v
			}
		}
		for n, u := range used {
			if u > c.GPUsPerNode {
				t.Fatalf("node %d over capacity: %d", n, u)
			}
		}
	}
	bad := DefaultOptions()
	bad.QuickStall = -1
	if err := bad.Validate(); err == nil {
		t.Error("negative quick_stall accepted")
	}
}

// stall=0 (never stop early) wins over quick_stall: the search is the same
// as without quick_stall, final populations included.
func TestQuickStallNeedsStall(t *testing.T) {
	c := policies.Cluster{Nodes: 4, GPUsPerNode: 4}
	run := func(quick int) *Policy {
		opt := DefaultOptions()
		opt.Stall, opt.QuickStall, opt.SkipUnchanged, opt.Generations = 0, quick, false, 6
		p := New(opt)
		jobs := testJobs(10, c.Nodes, 5)
		for r := 0; r < 3; r++ {
			jobs = applied(jobs, p.Schedule(float64(60*r), c, jobs))
		}
		return p
	}
	a, b := run(0), run(1)
	if !reflect.DeepEqual(a.prevPop, b.prevPop) || a.PolicyStats().Fitness != b.PolicyStats().Fitness {
		t.Error("quick_stall shortened a search with stall=0")
	}
}

// A job that arrives just before a round has re-allocation factor 0: the
// search may give it nothing at no loss. A round that only aged it (and
// nothing else changed) must search again and start it, or a lone job
// would wait for ever.
func TestSkipUnchangedStartsANewJob(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	p := New(DefaultOptions())
	jobs := testJobs(1, c.Nodes, 1)
	jobs[0].Age, jobs[0].Restarts, jobs[0].Attained, jobs[0].Alloc = 0, 0, 0, nil
	for round := 0; round < 3; round++ {
		dec := p.Schedule(float64(60*round), c, jobs)
		if policies.Sum(dec.Alloc[0]) > 0 {
			return
		}
		jobs = applied(jobs, dec)
	}
	t.Fatalf("the new job got no GPUs in 3 rounds on an empty cluster (skipped %d rounds)", p.Skipped())
}
