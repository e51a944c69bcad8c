// Package results holds what is kept of a finished run: RunResult (a
// sweep's stored run, cells/<run>.json: identity, settings, summary, the
// jobs' and rounds' rows), the metrics every summary, table and baseline
// draws from, computed from the stored run by their declarations
// (outputs.Metrics and their families; Declaration, KnownMetric,
// MetricNamesOf, RunResult.Metric over RunResult.Data), elastic-cluster series,
// and their statistics over workloads (Stat: mean and t-based 95 %
// confidence interval; paired ratios).
package results
