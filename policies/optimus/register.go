package optimus

import "github.com/polluxsim/polluxsim/policies"

// Name is the policy's registered name.
const Name = "optimus"

var _ policies.Policy = (*Policy)(nil)

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Registration{
		Name: Name,
		Doc:  "Optimus+Oracle (EuroSys'18): greedy GPU-at-a-time by marginal gain x exact remaining iterations, requested batch",
		New:  func(any, policies.Env) (policies.Policy, error) { return New(), nil },
	}
}
