package sim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/traces"
)

// poolObs are configurations a job might run, with step times of a
// plausible shape (the fit needs only valid, varied observations).
var poolObs = [][3]int{{1, 1, 32}, {1, 2, 32}, {1, 4, 64}, {2, 8, 64}, {1, 4, 128}, {3, 12, 96}}

func observeAt(t *testing.T, a *agent, x int) {
	t.Helper()
	c := poolObs[x]
	n, k, m := c[0], c[1], c[2]
	step := 0.02 + 0.0009*float64(m) + 0.004*float64(k-1) + 0.01*float64(n-1)
	if err := a.observe(n, k, m, step, 0.3*step, models.GradStats{Var: 1, Sqr: 0.1}); err != nil {
		t.Fatal(err)
	}
}

// Refits run ahead on the pool (while more observations arrive, and with
// the caller taking a task no worker has taken) give the parameters of
// resolving in place, bit for bit.
func TestFitPoolGivesTheParametersOfResolve(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		pool := newFitPool(workers)
		var plain, ahead agent
		plain.fit, ahead.fit = true, true
		for x := range poolObs {
			observeAt(t, &plain, x)
			observeAt(t, &ahead, x)
			pool.launch(&ahead)
			if x%2 == 1 { // read now and then, as epoch boundaries do
				if err := plain.resolve(); err != nil {
					t.Fatal(err)
				}
				if err := ahead.resolve(); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(plain.params, ahead.params) {
					t.Fatalf("workers %d, after %d observations: params %+v ahead, %+v in place", workers, x+1, *ahead.params, *plain.params)
				}
			}
		}
		if len(ahead.pending) != 0 || ahead.task != nil {
			t.Errorf("workers %d: pending %v, task %v after resolve", workers, ahead.pending, ahead.task)
		}
		pool.close()
	}
	// A task no worker has taken is run by the one who needs it.
	var plain, ahead agent
	plain.fit, ahead.fit = true, true
	observeAt(t, &plain, 0)
	observeAt(t, &ahead, 0)
	stopped := &fitPool{tasks: make(chan *fitTask, 1)} // no workers
	stopped.launch(&ahead)
	if ahead.task == nil {
		t.Fatal("no task launched")
	}
	if err := plain.resolve(); err != nil {
		t.Fatal(err)
	}
	if err := ahead.resolve(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain.params, ahead.params) {
		t.Fatalf("params %+v ahead, %+v in place", *ahead.params, *plain.params)
	}
}

// A refit that fails ahead reports its error from resolve, with the
// parameters and remaining refits resolve in place leaves.
func TestFitPoolErrorWhereTheRefitRuns(t *testing.T) {
	bad := models.Observation{Nodes: 1, GPUs: 1, Local: 16, TIter: 0} // not positive
	mk := func() *agent {
		a := &agent{fit: true}
		observeAt(t, a, 0)
		observeAt(t, a, 1)
		a.obs = append(a.obs, bad)
		a.pending = append(a.pending, len(a.obs))
		observeAt(t, a, 2)
		return a
	}
	plain, ahead := mk(), mk()
	pool := newFitPool(1)
	defer pool.close()
	pool.launch(ahead)
	errPlain, errAhead := plain.resolve(), ahead.resolve()
	if errPlain == nil || errAhead == nil || errPlain.Error() != errAhead.Error() {
		t.Fatalf("errors %v ahead, %v in place", errAhead, errPlain)
	}
	if !reflect.DeepEqual(plain.params, ahead.params) || !reflect.DeepEqual(plain.pending, ahead.pending) {
		t.Fatalf("after the error: params %v / %v, pending %v / %v", ahead.params, plain.params, ahead.pending, plain.pending)
	}
}

// A nil pool (one processor) launches nothing.
func TestNilFitPool(t *testing.T) {
	if newFitPool(0) != nil {
		t.Fatal("a pool without workers")
	}
	var p *fitPool
	a := agent{fit: true}
	observeAt(t, &a, 0)
	p.launch(&a)
	p.close()
	if a.task != nil {
		t.Fatal("a nil pool launched a task")
	}
}

// A finished job's queued refits are cancelled: a worker that dequeues
// them does not run them.
func TestFinishedJobsFitTaskIsCancelled(t *testing.T) {
	j := &job{}
	j.agent.fit = true
	observeAt(t, &j.agent, 0)
	queue := &fitPool{tasks: make(chan *fitTask, 1)} // no workers yet
	queue.launch(&j.agent)
	task := j.agent.task
	if task == nil {
		t.Fatal("no task launched")
	}
	j.release()
	if j.agent.task != nil {
		t.Fatal("the released agent still holds its task")
	}
	if task.claimAndRun() || task.params != nil {
		t.Fatal("a cancelled task ran")
	}
}

// The number of fit workers changes no result; a negative one is refused.
func TestFitWorkersChangeNothing(t *testing.T) {
	set := fakeSet()
	w := fakeWorkload(
		traces.Job{Name: "toy-0", Time: 5, App: "toy", Replicas: 1, Batch: 32},
		traces.Job{Name: "toy-1", Time: 30, App: "toy", Replicas: 2, Batch: 64},
		traces.Job{Name: "toy-2", Time: 200, App: "toy", Replicas: 4, Batch: 128},
	)
	var first *Result
	for _, workers := range []int{1, 2, 5} {
		cfg := smallConfig()
		cfg.FitWorkers = workers
		res, err := Run(cfg, set, w, cyclingCount{})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			if res.Summary.AgentFits < 10 {
				t.Fatalf("only %d refits: the test needs many", res.Summary.AgentFits)
			}
			first = res
			continue
		}
		if !reflect.DeepEqual(res.Jobs, first.Jobs) {
			t.Errorf("fit workers %d: jobs differ from one worker's", workers)
		}
	}
	cfg := smallConfig()
	cfg.FitWorkers = -1
	if _, err := Run(cfg, set, w, cyclingCount{}); err == nil || !strings.Contains(err.Error(), "fit workers") {
		t.Errorf("negative fit workers: %v", err)
	}
}

// cyclingCount is an adaptive policy that gives every job 1, 2 or 3 GPUs
// in turn, round by round, where they are free: new configurations, and so
// refits, all the time.
type cyclingCount struct{}

func (cyclingCount) Name() string { return "cycling-count" }
func (cyclingCount) Traits() policies.Traits {
	return policies.Traits{AdaptiveBatch: true}
}
func (cyclingCount) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	want := 1 + int(now/60)%3
	for i := range jobs {
		a := make([]int, c.Nodes)
		for n, left := 0, want; n < c.Nodes && left > 0; n++ {
			take := min(free[n], left)
			a[n], free[n], left = take, free[n]-take, left-take
		}
		d.Alloc[i] = a
	}
	return d
}
