// Package outputs holds the output tables of a run: each table declared
// once as a Table over its row type, whose Fields give every column's
// name, type, nullability, unit, meaning and value (columns.go; the
// tables in tables.go, nodes.go and sweeptables.go, the run columns first;
// results.parquet's metric columns and summary.json's metric keys come from
// one set of metric declarations, Metrics, each computed from a run's
// RunData), the versioned
// schema derived from them (Tables; docs/outputs.md is generated from it),
// the Parquet writer (WriteTable),
// a run's folder (WriteRun: summary.json, jobs.parquet, rounds.parquet,
// cluster.parquet, nodes.parquet, each atomic), the streamed rounds table
// (RoundsStream), a run's identity (RunMeta, RunKey; the hash is internal/digest) and the
// reader of tables written back (ReadTableColumns) and their export as
// CSV or JSON Lines with a sidecar of types (ExportFolder).
package outputs
