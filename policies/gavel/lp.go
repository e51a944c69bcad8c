package gavel

import (
	"errors"

	"github.com/polluxsim/polluxsim/internal/simplex"
)

// LP is a linear program in the form Gavel's allocation problems take,
// solved by the shared dense simplex method (internal/simplex).
type LP = simplex.LP

// ErrUnbounded is returned for a program whose objective has no maximum.
var ErrUnbounded = simplex.ErrUnbounded

// errNoFTF is returned when the max-min allocation leaves a runnable job
// without throughput, which a well-formed problem cannot produce.
var errNoFTF = errors.New("gavel-ftf: no feasible finish-time ratio")
