package runspec

import (
	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies/builtin"
)

// known are the built-in policies and autoscalers, for tests.
var known = Known{Policies: builtin.Registry(), Autoscalers: autoscalers.MustRegistry(autoscalers.Builtin()...)}
