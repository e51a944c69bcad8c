package faults

import (
	"fmt"
	"math"
)

// Young is Young's (1974) checkpoint interval sqrt(2·C·M) for a
// checkpoint costing c seconds and a mean time to failure of mttf seconds.
func Young(c, mttf float64) float64 { return math.Sqrt(2 * c * mttf) }

// Daly is Daly's (2006) higher-order refinement of Young's interval:
// sqrt(2CM)·(1 + sqrt(C/2M)/3 + (C/2M)/9) − C for C < 2M, M otherwise.
func Daly(c, mttf float64) float64 {
	if c >= 2*mttf {
		return mttf
	}
	x := c / (2 * mttf)
	return math.Sqrt(2*c*mttf)*(1+math.Sqrt(x)/3+x/9) - c
}

// For is the checkpoint interval in seconds of work for a job
// interrupted at rate per second: the fixed interval, Young's or Daly's
// optimum, or +Inf (no checkpoints, or no failures to guard against).
func (c Checkpoint) For(rate float64) float64 {
	switch c.Mode {
	case "fixed":
		return c.Interval
	case "young":
		if rate > 0 {
			return Young(c.Cost, 1/rate)
		}
	case "daly":
		if rate > 0 {
			return Daly(c.Cost, 1/rate)
		}
	}
	return math.Inf(1)
}

// ETTR is the expected effective training time ratio (productive time over
// wall time) of a job interrupted at rate per second (Poisson), which
// checkpoints every tau seconds of work at a cost of c seconds and, after
// each interruption, waits wait seconds for its GPUs back and then restarts
// for restart seconds (an interruption during the restart starts the
// recovery over). A failure loses the work since the last checkpoint.
// The renewal argument is exact for this model:
//
//	ETTR = τ / ((e^{Λ(τ+C)} − 1)·(1/Λ + Rec)),  Rec = e^{ΛR}·W + (e^{ΛR} − 1)/Λ.
//
// To first order in Λ it is τ/(τ+C)·(1 − Λ(Rec + (τ+C)/2)), the form of
// Kokolis et al. (HPCA 2025): each failure costs the restart plus half an
// interval of lost work (ETTRFirstOrder).
func ETTR(rate, tau, c, wait, restart float64) float64 {
	if rate == 0 {
		return tau / (tau + c)
	}
	rec := math.Exp(rate*restart)*wait + math.Expm1(rate*restart)/rate
	return tau / (math.Expm1(rate*(tau+c)) * (1/rate + rec))
}

// ETTRFirstOrder is ETTR to first order in the failure rate (see ETTR).
func ETTRFirstOrder(rate, tau, c, wait, restart float64) float64 {
	return tau / (tau + c) * (1 - rate*(wait+restart+(tau+c)/2))
}

// CheckProgress refuses a fault model under which a job on nodes nodes
// (GPU types types) interrupted at the model's rate cannot be expected to
// get through its restart: a mean time to failure below the restart cost.
// name names the job in the error.
func (m *Model) CheckProgress(name string, nodes []int, types []string, restart float64) error {
	r := m.JobRate(nodes, types)
	if r > 0 && 1/r < restart {
		return fmt.Errorf("--failures %s: job %s on %d nodes would fail every %.4g s on average (%.4g failures per node-day), less than its %g s restart cost: no progress is possible",
			m, name, len(nodes), 1/r, r*Day/float64(len(nodes)), restart)
	}
	return nil
}
