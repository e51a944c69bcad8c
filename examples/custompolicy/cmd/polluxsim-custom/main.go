// Command polluxsim-custom is the whole polluxsim command line with one more
// policy, smallest-first, defined outside the repository's policies: run,
// sweep, policies, plot and report all know it by name.
package main

import (
	"os"

	"github.com/polluxsim/polluxsim/cmd/polluxsim/app"
	"github.com/polluxsim/polluxsim/examples/custompolicy/smallestfirst"
)

func main() {
	os.Exit(app.Main(app.WithName("polluxsim-custom"), app.WithPolicy(smallestfirst.Registration())))
}
