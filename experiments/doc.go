// Package experiments is the experiment-spec format: an Experiment is a
// named, versioned JSON file (specs/*.json, embedded; or a user's file)
// whose cells (a policy, settings over runspec.DefaultSpec, a kind of
// workload) each run on workloads 1..N, with the paper's reference
// numbers, paired ratios, workload sets and the figures to draw.
//
// The layer above the engine is split by concern into sub-packages, each
// depending only on those listed before it:
//   - runspec: RunSpec, one run's settings (policy and options, cluster,
//     engine settings, seed), how a policy and a sim.Config are built from
//     it, node pools, calibrations, offline priors, generated workloads.
//   - outputs: the output tables of a run (schema, columns, Parquet
//     writing and reading, summary.json, the streamed rounds table).
//   - results: a stored run (RunResult), its metrics and their statistics.
//   - experiments (this package): the experiment-spec format.
//   - sweep: running an experiment's runs (resumable, sharded), the
//     sweep's tables and summary, merge and regress.
//   - figures: plots of sweeps (gonum/plot), Fig 3 and Fig 6.
//   - report: a sweep's self-contained HTML report.
//   - bench: scale benchmarks and search-quality measurements.
//
// It is the layer that names concrete policies (through runspec); sim
// knows only the policies.Policy interface.
package experiments
