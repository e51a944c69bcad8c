// Package outputs holds the output tables of a run: their documented,
// versioned schema (Tables; docs/outputs.md is generated from it), the
// column helpers every table is built from (the run columns first), the
// Parquet writer that checks each table against its schema as it writes,
// a run's folder (WriteRun: summary.json, jobs.parquet, rounds.parquet,
// cluster.parquet, nodes.parquet, each atomic), the streamed rounds table
// (RoundsStream), a run's identity (RunMeta, RunKey; the hash is internal/digest) and the
// reader of tables written back (ReadTableColumns).
package outputs
