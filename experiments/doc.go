// Package experiments runs simulations and writes what they produce: a
// single run from a RunSpec (the `polluxsim run` command), its outputs
// (summary.json, jobs.parquet, rounds.parquet, cluster.parquet), named
// experiment specs and sweeps over them, plots, reports, and regression
// baselines.
//
// Output tables, by concern:
//   - schema.go: Tables, the documented schema of every table (docs/outputs.md
//     is generated from it); writers are checked against it as they write.
//   - tables.go, parquet.go, output.go: the run columns (run_id, ...), the
//     jobs, rounds and cluster tables of a run; Parquet writing.
//   - readtables.go, sweeprounds.go: reading tables back; a sweep's rounds.
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
//     (RunResult), the sweep's tables (results, apps, jobs, cluster),
//     summary.json (mean and t-based 95 % confidence interval per cell,
//     paired ratios).
//   - merge.go: Merge joins the folders of a sharded sweep.
//   - plotspec.go, plot.go, figure.go: figures (PNG, SVG, PDF; page or
//     column size) with gonum/plot; fig6.go (co-adaptation, from a run's
//     tables), fig3.go (the throughput model against the measurements).
//   - report.go: a sweep's self-contained HTML report.
//   - regress.go: baselines (baselines/*.json) and the regression check.
package experiments
