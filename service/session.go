package service

import (
	"fmt"
	"sync"
	"time"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// session is one client's scheduling session: a policy instance with its
// state, and optionally an autoscaler. Its mutex is held for the whole of
// a request, so that one session's requests are served one at a time.
type session struct {
	id       string
	mu       sync.Mutex
	policy   policies.Policy
	traits   policies.Traits
	scaler   autoscalers.Autoscaler
	min, max int
	cache    oracleCache
	// run is a round waiting for oracle answers; closed says the session
	// is gone (expired, deleted, failed or the service stopped).
	run    *roundRun
	closed bool
	// queries counts the oracle queries sent: the latest is the pending
	// one's id, which its answer must carry.
	queries int64
	// views are the tracked jobs of changes-only rounds, by key; changes
	// says the session takes those and no full rounds (a policy instance
	// is driven one way, policies.Incremental), full the opposite.
	views         map[int64]*policies.Job
	changes, full bool
	// stats says decisions carry the policy's stats.
	stats bool

	// guarded by the server's mutex
	last time.Time
	busy int
}

// start begins deciding round r on a goroutine of its own; inc, for a
// changes-only round, is the policy's input (its views in s.views).
func (s *session) start(r *round, inc *policies.IncrementalRound, limit int) *roundRun {
	return s.run0(&roundRun{r: r, inc: inc, limit: limit})
}

// startAdmission begins the admission of r's last job (admission.go) on a
// goroutine of its own.
func (s *session) startAdmission(r *round, limit int) *roundRun {
	return s.run0(&roundRun{r: r, admission: true, limit: limit})
}

// run0 starts rr on a goroutine of its own.
func (s *session) run0(rr *roundRun) *roundRun {
	rr.events, rr.answers, rr.abandon, rr.cache = make(chan event), make(chan protocol.Answer), make(chan struct{}), &s.cache
	r, inc := rr.r, rr.inc
	r.prepare(s.traits)
	if inc == nil && !rr.admission { // an admission's jobs are the active ones, but it drops nothing
		s.cache.keep(r.jobs)
	}
	if s.traits.NeedsOracle {
		for i := range r.jobs {
			r.jobs[i].Oracle = &jobOracle{rr: rr, job: &r.jobs[i]}
		}
		for _, j := range s.views { // a changes-only round's: any tracked job
			j.Oracle = &jobOracle{rr: rr, job: j}
		}
	}
	go s.decide(rr)
	return rr
}

// decide runs the policy (and the autoscaler) on rr's round and sends the
// outcome; a panic or too many oracle queries become an error event, and
// the outcome of an abandoned round is dropped.
func (s *session) decide(rr *roundRun) {
	var ev event
	defer func() {
		if p := recover(); p != nil {
			ev = event{err: fmt.Errorf("policy %s failed: %v", s.policy.Name(), p)}
		}
		select {
		case rr.events <- ev:
		case <-rr.abandon:
		}
	}()
	r := rr.r
	if rr.admission {
		ev.admitted, ev.declined = s.admit(r)
		rr.mu.Lock()
		err := rr.err
		rr.mu.Unlock()
		if err != nil {
			ev = event{err: fmt.Errorf("policy %s: %w", s.policy.Name(), err)}
		}
		for i := range r.jobs {
			r.jobs[i].Oracle = nil
		}
		return
	}
	if r.cluster.Nodes == 0 { // every GPU held by pinned jobs
		ev.decision = policies.Decision{Alloc: make([][]int, len(r.jobs))}
		return
	}
	if rr.inc != nil {
		ev.changes = s.policy.(policies.Incremental).ScheduleIncremental(r.now, r.cluster, *rr.inc)
	} else {
		ev.decision = s.policy.Schedule(r.now, r.cluster, r.jobs)
	}
	if sr, ok := s.policy.(policies.StatsReporter); ok && s.stats {
		ev.stats = fromStats(sr.PolicyStats())
	}
	rr.mu.Lock()
	err := rr.err
	rr.mu.Unlock()
	if err != nil {
		ev = event{err: fmt.Errorf("policy %s: %w", s.policy.Name(), err)}
		return
	}
	for i := range r.jobs {
		r.jobs[i].Oracle = nil
	}
	for _, j := range s.views {
		j.Oracle = nil
	}
	if s.scaler != nil {
		st := autoscalers.State{Now: r.now, Cluster: r.full, Provisioning: r.provisioning, MinNodes: s.min, MaxNodes: s.max, Jobs: r.allJobs()}
		ev.desired = autoscalers.Clamp(s.scaler.Target(st), s.min, s.max)
	} else {
		ev.desired = -1 // AdaptDL's rule, once the answer is known
	}
}

// next waits for rr's next event and turns it into the answer to the
// request in progress. A query leaves the round pending; a decision or
// a failure ends it (a failure closes the session: the policy's state is
// not known to be sound).
func (s *session) next(rr *roundRun) (RoundResponse, int, error) {
	var ev event
	select {
	case ev = <-rr.events:
	case <-rr.abandon:
		return RoundResponse{}, 503, fmt.Errorf("session %s closed while deciding", s.id)
	}
	if ev.query != nil {
		s.queries++
		s.run, rr.pending, rr.pendingID = rr, ev.query, s.queries
		return RoundResponse{OracleQueries: []protocol.Query{*ev.query}, QueryID: s.queries}, 200, nil
	}
	s.run = nil
	if ev.err == nil && rr.admission {
		return RoundResponse{Job: ev.admitted, Declined: ev.declined}, 200, nil
	}
	if ev.err == nil {
		if rr.inc != nil {
			ev.err = checkChanges(rr.r, s.views, ev.changes, s.traits)
		} else {
			ev.err = checkDecision(rr.r, ev.decision, s.traits)
		}
	}
	if ev.err != nil {
		s.closeLocked()
		return RoundResponse{}, 500, fmt.Errorf("%v; session %s closed", ev.err, s.id)
	}
	var resp RoundResponse
	if rr.inc != nil {
		resp = respondChanges(rr.r, ev.changes)
	} else {
		resp = respond(rr.r, ev.decision, ev.desired, s.traits.AdaptiveBatch)
	}
	resp.PolicyStats = ev.stats
	return resp, 200, nil
}

// closeLocked closes the session: a pending round is abandoned and the
// policy closed (an external policy's child process ends), once; the
// caller holds s.mu.
func (s *session) closeLocked() {
	if s.run != nil {
		close(s.run.abandon)
		s.run = nil
	}
	if !s.closed {
		_ = policies.Close(s.policy)
	}
	s.closed = true
}

// checkDecision checks a policy's decision before it is written out:
// its shape, the nodes' GPUs, and each job's cap (policies.GPUCap: with
// its batch limits, so that its configuration can be within them).
func checkDecision(r *round, d policies.Decision, t policies.Traits) error {
	if len(d.Alloc) != len(r.jobs) {
		return fmt.Errorf("policy returned %d allocations for %d jobs", len(d.Alloc), len(r.jobs))
	}
	used := make([]int, r.cluster.Nodes)
	for i, a := range d.Alloc {
		if len(a) != 0 && len(a) != r.cluster.Nodes {
			return fmt.Errorf("policy returned an allocation of %d nodes for job %s on %d nodes", len(a), r.jobs[i].Name, r.cluster.Nodes)
		}
		for n, v := range a {
			if v < 0 {
				return fmt.Errorf("policy returned %d GPUs on node %s for job %s", v, r.names[n], r.jobs[i].Name)
			}
			used[n] += v
		}
		if k, limit := policies.Sum(a), policies.GPUCap(&r.jobs[i], t); !t.UserGPUs && limit > 0 && k > limit {
			return fmt.Errorf("policy gave job %s %d GPUs, above its cap of %d (max_replicas, or its largest batch over its smallest per-GPU batch)", r.jobs[i].Name, k, limit)
		}
	}
	for n, u := range used {
		if u > r.cluster.NodeGPUs(n) {
			return fmt.Errorf("policy allocated %d GPUs of node %s, which has %d", u, r.names[n], r.cluster.NodeGPUs(n))
		}
	}
	return nil
}

// respond writes a checked decision as the round's answer; desired < 0
// asks for AdaptDL's rule (desiredNodes).
func respond(r *round, d policies.Decision, desired int, adaptive bool) RoundResponse {
	resp := RoundResponse{Jobs: make([]Decision, len(r.out)), DesiredNodes: desired}
	inUse := map[string]bool{}
	for i := range r.out {
		j := &r.out[i].job
		out := Decision{Name: j.Name, Allocation: r.allocation(i, d)}
		on := map[string]bool{}
		for _, n := range out.Allocation {
			on[n], inUse[n] = true, true
		}
		if k := len(out.Allocation); k > 0 && j.Limits.MaxLocal > 0 { // no batch named, no config
			m, acc, b := j.Configure(adaptive, len(on), k)
			out.Config = &JobConfig{LocalBsz: m, AccumSteps: acc, BatchSize: b}
		}
		resp.Jobs[i] = out
	}
	if desired < 0 {
		resp.DesiredNodes = desiredNodes(r, len(inUse))
	}
	return resp
}

// awaitingOracle is the error of a request other than an oracle answer to
// a session whose decision waits for one (a 409), nil otherwise.
func (sess *session) awaitingOracle() error {
	if sess.run == nil {
		return nil
	}
	return fmt.Errorf("session %s awaits the answer to its oracle query (POST /v1/sessions/%s/oracle)", sess.id, sess.id)
}
