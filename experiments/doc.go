// Package experiments runs simulations and writes what they produce: a
// single run from a RunSpec (the `polluxsim run` command), its outputs
// (summary.json, jobs.parquet, rounds.parquet), named experiment specs and
// sweeps over them, plots, and regression baselines.
//
// It is the only package that names concrete policies; sim knows only the
// policies.Policy interface.
package experiments
