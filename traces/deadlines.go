package traces

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Deadline rules of AssignDeadlines (DeadlineOptions.Rule).
const (
	// DeadlineElasticFlow is ElasticFlow's rule: a job's deadline is
	// floor(U × its isolated run time) seconds after its submission, U
	// uniform in [Min, Max] (0.5 and 1.5 by default), as its trace
	// generator sets the ddl column (docs/deadlines.md cites the file).
	DeadlineElasticFlow = "elasticflow"
	// DeadlineTightness gives every job the deadline Tightness × its
	// isolated run time after its submission.
	DeadlineTightness = "tightness"
)

// ElasticFlow's default range of the deadline factor.
const (
	ElasticFlowMinFactor = 0.5
	ElasticFlowMaxFactor = 1.5
)

// Random streams of AssignDeadlines, apart from the generator's own so
// that deadlines never shift a workload's jobs.
const (
	streamDeadline uint64 = 0x5a3f1c0dead10001 + iota
	streamBestEffort
)

// DeadlineOptions configures AssignDeadlines.
type DeadlineOptions struct {
	// Rule is DeadlineElasticFlow or DeadlineTightness.
	Rule string
	// Min and Max bound ElasticFlow's uniform factor; both zero mean its
	// defaults, 0.5 and 1.5.
	Min, Max float64
	// Tightness is the factor of DeadlineTightness, positive: 1 leaves a
	// job exactly its isolated run time, 2 twice that.
	Tightness float64
	// BestEffort is the fraction of jobs, in [0, 1], left without a
	// deadline: each job independently with this probability, as
	// ElasticFlow's generator marks best-effort jobs.
	BestEffort float64
	// Seed selects the random factors and best-effort jobs.
	Seed uint64
}

// Check reports the first problem of the options, in the words of a
// generate: reference's keys.
func (o DeadlineOptions) Check() error {
	lo, hi := o.factors()
	switch {
	case o.Rule != DeadlineElasticFlow && o.Rule != DeadlineTightness:
		return fmt.Errorf("deadlines must be %s or %s, got %q", DeadlineElasticFlow, DeadlineTightness, o.Rule)
	case o.Rule == DeadlineTightness && !(o.Tightness > 0 && o.Tightness <= MaxDeadlineFactor):
		return fmt.Errorf("tightness must be in (0, %v], got %v", MaxDeadlineFactor, o.Tightness)
	case o.Rule == DeadlineElasticFlow && !(lo > 0 && lo <= hi && hi <= MaxDeadlineFactor):
		return fmt.Errorf("the deadline factor range [%v, %v] must satisfy 0 < min <= max <= %v", lo, hi, MaxDeadlineFactor)
	case !(o.BestEffort >= 0 && o.BestEffort <= 1):
		return fmt.Errorf("best_effort must be a fraction in [0, 1], got %v", o.BestEffort)
	}
	return nil
}

// MaxDeadlineFactor bounds the factors, so that a deadline stays a
// reasonable number of seconds.
const MaxDeadlineFactor = 1000

func (o DeadlineOptions) factors() (lo, hi float64) {
	if o.Min == 0 && o.Max == 0 {
		return ElasticFlowMinFactor, ElasticFlowMaxFactor
	}
	return o.Min, o.Max
}

// AssignDeadlines gives the jobs of w deadlines by opts.Rule over each
// job's isolated run time, which runTime computes (sim.IsolatedRunTime is
// its one home: the job alone on its requested GPUs). Jobs drawn
// best-effort (opts.BestEffort) get none. Every job draws its factor and
// its best-effort coin, in job order, whatever the rule, so a seed gives
// the same best-effort jobs under both rules. A deadline is at least one
// second. A run time that is not positive and finite is an error naming
// the job.
func AssignDeadlines(w *Workload, opts DeadlineOptions, runTime func(j *Job) float64) error {
	if w == nil {
		return errors.New("deadlines: no workload")
	}
	if err := opts.Check(); err != nil {
		return fmt.Errorf("deadlines: %w", err)
	}
	lo, hi := opts.factors()
	rFactor := rand.New(rand.NewPCG(opts.Seed, streamDeadline))
	rBest := rand.New(rand.NewPCG(opts.Seed, streamBestEffort))
	for i := range w.Jobs {
		j := &w.Jobs[i]
		u := lo + (hi-lo)*rFactor.Float64()
		best := rBest.Float64() < opts.BestEffort
		t := runTime(j)
		if !(t > 0) || math.IsInf(t, 0) {
			return fmt.Errorf("deadlines: job %s (%s on %d GPUs): no isolated run time (%v)", j.Name, j.App, j.Replicas, t)
		}
		j.Deadline = 0
		if best {
			continue
		}
		if opts.Rule == DeadlineTightness {
			j.Deadline = max(opts.Tightness*t, 1)
		} else {
			j.Deadline = max(math.Floor(u*t), 1)
		}
	}
	return nil
}
