package optimus

import "github.com/polluxsim/polluxsim/policies"

// Name is the policy's registered name.
const Name = "optimus"

var _ policies.Policy = (*Policy)(nil)

func init() {
	policies.Register(policies.Registration{
		Name: Name,
		Doc:  "Optimus+Oracle (EuroSys'18): greedy GPU-at-a-time by marginal gain x exact remaining iterations, requested batch",
		New:  func(any, policies.Env) (policies.Policy, error) { return New(), nil },
	})
}
