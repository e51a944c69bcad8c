package sim

import "fmt"

// A stalled run: the policy leaves the whole cluster idle, round after
// round, while a job waits that fits it. No policy does that on purpose
// for long (Gavel holds arrivals for at most a round, round_s ≤ 10⁶ s),
// but options outside where a policy is meaningful can (Sia with
// lambda_n ≤ 1 valued every allocation at most 0 and ground to the time
// limit, then blamed the cluster). Such a run stops once the stretch is
// both StallSeconds of simulated time and stallRounds rounds long.
const (
	// StallSeconds is the simulated time a stalled stretch must last.
	StallSeconds = 2e6
	stallRounds  = 10
)

// idleStretch is the current stretch of stalled rounds.
type idleStretch struct {
	since  float64 // the stretch's first round
	rounds int     // 0: not stalled
}

// checkStall, after a round's decision, extends or ends the stretch of
// rounds in which no job holds a GPU while a waiting job fits the cluster,
// and ends the run once the stretch is long (see StallSeconds).
func (e *engine) checkStall() error {
	if e.holdingAny() {
		e.idle.rounds = 0
		return nil
	}
	w, waiting := e.fittingWaiter()
	if w == nil {
		e.idle.rounds = 0
		return nil
	}
	if e.idle.rounds == 0 {
		e.idle.since = e.now
	}
	e.idle.rounds++
	if e.idle.rounds < stallRounds || e.now-e.idle.since < StallSeconds {
		return nil
	}
	opts := ""
	if e.cfg.PolicyOptions != "" {
		opts = " with options " + e.cfg.PolicyOptions
	}
	fits := ""
	if !e.traits.UserGPUs {
		fits = fmt.Sprintf(" and can run on %d", need(e, w))
	}
	return fmt.Errorf("policy %s%s allocated no GPU from t=%v s to t=%v s (%d rounds) while %d jobs waited that fit the idle cluster of %d GPUs (job %s asks for %d GPUs%s): stopped early; the options leave nothing worth allocating?",
		e.policy.Name(), opts, e.idle.since, e.now, e.idle.rounds, waiting, e.cfg.Cluster.TotalGPUs(), w.spec.Name, w.spec.Replicas, fits)
}

// holdingAny reports whether some job holds GPUs (running or restarting).
func (e *engine) holdingAny() bool {
	if e.incremental != nil {
		return len(e.incremental.holding) > 0
	}
	for _, j := range e.active {
		if j.gpus > 0 {
			return true
		}
	}
	return false
}

// fittingWaiter returns the first waiting job that fits the cluster as it
// is (every GPU idle) and the number of such jobs; nil if none.
func (e *engine) fittingWaiter() (*job, int) {
	total := e.cfg.Cluster.TotalGPUs()
	var first *job
	n := 0
	for _, j := range e.active {
		if j.phase != phasePending || need(e, j) > total {
			continue
		}
		if first == nil {
			first = j
		}
		n++
	}
	return first, n
}

// need is the fewest GPUs job j can run on: those its user asked for
// under a policy that gives exactly those, else its memory floor
// (job.floor on its application's profile; the engine treats fewer as
// none), at least one.
func need(e *engine, j *job) int {
	if e.traits.UserGPUs {
		return j.spec.Replicas
	}
	return max(j.floor(j.on()), 1)
}
