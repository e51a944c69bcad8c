package policies

// TypeOracle is an Oracle that also knows a job's ground truth on GPU types
// other than the one it runs on: what a heterogeneity-aware scheduler with
// measured throughputs (Gavel) is given. The engine's oracle implements it;
// policies use it through a type assertion and fall back to Oracle.IterTime
// on the job's own type when it is absent.
type TypeOracle interface {
	Oracle
	// TypeIterTime is the true time of one optimizer step at total batch
	// size batch on placement (GPUs per node) of GPU type t, the batch
	// split into per-GPU batches and accumulation steps as the engine runs
	// a job of fixed batch there (Limits.Split with t's limits). ok is
	// false when the job's application has no tables for t.
	TypeIterTime(t string, placement []int, batch int) (seconds float64, ok bool)
}
