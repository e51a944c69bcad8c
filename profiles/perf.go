package profiles

import "github.com/polluxsim/polluxsim/models"

// This file is the one home of the ground truth's derived quantities: every
// true iteration time, efficiency and goodput in the simulator (the engine,
// its results, the fairness baseline, Optimus's oracle, TunedJobs and
// `profiles show`) comes from these functions.

// IterTime is the true time of one optimizer step with accum gradient
// accumulation micro-steps, from the time step of one step without
// accumulation and its synchronisation part sync: every extra micro-step
// costs the compute part, step + s·(step − sync).
func IterTime(step, sync float64, accum int) float64 {
	return step + float64(accum)*(step-sync)
}

// IterTime is the true time of one optimizer step of the application on
// placement (GPUs per node) at per-GPU batch local with accum accumulation
// steps, and the step and synchronisation times it is made of.
func (a *App) IterTime(placement []int, local float64, accum int) (iter, step, sync float64) {
	step, sync = a.Truth.Step(placement, local)
	return IterTime(step, sync, accum), step, sync
}

// Gain is the true progress of one optimizer step at total batch size
// batch during epoch (0-based), in steps at the initial batch size.
func (a *App) Gain(batch float64, epoch int) float64 {
	return a.Truth.Grad(batch, epoch).Gain(float64(a.Limits.InitBatch), batch)
}

// Perf is the true performance of one configuration of a job.
type Perf struct {
	// Step and Sync are the times of one step without accumulation and of
	// its synchronisation part (Truth.Step).
	Step, Sync float64
	// Iter is the time of one optimizer step (IterTime).
	Iter float64
	// Batch is the total batch size K·m·(s+1).
	Batch float64
	// Grad are the true gradient statistics at Batch.
	Grad models.GradStats
	// Gain is the progress of one step in steps at the initial batch.
	Gain float64
	// Efficiency is the statistical efficiency Gain·M0/Batch.
	Efficiency float64
	// Throughput is Batch/Iter in samples per second; Goodput is
	// Throughput·Efficiency.
	Throughput, Goodput float64
	// Rate is the progress per second, Gain/Iter.
	Rate float64
}

// Perf returns the true performance of the application on placement (GPUs
// per node; zeros ignored) at per-GPU batch local with accum accumulation
// steps during epoch (0-based), without interference.
func (a *App) Perf(placement []int, local, accum, epoch int) Perf {
	return a.PerfAcross(placement, Network{}, local, accum, epoch)
}

// PerfAcross is Perf on a placement whose nodes sit in the racks of
// network n (see Network; Perf is PerfAcross on one tier).
func (a *App) PerfAcross(placement []int, n Network, local, accum, epoch int) Perf {
	k := 0
	for _, g := range placement {
		if g > 0 {
			k += g
		}
	}
	var p Perf
	p.Step, p.Sync = a.stepOn(placement, n, float64(local))
	p.Iter = IterTime(p.Step, p.Sync, accum)
	p.Batch = float64(k * local * (accum + 1))
	p.Grad = a.Truth.Grad(p.Batch, epoch)
	m0 := float64(a.Limits.InitBatch)
	p.Gain = p.Grad.Gain(m0, p.Batch)
	p.Efficiency = p.Gain * m0 / p.Batch
	p.Throughput = p.Batch / p.Iter
	p.Goodput = p.Throughput * p.Efficiency
	p.Rate = p.Gain / p.Iter
	return p
}

// RemainingIterations is the exact number of optimizer steps a job still
// needs at total batch size batch, from progress (iterations at the
// initial batch size) in epoch (0-based): the measured steps to the end of
// training minus those to the start of the epoch and the done fraction of
// the epoch's steps (linear within the epoch).
func (a *App) RemainingIterations(batch float64, epoch int, progress float64) float64 {
	last := a.Epochs - 1
	if epoch > last {
		return 0
	}
	total := a.Truth.Iterations(batch, last)
	start := 0.0
	if epoch > 0 {
		start = a.Truth.Iterations(batch, epoch-1)
	}
	end := a.Truth.Iterations(batch, epoch)
	p0, p1 := a.Truth.Progress(epoch), a.Truth.Progress(epoch+1)
	frac := 0.0
	if p1 > p0 {
		frac = min(max((progress-p0)/(p1-p0), 0), 1)
	}
	return max(total-(start+frac*(end-start)), 0)
}
