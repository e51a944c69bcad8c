// Package traces holds workloads, the timed job arrivals a simulation
// replays: the workload CSV format, the Philly-derived workload generator
// and the ingest of Microsoft's Philly cluster_job_log; and cluster traces
// of any format read into one table of trace jobs (TraceTable: ITP,
// embedded; Philly; Helios; Acme; PAI; any CSV by a column mapping),
// registered by name (ReadTrace), summarised (SummarizeTrace) and sampled
// into workloads by the paper's method (SampleTrace).
package traces

// Job is one job of a workload.
type Job struct {
	// Name identifies the job, e.g. "cifar10-0".
	Name string
	// Time is the submission time in seconds from the start of the trace.
	Time float64
	// App is the application's name (see package profiles).
	App string
	// Replicas is the number of GPUs the user asked for (used as-is by
	// non-adaptive policies such as Tiresias).
	Replicas int
	// Batch is the total batch size the user asked for (used by Tiresias
	// and Optimus+Oracle).
	Batch int
	// Line is the job's 1-based line in the file it was read from, or 0
	// when it was not read from a file. Error messages use it.
	Line int
}

// Workload is a list of jobs sorted by submission time.
type Workload struct {
	// Source names where the workload came from (a file path, or a
	// description of how it was generated).
	Source string
	Jobs   []Job
	// BatchColumn names the column (or field) of Source that holds the
	// jobs' batch sizes, for messages that point at it: ColBatch when
	// Parse read the workload CSV; a source of another format names its
	// own; "" names none (a generated workload has no column).
	BatchColumn string
}
