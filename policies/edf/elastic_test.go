package edf_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/edf"
)

// kneeOracle is a job whose remaining run time alone on k GPUs is w/k up
// to knee GPUs and slower beyond: one remaining step of w/min(k, knee),
// plus a second per GPU past the knee.
type kneeOracle struct {
	policies.Oracle // unused methods
	w               float64
	knee            int
}

func (kneeOracle) RemainingIterations(int) float64 { return 1 }
func (o kneeOracle) IterTime(placement []int, _ float64, _ int) float64 {
	k := policies.Sum(placement)
	return o.w/float64(min(k, o.knee)) + float64(max(k-o.knee, 0))
}

// elasticJob is a job of run time w/k alone up to knee GPUs (its fastest
// level), capped at maxGPUs, due at deadline (0: best-effort).
func elasticJob(name string, w, deadline float64, knee, maxGPUs int) policies.Job {
	return policies.Job{
		Name: name, App: "app", Deadline: deadline, MaxGPUs: maxGPUs,
		Request: policies.Request{GPUs: 1, Batch: 64},
		Limits:  models.Limits{InitBatch: 64, MaxBatch: 64, MinLocal: 1, MaxLocal: 64},
		Oracle:  kneeOracle{w: w, knee: knee},
	}
}

// pow2Floor is the largest power of two of at most k (0 for k < 1).
func pow2Floor(k int) int {
	p := 0
	for q := 1; q <= k; q *= 2 {
		p = q
	}
	return p
}

// The elastic variant's round on every case of four jobs, each with its
// fastest level 1, 2, 4 or 8 GPUs (where its curve turns, or its cap)
// and no deadline, deadline 100 or 200, on 8 GPUs (one node, and two of
// four): in EDF's order (rank) each job holds the largest power of two
// of at most its fastest level and the GPUs the jobs ranked before it
// leave free now, none when none is left; no node holds more than it has.
// That determines every job's count.
func TestElasticRulesExhaustive(t *testing.T) {
	deadlines := []float64{0, 100, 200}
	levels := []int{1, 2, 4, 8}
	for _, c := range []policies.Cluster{{Nodes: 1, GPUsPerNode: 8}, {Nodes: 2, GPUsPerNode: 4}} {
		p := edf.NewElastic(false, policies.Env{})
		cases := 0
		for code := 0; code < 4*4*4*4*3*3*3*3*2; code++ {
			x := code
			jobs := make([]policies.Job, 4)
			best := make([]int, 4)
			byCap := x%2 == 0 // the fastest level set by the cap, or by the curve's knee
			x /= 2
			for i := range jobs {
				best[i] = levels[x%4]
				x /= 4
			}
			for i := range jobs {
				knee, maxGPUs := 64, best[i]
				if !byCap {
					knee, maxGPUs = best[i], 0
				}
				jobs[i] = elasticJob(string(rune('a'+i)), 1000, deadlines[x%3], knee, maxGPUs)
				jobs[i].Submit = float64(10 * (i / 2))
				x /= 3
			}
			d := p.Schedule(0, c, jobs)
			cases++
			used := make([]int, c.Nodes)
			for i := range jobs {
				left := c.TotalGPUs()
				for k := range jobs {
					if k != i && rank(jobs[k], jobs[i], k, i) {
						left -= policies.Sum(d.Alloc[k])
					}
				}
				if got, want := policies.Sum(d.Alloc[i]), pow2Floor(min(best[i], left)); got != want {
					t.Fatalf("cluster %+v, fastest levels %v, deadlines %v/%v/%v/%v: job %s holds %d GPUs, want %d (%d left by the jobs before it)",
						c, best, jobs[0].Deadline, jobs[1].Deadline, jobs[2].Deadline, jobs[3].Deadline, jobs[i].Name, got, want, left)
				}
				for n, g := range d.Alloc[i] {
					used[n] += g
				}
			}
			for n, u := range used {
				if u > c.NodeGPUs(n) {
					t.Fatalf("node %d holds %d GPUs: %v", n, u, d.Alloc)
				}
			}
		}
		if cases != 4*4*4*4*3*3*3*3*2 {
			t.Fatalf("%d cases", cases)
		}
	}
}

// A later job with an earlier deadline takes the GPUs first, whatever
// the submission order; a best-effort job gets what is left.
func TestElasticDeadlineOrder(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 8}
	jobs := []policies.Job{
		elasticJob("be", 1000, 0, 64, 0),
		elasticJob("late", 1000, 900, 64, 8),
		elasticJob("soon", 1000, 300, 64, 4),
	}
	jobs[1].Submit, jobs[2].Submit = 10, 20
	d := edf.NewElastic(false, policies.Env{}).Schedule(30, c, jobs)
	got := [3]int{policies.Sum(d.Alloc[0]), policies.Sum(d.Alloc[1]), policies.Sum(d.Alloc[2])}
	if want := [3]int{0, 4, 4}; got != want {
		t.Fatalf("GPUs (be, late, soon) %v, want %v", got, want)
	}
}

// Admission on one node of 4 GPUs, jobs of run time w/k alone (fastest
// on all 4), in closed form. In deadline order each runs on all 4 GPUs
// after the ones before it: a 400-s job (100 s on 4) due at 200 fits after
// another, a third does not; one due earlier fits first but pushes an
// admitted job past its deadline; one that cannot make it alone is
// declined; a plan must end one restart delay before the deadline; an
// admitted job late already (4000 s of work due at 100: on the GPUs until
// 1000) delays a newcomer due after it but declines none for its own sake
// (the artifact would decline every newcomer while its plan fails);
// best-effort jobs and, without admission control, every job are
// admitted.
func TestElasticAdmit(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	p := edf.NewElastic(true, policies.Env{})
	job := func(name string, w, deadline float64) policies.Job { return elasticJob(name, w, deadline, 64, 0) }
	a, b := job("a", 400, 200), job("b", 400, 200)
	cases := []struct {
		name   string
		env    policies.Env
		j      policies.Job
		active []policies.Job
		want   string
	}{
		{"fits after", policies.Env{}, b, []policies.Job{a}, ""},
		{"no room left", policies.Env{}, job("c", 400, 200), []policies.Job{a, b}, edf.DeclineElastic},
		{"earlier, pushes an admitted job late", policies.Env{}, job("d", 400, 150), []policies.Job{a, b}, edf.DeclineElasticOthers},
		{"earlier, leaves room", policies.Env{}, job("d", 200, 150), []policies.Job{a}, ""},
		{"late even alone", policies.Env{}, job("e", 1000, 100), nil, edf.DeclineElastic},
		{"exactly in time", policies.Env{}, job("f", 400, 100), nil, ""},
		{"exactly in time, but a restart delay", policies.Env{RestartDelay: 1}, job("f", 400, 100), nil, edf.DeclineElastic},
		{"after a job late already, in time", policies.Env{}, job("g", 400, 1200), []policies.Job{job("late", 4000, 100)}, ""},
		{"after a job late already, too late", policies.Env{}, job("g", 400, 1050), []policies.Job{job("late", 4000, 100)}, edf.DeclineElastic},
		{"before a job late already", policies.Env{}, job("g", 100, 50), []policies.Job{job("late", 4000, 100)}, ""},
		{"best-effort", policies.Env{}, job("h", 1e9, 0), []policies.Job{a, b}, ""},
	}
	for _, tc := range cases {
		p = edf.NewElastic(true, tc.env)
		if got := p.Admit(0, c, &tc.j, tc.active); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got := edf.NewElastic(false, tc.env).Admit(0, c, &tc.j, tc.active); got != "" {
			t.Errorf("%s without admission control: declined (%q)", tc.name, got)
		}
	}
}

// The elastic variant decides the same at any time of a run: the cases
// below (one node of 8 GPUs; run times 125 to 3000 s alone on 8 GPUs,
// deadlines a multiple of 2048 s after the round, exact on every clock
// here) get the same admissions and the same GPUs at 10^19 s as at 0. On
// the round's clock a plan's pieces were rounded to its resolution (2048 s
// at 10^19 s), so that every job was declined and none got a GPU.
func TestElasticHugeTimes(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 8}
	type tc struct {
		name   string
		j      policies.Job
		active []policies.Job
		want   string
		alloc  []int // GPUs of active..., then j, in Schedule
	}
	cases := func(T float64) []tc {
		job := func(name string, w, due float64) policies.Job {
			j := elasticJob(name, w, T+due, 64, 0)
			j.Submit = T
			return j
		}
		a := job("a", 16000, 4096) // 2000 s on 8 GPUs
		return []tc{
			{"alone", job("x", 1000, 4096), nil, "", []int{8}},
			{"after a", job("b", 16000, 8192), []policies.Job{a}, "", []int{8, 0}},
			{"misses its own", job("c", 24000, 4096), []policies.Job{a}, edf.DeclineElastic, []int{8, 0}},
			{"before a, both in time", job("d", 8000, 2048), []policies.Job{a}, "", []int{0, 8}},
			{"before a, pushes it late", job("f", 16000, 2048), []policies.Job{job("a", 20000, 4096)}, edf.DeclineElasticOthers, []int{0, 8}},
		}
	}
	for _, T := range []float64{0, 1e6, 1e12, 1e16, 1e19} {
		for _, k := range cases(T) {
			if got := edf.NewElastic(true, policies.Env{}).Admit(T, c, &k.j, k.active); got != k.want {
				t.Errorf("t=%g, %s: Admit %q, want %q", T, k.name, got, k.want)
			}
			d := edf.NewElastic(false, policies.Env{}).Schedule(T, c, append(k.active, k.j))
			for i, want := range k.alloc {
				if got := policies.Sum(d.Alloc[i]); got != want {
					t.Errorf("t=%g, %s: job %d gets %d GPUs, want %d", T, k.name, i, got, want)
				}
			}
		}
	}
}
