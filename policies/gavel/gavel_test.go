package gavel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// typeOracle: a step takes perType[t] seconds on any placement of type t
// (absent: the job cannot run there); rem steps are left.
type typeOracle struct {
	perType map[string]float64
	rem     float64
}

var _ policies.Oracle = typeOracle{}

func (typeOracle) Epochs() int                       { return 1 }
func (o typeOracle) Iterations(int, int) float64     { return o.rem }
func (o typeOracle) RemainingIterations(int) float64 { return o.rem }
func (o typeOracle) IterTime(_ []int, _ float64, _ int) float64 {
	return o.perType[policies.DefaultType]
}
func (o typeOracle) TypeIterTime(t string, _ []int, _ int) (float64, bool) {
	s, ok := o.perType[t]
	return s, ok
}
func (typeOracle) StepTime([]int, float64) (float64, float64) {
	panic("gavel asks for whole iterations by type (TypeIterTime)")
}
func (typeOracle) CompletionEpoch(int) int { panic("gavel asks for remaining iterations") }

func mkJob(name string, gpus int, perType map[string]float64) policies.Job {
	return policies.Job{
		Name: name, App: "x", Request: policies.Request{GPUs: gpus, Batch: 32 * gpus},
		Limits: models.Limits{InitBatch: 32, MaxBatch: 1 << 16, MinLocal: 1, MaxLocal: 1 << 16},
		Oracle: typeOracle{perType: perType, rem: 1000},
	}
}

func mustNew(t *testing.T, name string, opt Options) *Policy {
	t.Helper()
	p, err := New(name, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// apply sets each job's allocation to the decision, as the engine does.
func apply(jobs []policies.Job, d policies.Decision) {
	for i := range jobs {
		jobs[i].Alloc = d.Alloc[i]
	}
}

// On one GPU type gavel-las time-shares like LAS: four one-GPU jobs on two
// GPUs each get X = 1/2 and, round by round, the jobs with the smallest
// share of rounds received go first, so over eight rounds each job runs in
// exactly four; allocations only change at round boundaries.
func TestLASRoundsHomogeneous(t *testing.T) {
	p := mustNew(t, LAS, DefaultOptions())
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 2}
	one := map[string]float64{policies.DefaultType: 1}
	jobs := []policies.Job{mkJob("a", 1, one), mkJob("b", 1, one), mkJob("c", 1, one), mkJob("d", 1, one)}
	got := map[string]int{}
	for tick := 0; tick < 8*6; tick++ {
		now := float64(60 * tick)
		before := make([][]int, len(jobs))
		for i := range jobs {
			before[i] = jobs[i].Alloc
		}
		d := p.Schedule(now, c, jobs)
		for i := range jobs {
			if tick%6 != 0 && !policies.Equal(before[i], d.Alloc[i]) {
				t.Fatalf("t=%v: job %s moved mid-round: %v → %v", now, jobs[i].Name, before[i], d.Alloc[i])
			}
			if tick%6 == 0 && d.Alloc[i] != nil {
				got[jobs[i].Name]++
			}
		}
		apply(jobs, d)
	}
	if p.Rounds() != 8 {
		t.Errorf("rounds = %d, want 8 (6-minute rounds, 60 s ticks)", p.Rounds())
	}
	for _, j := range jobs {
		if got[j.Name] != 4 {
			t.Errorf("rounds received: %v, want 4 each", got)
			break
		}
	}
}

// Mid-round, a finished job's GPUs stay idle and an arrival waits for the
// next round.
func TestRoundHoldsUntilBoundary(t *testing.T) {
	p := mustNew(t, LAS, Options{RoundSeconds: 300, Tolerance: 1e-3, Share: ShareType})
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 2}
	one := map[string]float64{policies.DefaultType: 1}
	jobs := []policies.Job{mkJob("a", 1, one), mkJob("b", 1, one)}
	apply(jobs, p.Schedule(0, c, jobs))
	if jobs[0].Alloc == nil || jobs[1].Alloc == nil {
		t.Fatalf("round 1: %v %v, want both running", jobs[0].Alloc, jobs[1].Alloc)
	}
	jobs = append(jobs[1:], mkJob("late", 1, one)) // a finished, late arrived
	d := p.Schedule(120, c, jobs)
	if !policies.Equal(d.Alloc[0], jobs[0].Alloc) || d.Alloc[1] != nil {
		t.Fatalf("mid-round: %v, want b kept and the arrival waiting", d.Alloc)
	}
	apply(jobs, d)
	d = p.Schedule(300, c, jobs)
	if d.Alloc[1] == nil {
		t.Fatalf("next round: %v, want the arrival running", d.Alloc)
	}
}

// Heterogeneity-aware: job f runs 4× faster on v100, job s alike on both;
// with one GPU of each type, gavel-las and gavel-throughput give f the v100
// and s the t4 from the first round (for LAS: s's normalised throughput is
// at most 1 anywhere, f's 1.6 on the v100, and the tie-break towards more
// total throughput settles the rest).
func TestHeterogeneousPlacement(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 1, GPUsPerNode: 1}, policies.Pool{Type: "v100", Nodes: 1, GPUsPerNode: 1})
	for _, name := range []string{LAS, Throughput} {
		p := mustNew(t, name, DefaultOptions())
		jobs := []policies.Job{
			mkJob("s", 1, map[string]float64{"t4": 1, "v100": 1}),
			mkJob("f", 1, map[string]float64{"t4": 1, "v100": 0.25}),
		}
		d := p.Schedule(0, c, jobs)
		if c.AllocType(d.Alloc[0]) != "t4" || c.AllocType(d.Alloc[1]) != "v100" {
			t.Errorf("%s: s on %q, f on %q, want t4 and v100", name, c.AllocType(d.Alloc[0]), c.AllocType(d.Alloc[1]))
		}
	}
}

// A job whose application has no tables for a type never goes there, and
// a job larger than every type waits; the others still run.
func TestTypesOffered(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 1, GPUsPerNode: 2}, policies.Pool{Type: "v100", Nodes: 1, GPUsPerNode: 2})
	p := mustNew(t, LAS, DefaultOptions())
	jobs := []policies.Job{
		mkJob("t4only", 1, map[string]float64{"t4": 1}),
		mkJob("big", 4, map[string]float64{"t4": 1, "v100": 0.5}),
		mkJob("any", 2, map[string]float64{"t4": 1, "v100": 0.5}),
	}
	d := p.Schedule(0, c, jobs)
	if c.AllocType(d.Alloc[0]) != "t4" || d.Alloc[1] != nil || c.AllocType(d.Alloc[2]) != "v100" {
		t.Errorf("allocations %v, want t4only on t4, big waiting, any on v100", d.Alloc)
	}
}

func TestOptions(t *testing.T) {
	if _, err := New("gavel-x", DefaultOptions()); err == nil {
		t.Error("unknown name accepted")
	}
	for _, o := range []Options{
		{RoundSeconds: 0, Tolerance: 1e-3, Share: ShareType},
		{RoundSeconds: 360, Tolerance: 0, Share: ShareType},
		{RoundSeconds: 360, Tolerance: 1e-3, Share: ShareType, Weights: "bert"},
		{RoundSeconds: 360, Tolerance: 1e-3, Share: ShareType, Weights: "bert=-1"},
		{RoundSeconds: 360, Tolerance: 1e-3, Share: ShareType, Weights: "bert=1,bert=2"},
		{RoundSeconds: 360, Tolerance: 1e-3},
		{RoundSeconds: 360, Tolerance: 1e-3, Share: "rounds"},
	} {
		if _, err := New(LAS, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := New(FTF, Options{RoundSeconds: 360, Tolerance: 1e-3, Share: ShareType, Weights: "bert=2"}); err == nil {
		t.Error("weights accepted for gavel-ftf")
	}
	if _, err := New(LAS, Options{RoundSeconds: 360, Tolerance: 1e-3, Share: ShareType, Normalise: true}); err == nil {
		t.Error("normalise accepted for gavel-las")
	}
	w, err := parseWeights(" bert=2, ncf = 0.5")
	if err != nil || w["bert"] != 2 || w["ncf"] != 0.5 {
		t.Errorf("parseWeights = %v, %v", w, err)
	}
}

// gavel-las on one node of four GPUs: four jobs of one GPU run together,
// a fifth waits for the next round (6 minutes by default).
func ExampleNew() {
	p, _ := New(LAS, DefaultOptions())
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	var jobs []policies.Job
	for i := range 5 {
		jobs = append(jobs, mkJob(fmt.Sprint("job", i), 1, map[string]float64{policies.DefaultType: 1}))
	}
	for _, now := range []float64{0, 60, 360} {
		d := p.Schedule(now, c, jobs)
		fmt.Println(now, d.Alloc)
		apply(jobs, d)
	}
	// Output:
	// 0 [[1] [1] [1] [1] []]
	// 60 [[1] [1] [1] [1] []]
	// 360 [[1] [1] [1] [] [1]]
}

// Rounds' priorities: job a runs alone for four rounds, then b arrives,
// both on one GPU (X = 1/2 each). With Gavel's code's share (a job's time
// on the type over all jobs' time there, b starting at half a round) b
// catches up on a's time: it runs the next five rounds (the fifth a tie,
// kept by the job in place). With the share of a job's own rounds a, which
// ran all of its rounds so far, gets the GPU back in b's second round.
func TestRoundShares(t *testing.T) {
	one := map[string]float64{policies.DefaultType: 1}
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 1}
	for share, want := range map[string]string{ShareType: "aaaabbbbba", ShareJob: "aaaababba"} {
		opt := DefaultOptions()
		opt.Share = share
		p := mustNew(t, LAS, opt)
		jobs := []policies.Job{mkJob("a", 1, one)}
		got := ""
		for r := range len(want) {
			if r == 4 {
				jobs = append(jobs, mkJob("b", 1, one))
			}
			d := p.Schedule(float64(360*r), c, jobs)
			apply(jobs, d)
			for i := range jobs {
				if jobs[i].Alloc != nil {
					got += jobs[i].Name
				}
			}
		}
		if got != want {
			t.Errorf("share %s: rounds ran by %s, want %s", share, got, want)
		}
	}
}

// CheckApps refuses a weight for an application the run does not have
// (it weighed nothing, silently) and passes known ones.
func TestCheckApps(t *testing.T) {
	opt := DefaultOptions()
	opt.Weights = "bert=2,bret=3"
	p := mustNew(t, LAS, opt)
	known := []string{"bert", "ncf"}
	if err := p.CheckApps(known); err == nil || !strings.Contains(err.Error(), `unknown application "bret" (known: bert, ncf)`) {
		t.Errorf("got %v", err)
	}
	opt.Weights = "ncf=0.5"
	if err := mustNew(t, LAS, opt).CheckApps(known); err != nil {
		t.Errorf("known application refused: %v", err)
	}
}
