package service

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// A round of a policy with an oracle runs on a goroutine of its own; each
// oracle call the policy makes that the session cannot answer from its
// cache becomes a query the client answers (the policy's goroutine blocks
// meanwhile). The goroutine's events are queries and, last, the decision.
type event struct {
	query    *protocol.Query
	decision policies.Decision
	changes  []policies.Change // of a changes-only round
	stats    *PolicyStats      // the policy's, when it reports them
	desired  int               // the autoscaler's node count
	err      error             // the policy panicked or asked too much
	// admitted and declined are an admission's outcome: the job's name
	// and the reason it is declined ("": admitted).
	admitted, declined string
}

// roundRun is one round in progress on its goroutine.
type roundRun struct {
	r   *round
	inc *policies.IncrementalRound // a changes-only round's input
	// admission says the run decides whether to admit r's last job.
	admission bool
	events    chan event
	answers   chan protocol.Answer
	abandon   chan struct{}
	cache     *oracleCache
	mu        sync.Mutex // serialises the policy's oracle calls
	asked     int        // queries sent to the client
	limit     int
	stopped   bool            // abandoned or over the limit: no more queries
	err       error           // over the limit
	pending   *protocol.Query // the query awaiting its answer (handler's side)
	// pendingID is the pending query's id (handler's side)
	pendingID int64
}

// oracleCache keeps the answers to the oracle's pure facts (epochs,
// iterations, iter_time, type_iter_time, step_time, completion_epoch;
// not remaining_iterations, which follows the job's progress) for the
// session's lifetime, per job: a job
// is identified by its name, application and submission time, and its
// entries go when it leaves the rounds. On a cluster of several GPU types
// nothing is cached (a job's facts there follow the type it runs on).
type oracleCache struct {
	m map[string]map[string]protocol.Answer // job identity → query key → answer
}

func jobKey(j *policies.Job) string {
	return j.Name + "\x00" + j.App + "\x00" + strconv.FormatFloat(j.Submit, 'g', -1, 64)
}

func queryKey(q *protocol.Query) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%d|%d|%v|%d|%s|", q.Fact, q.Batch, q.Epoch, q.Local, q.Accum, q.GPUType)
	for _, v := range q.Placement {
		b.WriteString(strconv.Itoa(v))
		b.WriteByte(',')
	}
	return b.String()
}

// keep drops the entries of jobs not in jobs.
func (c *oracleCache) keep(jobs []policies.Job) {
	if len(c.m) == 0 {
		return
	}
	live := make(map[string]bool, len(jobs))
	for i := range jobs {
		live[jobKey(&jobs[i])] = true
	}
	for k := range c.m {
		if !live[k] {
			delete(c.m, k)
		}
	}
}

// ask puts a query to the client (or answers it from the cache) and
// blocks until it is answered. Calls from several goroutines of a policy
// are served one at a time. A round abandoned (its session closed) or
// over its query limit gets zero answers from then on, never blocking:
// the policy finishes its round, whose decision is dropped (or, over the
// limit, becomes the round's error).
func (rr *roundRun) ask(j *policies.Job, q protocol.Query) protocol.Answer {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.stopped {
		return protocol.Answer{}
	}
	q.Job = j.Name
	cacheable := q.Fact != protocol.FactRemainingIterations && len(rr.r.cluster.Types()) == 1
	var jk, qk string
	if cacheable {
		jk, qk = jobKey(j), queryKey(&q)
		if a, ok := rr.cache.m[jk][qk]; ok {
			return a
		}
	}
	if rr.asked >= rr.limit {
		rr.stopped, rr.err = true, fmt.Errorf("the policy asked more than %d oracle queries in one round", rr.limit)
		return protocol.Answer{}
	}
	rr.asked++
	q.Type = protocol.TypeQuery
	select {
	case rr.events <- event{query: &q}:
	case <-rr.abandon:
		rr.stopped = true
		return protocol.Answer{}
	}
	var a protocol.Answer
	select {
	case a = <-rr.answers:
	case <-rr.abandon:
		rr.stopped = true
		return protocol.Answer{}
	}
	if cacheable {
		if rr.cache.m == nil {
			rr.cache.m = map[string]map[string]protocol.Answer{}
		}
		if rr.cache.m[jk] == nil {
			rr.cache.m[jk] = map[string]protocol.Answer{}
		}
		rr.cache.m[jk][qk] = a
	}
	return a
}

// checkAnswer checks an answer to query q.
func checkAnswer(q *protocol.Query, a protocol.Answer) error {
	if a.Type != protocol.TypeAnswer {
		return errorf("answers[0].type: want %q, got %q", protocol.TypeAnswer, a.Type)
	}
	if err := finite("answers[0].value", a.Value); err != nil {
		return err
	}
	if (q.Fact == protocol.FactEpochs || q.Fact == protocol.FactCompletionEpoch) && (a.Value != math.Trunc(a.Value) || a.Value > math.MaxInt32) {
		return errorf("answers[0].value: %s must be an integer, got %v", q.Fact, a.Value)
	}
	if err := finite("answers[0].sync", a.Sync); err != nil {
		return err
	}
	if a.Sync != 0 && q.Fact != protocol.FactStepTime {
		return errorf("answers[0].sync: only step_time answers a sync time")
	}
	if a.Sync > a.Value {
		return errorf("answers[0].sync: the sync part %v of a step of %v s is longer than the step", a.Sync, a.Value)
	}
	if !a.OK && q.Fact != protocol.FactTypeIterTime {
		return errorf("answers[0].ok: false answers only type_iter_time")
	}
	return nil
}

// jobOracle is a job's oracle during a round: every call is a query.
type jobOracle struct {
	rr  *roundRun
	job *policies.Job
}

var _ policies.Oracle = (*jobOracle)(nil)

// Epochs implements policies.Oracle.
func (o *jobOracle) Epochs() int {
	return int(o.rr.ask(o.job, protocol.Query{Fact: protocol.FactEpochs}).Value)
}

// Iterations implements policies.Oracle.
func (o *jobOracle) Iterations(batch, epoch int) float64 {
	return o.rr.ask(o.job, protocol.Query{Fact: protocol.FactIterations, Batch: batch, Epoch: epoch}).Value
}

// IterTime implements policies.Oracle.
func (o *jobOracle) IterTime(placement []int, local float64, accum int) float64 {
	return o.rr.ask(o.job, protocol.Query{Fact: protocol.FactIterTime, Placement: append([]int(nil), placement...), Local: local, Accum: accum}).Value
}

// StepTime implements policies.Oracle.
func (o *jobOracle) StepTime(placement []int, local float64) (step, sync float64) {
	a := o.rr.ask(o.job, protocol.Query{Fact: protocol.FactStepTime, Placement: append([]int(nil), placement...), Local: local})
	return a.Value, a.Sync
}

// CompletionEpoch implements policies.Oracle.
func (o *jobOracle) CompletionEpoch(batch int) int {
	return int(o.rr.ask(o.job, protocol.Query{Fact: protocol.FactCompletionEpoch, Batch: batch}).Value)
}

// RemainingIterations implements policies.Oracle.
func (o *jobOracle) RemainingIterations(batch int) float64 {
	return o.rr.ask(o.job, protocol.Query{Fact: protocol.FactRemainingIterations, Batch: batch}).Value
}

// TypeIterTime implements policies.Oracle.
func (o *jobOracle) TypeIterTime(t string, placement []int, batch int) (float64, bool) {
	a := o.rr.ask(o.job, protocol.Query{Fact: protocol.FactTypeIterTime, GPUType: t, Placement: append([]int(nil), placement...), Batch: batch})
	return a.Value, a.OK
}
