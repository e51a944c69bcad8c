package policies

import (
	"io"
	"strings"
)

// Optional interfaces: small capabilities a policy may have beyond Policy.
// The simulator and the experiment runner ask for them with a type
// assertion and never name a particular policy, as plugins declare
// extension points in the Kubernetes scheduler framework. There are
// seven: StatsReporter, AppChecker, Fallible, Named and Admitter (below),
// Incremental (incremental.go), and io.Closer:
//
// A policy holding more than memory (a child process, as policies/external
// does) implements io.Closer. Whoever builds a policy closes it when done
// with it: the run pipeline (experiments/runner) when a run ends, fails or
// is interrupted, the conformance suite after each check. sim.Run does not
// close the policy it is given.

// StatsReporter is implemented by policies that report figures about their
// own rounds: the objective value their search reached, counters worth
// keeping with a run, or both.
type StatsReporter interface {
	// PolicyStats returns what the policy reports after its latest round.
	PolicyStats() Stats
}

// Stats is what a policy reports about its own rounds (StatsReporter).
type Stats struct {
	// HasFitness says that the policy searches for an allocation each
	// round and Fitness is the objective value of the one chosen in the
	// latest round (Pollux). Comparisons of search budgets on the same
	// rounds (bench scale --quality) need it.
	HasFitness bool
	Fitness    float64
	// Counters are named counters or figures over the run so far,
	// snake_case keys (e.g. rounds an exact solver stopped short of
	// proving optimality). The simulator copies them into the run's
	// summary (summary.json "policy_stats") when the run ends.
	Counters map[string]float64
}

// Close closes p when it is an io.Closer (see above) and returns its
// error; a policy holding only memory needs nothing and gives nil. It is
// the one way a run, a conformance check or a service session releases
// what a policy holds.
func Close(p Policy) error {
	if c, ok := p.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// AppChecker is implemented by policies whose options name applications
// (Gavel's priority weights): the simulator calls CheckApps with the
// applications of the run's profiles before it simulates, so that a
// misspelt name is an error rather than silently weighing nothing.
type AppChecker interface {
	CheckApps(known []string) error
}

// Fallible is implemented by policies whose rounds can fail for reasons
// outside their own logic: a policy in another process (policies/external)
// that exits, hangs or answers nonsense. After every round the simulator
// calls Err and, when it is not nil, ends the run with that error (one
// line saying what went wrong), ignoring the round's decision.
type Fallible interface {
	// Err is the fault that ended the policy's rounds, or nil.
	Err() error
}

// Named is implemented by policies that carry a name of their own beside
// the one they are registered under: an external policy's child reports
// its name at the handshake. Outputs record it as policy_name
// (ReportedName).
type Named interface {
	// ReportedName is the policy's own name, "" when it reported none.
	ReportedName() string
}

// ReportedName is the name p reports of itself (Named) or, for a policy
// that reports none, registered, the name it was built under: a run's
// policy_name.
func ReportedName(p Policy, registered string) string {
	if n, ok := p.(Named); ok {
		if name := n.ReportedName(); name != "" {
			return name
		}
	}
	return registered
}

// Admitter is implemented by policies with admission control: a policy
// that may decline a job when it is submitted (ElasticFlow, EDF with
// admission), so that jobs it cannot serve never take GPUs from those it
// can. The simulator calls Admit once per job, at its submission, before
// the job is active; a declined job never runs, is not shown to Schedule,
// and ends in the run's results as declined, with the reason (counted in
// the run's metrics; docs/deadlines.md). Policies without it admit every
// job.
type Admitter interface {
	// Admit decides on job, submitted at now, given the jobs active at
	// that moment (in submission order, the job itself not among them)
	// on cluster. It returns "" to admit the job, or the reason it is
	// declined: a short phrase, the same for every job declined for the
	// same cause (the run counts jobs per reason). Like Schedule, it must
	// not modify its input.
	Admit(now float64, cluster Cluster, job *Job, active []Job) (declined string)
}

// MaxDeclineReason bounds the reason a declined job is recorded with,
// bytes.
const MaxDeclineReason = 200

// DeclineReason is the reason an Admitter's answer declines a job with,
// as it is recorded: folded onto one line, at most MaxDeclineReason bytes
// (cut at a character's boundary), "declined" when it is only blanks; ""
// (the job admitted) for "". The simulator and the service both record
// an answer so.
func DeclineReason(answer string) string {
	if answer == "" {
		return ""
	}
	reason := strings.Join(strings.Fields(answer), " ")
	if reason == "" {
		reason = "declined"
	}
	if len(reason) > MaxDeclineReason {
		reason = strings.ToValidUTF8(reason[:MaxDeclineReason], "")
	}
	return reason
}
