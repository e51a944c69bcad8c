package conformance

import (
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
)

// StepModel is a closed-form ground truth of one step's time: Compute +
// PerSample·(per-GPU batch) plus, as synchronisation, Local when the job
// spans several GPUs and Network when it spans several nodes.
type StepModel struct {
	Compute, PerSample float64
	Local, Network     float64
}

// Time returns the step time and its synchronisation part on a placement
// (GPUs per node) at per-GPU batch local.
func (m StepModel) Time(placement []int, local float64) (step, sync float64) {
	k, n := policies.Sum(placement), policies.NodesUsed(placement)
	if k > 1 {
		sync += m.Local
	}
	if n > 1 {
		sync += m.Network
	}
	return m.Compute + m.PerSample*local + sync, sync
}

// Oracle is the suite's deterministic policies.Oracle: a job with a fixed
// amount of work left and a StepModel for its steps.
type Oracle struct {
	// Remaining is the number of steps left at batch size Batch.
	Remaining float64
	Batch     int
	Step      StepModel
}

var _ policies.Oracle = Oracle{}

// RemainingIterations implements policies.Oracle: the same samples left,
// in steps of the given batch size.
func (o Oracle) RemainingIterations(batch int) float64 {
	return o.Remaining * float64(o.Batch) / float64(max(batch, 1))
}

// Epochs implements policies.Oracle: the remaining work is one epoch.
func (Oracle) Epochs() int { return 1 }

// Iterations implements policies.Oracle: the remaining steps at batch,
// by the end of the only epoch.
func (o Oracle) Iterations(batch, _ int) float64 { return o.RemainingIterations(batch) }

// IterTime implements policies.Oracle: a step's compute part repeats for
// each accumulation step, its synchronisation does not.
func (o Oracle) IterTime(placement []int, local float64, accum int) float64 {
	step, sync := o.Step.Time(placement, local)
	return profiles.IterTime(step, sync, accum)
}

// StepTime implements policies.Oracle: the step model's time and its
// synchronisation part.
func (o Oracle) StepTime(placement []int, local float64) (step, sync float64) {
	return o.Step.Time(placement, local)
}

// CompletionEpoch implements policies.Oracle: the only epoch.
func (Oracle) CompletionEpoch(int) int { return 0 }

// TypeIterTime implements policies.Oracle: the step model with its
// compute part sped up by the type's speed (typeSpeed), the batch split
// evenly over the GPUs without accumulation. Which types a job may use is
// its Types list, not the oracle's business.
func (o Oracle) TypeIterTime(t string, placement []int, batch int) (float64, bool) {
	k := policies.Sum(placement)
	if k <= 0 {
		return 0, false
	}
	m := o.Step
	m.Compute /= typeSpeed(t)
	m.PerSample /= typeSpeed(t)
	step, sync := m.Time(placement, float64(batch)/float64(k))
	return profiles.IterTime(step, sync, 0), true
}
