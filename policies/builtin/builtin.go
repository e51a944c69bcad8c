// Package builtin registers every policy that ships with polluxsim. Import
// it for its side effect:
//
//	import _ "github.com/polluxsim/polluxsim/policies/builtin"
//
// after which policies.Names lists them and policies.Build makes them.
package builtin

import (
	// Each package registers its policy in an init function.
	_ "github.com/polluxsim/polluxsim/policies/fifo"
	_ "github.com/polluxsim/polluxsim/policies/gavel"
	_ "github.com/polluxsim/polluxsim/policies/optimus"
	_ "github.com/polluxsim/polluxsim/policies/pollux"
	_ "github.com/polluxsim/polluxsim/policies/sia"
	_ "github.com/polluxsim/polluxsim/policies/srtf"
	_ "github.com/polluxsim/polluxsim/policies/tiresias"
)
