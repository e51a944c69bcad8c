package service

import "github.com/polluxsim/polluxsim/policies"

func envOf(seed uint64) policies.Env { return policies.Env{Seed: seed} }
