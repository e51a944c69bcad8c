// Package sweep runs an experiment: Sweep runs the runs of a shard on a
// pool of goroutines, sharing the profiles and each workload (read,
// generated, or from a workload set), and stores every finished run
// atomically as cells/<cell>.w<i>.json, so an interrupted sweep resumes
// where it stopped. It writes the sweep's tables (results.parquet,
// apps.parquet, jobs.parquet, cluster.parquet, rounds.parquet) and
// summary.json (SweepSummary: per cell and metric the mean and 95 %
// confidence interval, paired ratios), opens a sweep folder back
// (OpenSweep), joins the folders of a sharded sweep (Merge), and checks a
// sweep against a regression baseline (Regress, baselines/*.json).
package sweep
