package fifo

import "github.com/polluxsim/polluxsim/policies"

// Name is the policy's registered name.
const Name = "fifo"

var _ policies.Policy = (*Policy)(nil)

func init() {
	policies.Register(policies.Registration{
		Name: Name,
		Doc:  "first in, first out at the requested GPUs and batch; head-of-line blocking, no preemption",
		New:  func(any, policies.Env) (policies.Policy, error) { return New(), nil },
	})
}
