package sim

import (
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/models"
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
