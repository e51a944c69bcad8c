// Package experiments runs simulations and writes what they produce: a
// single run from a RunSpec (the `polluxsim run` command), its outputs
// (summary.json, jobs.parquet, rounds.parquet), named experiment specs and
// sweeps over them, plots, and regression baselines.
//
// It is the only package that names concrete policies; sim knows only the
// policies.Policy interface.
//
// Sweeps, by concern:
//   - experiment.go, specs.go, specs/*.json: an Experiment is a named,
//     versioned spec file (JSON): cells (a policy, settings over
//     DefaultSpec, a kind of workload) each run on workloads 1..N, the
//     paper's reference numbers, paired ratios and plots.
//   - sweep.go, sweepworkloads.go, priors.go: Sweep runs the runs of a shard
//     on a pool of goroutines, sharing the profiles and each workload, and
//     stores every finished run atomically as cells/<cell>.w<i>.json, so an
//     interrupted sweep resumes where it stopped.
//   - runresult.go, results.go, stats.go, summary.go: a stored run
//     (RunResult), results.parquet (one row per run), summary.json (mean
//     and t-based 95 % confidence interval per cell, paired ratios).
//   - merge.go: Merge joins the folders of a sharded sweep.
//   - plotspec.go, plot.go: figures (PNG and SVG) with gonum/plot.
//   - regress.go: baselines (baselines/*.json) and the regression check.
package experiments
