package app

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
)

// Every numeric flag's usage states its bounds, in the forms the tests
// read (bounds_test.go): "in [a, b]" (a parenthesis for an open end),
// "at least N", "N or more" or "any finite number". Seeds, unsigned, take
// any value of their type.

// inRange is the usage text of the closed interval [lo, hi].
func inRange[T int | float64](lo, hi T) string { return fmt.Sprintf("in [%v, %v]", lo, hi) }

// gpusPerNodeFlag registers --gpus-per-node (default 4), what it is for
// followed by its bounds; checkGPUsPerNode checks them.
func gpusPerNodeFlag(f *pflag.FlagSet, p *int, what string) {
	f.Var(flagvalue.NewInt(p, 4), "gpus-per-node", what+", "+inRange(1, runspec.MaxGPUsPerNode))
}

// checkGPUsPerNode refuses a --gpus-per-node outside [1, MaxGPUsPerNode].
func checkGPUsPerNode(n int) error {
	if n < 1 || n > runspec.MaxGPUsPerNode {
		return fmt.Errorf("--gpus-per-node must be in [1, %d], got %d", runspec.MaxGPUsPerNode, n)
	}
	return nil
}
