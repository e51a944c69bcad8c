package outputs

import (
	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies/builtin"
)

// known are the built-in policies and autoscalers, for tests.
var known = runspec.Known{Policies: builtin.Registry(), Autoscalers: autoscalers.MustRegistry(autoscalers.Builtin()...)}
