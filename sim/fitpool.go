package sim

import (
	"sync"
	"sync/atomic"

	"github.com/polluxsim/polluxsim/models"
)

// fitPool runs agents' due refits ahead, on background goroutines, while
// the engine goes on with other jobs' events: a refit that a new
// configuration made due is needed only at the job's next epoch boundary
// (or the next round), and the refits of different jobs are independent.
// Whoever needs a task first runs it: agent.resolve runs a task no worker
// has taken yet itself, and waits for one being run. A task computes
// exactly what resolve would, from the same observations and starting
// point, so results do not depend on the pool or on timing.
type fitPool struct {
	tasks  chan *fitTask
	closed atomic.Bool
	wg     sync.WaitGroup
}

// fitPoolQueue bounds the queued tasks; a refit beyond it is run where it
// is needed, as without a pool.
const fitPoolQueue = 4096

// newFitPool starts a pool of workers goroutines; nil (no pool) when
// workers < 1.
func newFitPool(workers int) *fitPool {
	if workers < 1 {
		return nil
	}
	p := &fitPool{tasks: make(chan *fitTask, fitPoolQueue)}
	for range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for t := range p.tasks {
				if !p.closed.Load() {
					t.claimAndRun()
				}
			}
		}()
	}
	return p
}

// launch queues a's due refits, unless it has none, has a task already,
// or the queue is full. A nil pool launches nothing.
func (p *fitPool) launch(a *agent) {
	if p == nil || a.task != nil || len(a.pending) == 0 {
		return
	}
	t := &fitTask{
		obs:     a.obs,
		pending: append([]int(nil), a.pending...),
		done:    make(chan struct{}),
	}
	if a.params != nil {
		// A copy: policies are shown the agent's params by pointer.
		p := *a.params
		t.start = &p
	}
	select {
	case p.tasks <- t:
		a.task = t
	default:
	}
}

// close stops the workers, skipping the queued tasks, and waits for the
// running ones. A nil pool does nothing.
func (p *fitPool) close() {
	if p == nil {
		return
	}
	p.closed.Store(true)
	close(p.tasks)
	p.wg.Wait()
}

// fitTask is one agent's due refits run ahead, as agent.resolve would run
// them (see refit).
type fitTask struct {
	obs     []models.Observation // the agent's, as they were at launch
	pending []int
	start   *models.Params
	state   atomic.Int32 // taskQueued, taskClaimed or taskCancelled
	done    chan struct{}

	// Results of refit, read after done is closed.
	ran    int
	params *models.Params
	err    error
}

// A task's states: queued, then claimed by whoever runs it, or cancelled
// (its job finished) before anyone did.
const (
	taskQueued int32 = iota
	taskClaimed
	taskCancelled
)

// cancel drops a task no one has claimed: a worker that dequeues it skips
// it. Its waiters must not wait for it.
func (t *fitTask) cancel() { t.state.CompareAndSwap(taskQueued, taskCancelled) }

// claimAndRun runs the task if no one has claimed it, and reports whether
// it did.
func (t *fitTask) claimAndRun() bool {
	if !t.state.CompareAndSwap(taskQueued, taskClaimed) {
		return false
	}
	t.params, t.ran, t.err = refit(t.obs, t.pending, t.start)
	close(t.done)
	return true
}

// wait runs the task here if no worker has taken it, else waits for it.
func (t *fitTask) wait() {
	if !t.claimAndRun() {
		<-t.done
	}
}
