// Package runner is the one pipeline of a simulation run, used by
// `polluxsim run`, by every run of a sweep and by library callers alike:
// it resolves the run's inputs (profiles, workload), checks them and the
// run's feasibility, builds the policy, computes the run's identity
// (run_id over the inputs' content and every setting, the code version),
// simulates, and writes the outputs atomically, so that a library caller
// gets the same files and run_ids as the command line, byte for byte.
//
// Prepare does everything up to the simulation without touching the output
// folder; Prepared.Execute simulates and writes. Run does both.
package runner
