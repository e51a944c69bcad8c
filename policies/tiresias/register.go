package tiresias

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "tiresias"

// Options are Tiresias's user-settable options.
type Options struct {
	// DemoteGPUHours is the attained service (executed time × requested
	// GPUs) at which a job moves from the high- to the low-priority queue.
	DemoteGPUHours float64 `option:"demote_gpu_hours" doc:"attained service, in GPU-hours, at which a job moves to the low-priority queue, in (0, 1e9]"`
}

// DefaultOptions are the paper's settings: demotion at 16 GPU-hours.
func DefaultOptions() Options { return Options{DemoteGPUHours: DefaultThreshold / 3600} }

// maxDemoteGPUHours bounds demote_gpu_hours: beyond it no job is ever
// demoted, and the seconds it is converted to stay finite.
const maxDemoteGPUHours = 1e9

// Validate checks the options against their bounds.
func (o *Options) Validate() error {
	if !(o.DemoteGPUHours > 0 && o.DemoteGPUHours <= maxDemoteGPUHours) {
		return fmt.Errorf("demote_gpu_hours must be positive and at most %g, got %v", float64(maxDemoteGPUHours), o.DemoteGPUHours)
	}
	return nil
}

var _ policies.Policy = (*Policy)(nil)

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "Tiresias (NSDI'19): two-queue least-attained-service at the requested GPUs and batch, preemptive",
	}, DefaultOptions, func(o Options, _ policies.Env) (policies.Policy, error) {
		return New(o.DemoteGPUHours * 3600), nil
	})
}
