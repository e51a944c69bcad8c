package sim

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/faults"
)

// Re-planning at once (faults.Model.Replan): a job interrupted by a node
// failure or a failure of its own is placed again at the failure's time,
// not at the next round. With hour-long rounds the wait matters: the
// job's ETTR is the closed form's with no wait (within 2 %), and without
// re-planning the closed form's with half a round's wait, the two apart
// by more than the tolerance.
func TestReplanClosedForm(t *testing.T) {
	const (
		nodes    = 2
		mttf     = 6 * 3600.0 // the job's
		cost     = 60.0
		tau      = 3600.0
		restart  = 60.0
		interval = 3600.0
		work     = 800 * mttf
	)
	rate := 1 / mttf
	for _, own := range []bool{false, true} {
		for _, replan := range []bool{false, true} {
			m := &faults.Model{Rate: faults.Day / (nodes * mttf), Repair: faults.Dist{Kind: "fixed", Mean: 600},
				Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: tau, Cost: cost}, Replan: replan}
			if own {
				// The same rate from the job's own failures.
				m.Rate, m.JobFailRate = 0, faults.Day/mttf
			}
			cfg := DefaultConfig()
			cfg.Interval = interval
			j, _ := faultRunConfig(t, cfg, m, nodes, work, restart, 1)
			wait := interval / 2
			if replan {
				wait = 0
			}
			want := faults.ETTR(rate, tau, cost, wait, restart)
			other := faults.ETTR(rate, tau, cost, interval/2-wait, restart)
			got := j.Faults.ETTR
			t.Logf("own %v replan %v: ETTR %.4f, closed form %.4f (other %.4f), %d interruptions", own, replan, got, want, other, j.Faults.Interruptions)
			if math.Abs(got/want-1) > 0.02 || math.Abs(other/want-1) < 0.04 {
				t.Errorf("own failures %v, replan %v: ETTR %.4f, closed form with a wait of %v s %.4f (with the other wait %.4f), %d interruptions",
					own, replan, got, wait, want, other, j.Faults.Interruptions)
			}
		}
	}
}
