// Command polluxsim-bare is a polluxsim without the built-in policies,
// sources, trace formats, autoscalers and figure kinds: it knows least-served,
// mini and box only.
package main

import (
	"os"

	"github.com/polluxsim/polluxsim/cmd/polluxsim/app"
	"github.com/polluxsim/polluxsim/examples/extensions/box"
	"github.com/polluxsim/polluxsim/examples/extensions/leastserved"
	"github.com/polluxsim/polluxsim/examples/extensions/mini"
)

func main() {
	os.Exit(app.Main(app.WithName("polluxsim-bare"), app.WithoutBuiltins(),
		app.WithPolicy(leastserved.Registration()), app.WithSource(mini.Source), app.WithKind(box.Kind)))
}
