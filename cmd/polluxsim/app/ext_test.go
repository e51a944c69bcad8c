package app

import "github.com/polluxsim/polluxsim/experiments/intree"

// testExt are the stock binary's extensions, for tests.
var testExt = intree.Extensions()
