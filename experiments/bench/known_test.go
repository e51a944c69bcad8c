package bench

import (
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies/builtin"
)

// known are the built-in policies, for tests.
var known = runspec.Known{Policies: builtin.Registry()}
