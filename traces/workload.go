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
	// Deadline, when positive, is the job's deadline in seconds after its
	// submission: the job is to finish by Time + Deadline. Zero means the
	// job has none: it is best-effort (SLO class SLOBestEffort). See
	// docs/deadlines.md.
	Deadline float64
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

// SLO classes of a job (Job.SLO): a job with a deadline, or one without.
const (
	SLODeadline   = "deadline"
	SLOBestEffort = "best-effort"
)

// SLO is the job's service-level class: SLODeadline when it has a
// deadline, SLOBestEffort otherwise. The class is implied by the deadline,
// as in ElasticFlow's traces, whose best-effort jobs have no deadline.
func (j *Job) SLO() string {
	if j.Deadline > 0 {
		return SLODeadline
	}
	return SLOBestEffort
}

// DueAt is the absolute time by which the job is to finish (Time +
// Deadline), or 0 when it has no deadline: the form policies see
// (policies.Job.Deadline).
func (j *Job) DueAt() float64 {
	if j.Deadline > 0 {
		return j.Time + j.Deadline
	}
	return 0
}

// HasDeadlines reports whether any job of the workload has a deadline.
func (w *Workload) HasDeadlines() bool {
	for i := range w.Jobs {
		if w.Jobs[i].Deadline > 0 {
			return true
		}
	}
	return false
}
