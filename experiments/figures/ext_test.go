package figures

import "github.com/polluxsim/polluxsim/experiments/internal/exptest"

// The figures' tests draw: their experiments know the built-in kinds.
func init() {
	kinds, err := Extension(Builtin()...)
	if err != nil {
		panic(err)
	}
	exptest.FigureKinds = kinds
}
