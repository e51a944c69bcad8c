package sim

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// Admission control (policies.Admitter): a policy may decline a job at its
// submission. A declined job never becomes active: it is not shown to the
// policy's rounds, holds no GPU, and ends in phase declined with its
// reason and its submission time as its finish (JobResult.Declined).

// admit asks an Admitter policy about job j, arriving now; "" admits it
// (as every other policy does).
func (e *engine) admit(j *job) string {
	a, ok := e.policy.(policies.Admitter)
	if !ok {
		return ""
	}
	var v policies.Job
	j.view(&v, e.now, e.traits.NeedsOracle)
	active := make([]policies.Job, len(e.active))
	for i, aj := range e.active {
		aj.view(&active[i], e.now, e.traits.NeedsOracle)
	}
	return policies.DeclineReason(a.Admit(e.now, e.cfg.Cluster, &v, active))
}

// decline ends job j at its submission: declined for reason, it never
// runs. In a closed loop the next job is submitted in its place.
func (e *engine) decline(j *job, reason string) error {
	if err := j.setPhase(phaseDeclined, e.now); err != nil {
		return err
	}
	if err := policyErr(e.policy); err != nil {
		return fmt.Errorf("admission of job %s: %w", j.spec.Name, err)
	}
	j.declined = reason
	j.finish = e.now
	j.last = e.now
	e.finished++
	e.submitNext()
	return nil
}
