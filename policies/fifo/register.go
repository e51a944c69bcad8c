package fifo

import "github.com/polluxsim/polluxsim/policies"

// Name is the policy's registered name.
const Name = "fifo"

var _ policies.Policy = (*Policy)(nil)

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Registration{
		Name: Name,
		Doc:  "first in, first out at the requested GPUs and batch; head-of-line blocking, no preemption",
		New:  func(any, policies.Env) (policies.Policy, error) { return New(), nil },
	}
}
