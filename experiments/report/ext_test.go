package report

import (
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
)

// The report's tests draw figures: their experiments know the built-in
// kinds.
func init() {
	kinds, err := figures.Extension(figures.Builtin()...)
	if err != nil {
		panic(err)
	}
	exptest.FigureKinds = kinds
}
