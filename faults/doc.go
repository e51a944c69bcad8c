// Package faults is the fault model of a simulated cluster: node failures
// as a Poisson process per node (a rate per node-day, per GPU type where
// given), repair times (fixed, exponential or lognormal), failure domains
// (k nodes that go down together at their own rate), the replay of a
// fault log (CSV), and, as an option, failures of a job's own, independent
// of the hardware (Model.JobFailRate). Presets carry published fleet figures (llama3, rsc1;
// docs/failures.md has their arithmetic).
//
// The faults of a run come from their own random stream, seeded from the
// run's seed and nothing else: every policy of a sweep cell sees the same
// faults (common random numbers). A Stream yields the nodes going down and
// coming back, in time order; the engine (package sim) decides what that
// does to jobs. The checkpoint settings (Checkpoint) and the closed forms
// a run is checked against (Young, Daly, ETTR) live here too.
package faults
