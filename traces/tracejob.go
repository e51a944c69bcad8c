package traces

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// TraceJob is one job of a cluster trace, in the form every trace reader
// produces (see TraceTable). Fields a trace does not have are left zero.
type TraceJob struct {
	// ID is the trace's job id ("" when it has none, as Philly's reduced
	// table).
	ID string `json:"id,omitempty"`
	// Submit is the submission time in seconds from the trace start: the
	// trace's own relative time (ITP), or seconds after the earliest
	// submission of the file for traces with calendar times (see
	// TraceTable.Start).
	Submit float64 `json:"submit_s"`
	// GPUs is the number of whole GPUs the job used (at least 1).
	GPUs int `json:"gpus"`
	// Duration is the job's run time in seconds (at least 0).
	Duration float64 `json:"duration_s"`
	// Status is the job's final state as the trace writes it (COMPLETED,
	// Pass, Terminated, …), "" when the trace has none.
	Status string `json:"status,omitempty"`
	// User is the (hashed) user, "" when the trace has none.
	User string `json:"user,omitempty"`
	// VC is the virtual cluster or queue, "" when the trace has none.
	VC string `json:"vc,omitempty"`
	// Nodes is the number of nodes the job ran on, 0 when unknown.
	Nodes int `json:"nodes,omitempty"`
	// GPUType is the GPU model, "" when unknown.
	GPUType string `json:"gpu_type,omitempty"`
	// Type is the job's kind as the trace labels it (Acme: Pretrain, SFT,
	// Evaluation, Debug, MLLM, Other), "" when it has none.
	Type string `json:"type,omitempty"`
	// Line is the job's 1-based line in the file it was read from.
	Line int `json:"line,omitempty"`
}

// GPUTime is the job's GPU time in GPU-seconds: Duration × GPUs.
func (j *TraceJob) GPUTime() float64 { return j.Duration * float64(j.GPUs) }

// TraceTable is a cluster trace as a table of jobs, whatever its format:
// what every trace reader returns and what SummarizeTrace and SampleTrace
// take. Jobs are in file order (traces such as ITP are not sorted by
// submission), so a table and a seed always give the same sample.
type TraceTable struct {
	// Name is how the trace was named: "itp:cluster02", "helios:FILE", a
	// path.
	Name string
	// Format is the registered format that read it ("itp", "helios", …).
	Format string
	// Start is the calendar time of Submit = 0 for traces with calendar
	// times (the earliest submission, as written in the trace, held as
	// UTC); zero for traces with relative times.
	Start time.Time
	// ClusterGPUs is the trace's own cluster size in GPUs where it
	// publishes one (Helios' cluster_gpu_number.csv), 0 otherwise.
	ClusterGPUs int
	// Jobs are the trace's jobs, in file order.
	Jobs []TraceJob
	// Report says what the reader read, kept and left out.
	Report TraceReport
}

// Drop reasons of the trace readers: rows the trace itself marks as not
// a GPU job, counted in TraceReport.Dropped rather than refused.
const (
	// TraceDropZeroGPUs: the job asked for no GPU (a CPU job).
	TraceDropZeroGPUs = "zero GPUs"
	// TraceDropNoRunTime: the job never ran (no start or end time, or an
	// empty duration), as cancelled-while-queued jobs are written.
	TraceDropNoRunTime = "never ran"
)

// TraceReport tells what a trace reader read, kept and left out.
type TraceReport struct {
	// File names the input (or inputs, for traces of several files).
	File string `json:"file"`
	// Rows is the number of job rows read; Kept of them are in the table.
	Rows int `json:"rows"`
	Kept int `json:"kept"`
	// Dropped counts the rows left out, by reason (TraceDropZeroGPUs, …).
	Dropped map[string]int `json:"dropped,omitempty"`
	// Examples holds the first dropped row of each reason, as
	// "file:line: reason".
	Examples []string `json:"examples,omitempty"`
	// Fractional counts the kept jobs that asked for a fraction of a GPU
	// (PAI's plan_gpu below 100 per instance), each such instance given a
	// whole GPU.
	Fractional int `json:"fractional_gpu_jobs,omitempty"`
	// Notes are further remarks of the reader (e.g. rows it joined).
	Notes []string `json:"notes,omitempty"`
}

// drop counts a dropped row.
func (r *TraceReport) drop(file string, line int, reason string) {
	if r.Dropped == nil {
		r.Dropped = map[string]int{}
	}
	if r.Dropped[reason] == 0 {
		r.Examples = append(r.Examples, fmt.Sprintf("%s:%d: %s", file, line, reason))
	}
	r.Dropped[reason]++
}

// String formats the report for people, one count per line.
func (r *TraceReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d jobs read, %d kept, %d left out\n", r.File, r.Rows, r.Kept, r.Rows-r.Kept)
	reasons := make([]string, 0, len(r.Dropped))
	for k := range r.Dropped {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(&b, "  left out, %-12s %d\n", k+":", r.Dropped[k])
	}
	if r.Fractional > 0 {
		fmt.Fprintf(&b, "  fractional GPU requests rounded up to whole GPUs: %d jobs\n", r.Fractional)
	}
	for _, e := range r.Examples {
		fmt.Fprintf(&b, "  first: %s\n", e)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	return b.String()
}
