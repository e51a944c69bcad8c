package sim

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/traces"
)

// Every phase change goes through setPhase; the table allows exactly the
// job life cycle and anything else is an error naming job and phases.
func TestPhaseTransitions(t *testing.T) {
	allowed := map[[2]phase]bool{
		{phaseFuture, phasePending}: true, {phasePending, phaseRestarting}: true,
		{phaseRestarting, phaseRunning}: true, {phaseRestarting, phaseRestarting}: true,
		{phaseRestarting, phasePending}: true, {phaseRunning, phaseRestarting}: true,
		{phaseRunning, phasePending}: true, {phaseRunning, phaseDone}: true,
	}
	for from := phaseFuture; from <= phaseDone; from++ {
		for to := phaseFuture; to <= phaseDone; to++ {
			j := &job{spec: traces.Job{Name: "j1"}, line: 3, phase: from}
			err := j.setPhase(to, 42)
			if allowed[[2]phase{from, to}] {
				if err != nil || j.phase != to {
					t.Errorf("%s → %s: %v", from, to, err)
				}
				continue
			}
			if err == nil || j.phase != from {
				t.Errorf("%s → %s allowed", from, to)
			} else if msg := err.Error(); !strings.Contains(msg, "job j1") || !strings.Contains(msg, from.String()+" to "+to.String()) {
				t.Errorf("%s → %s: message %q", from, to, msg)
			}
		}
	}
}
