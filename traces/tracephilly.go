package traces

import (
	"fmt"
	"sort"
	"strings"
)

// PhillyTrace turns a reduced Philly table (ReadPhilly) into a trace
// table, row for row in file order: Submit = seconds after the earliest
// timestamp (Start), VC = the cluster column, GPUs and duration as they
// are. The reduced table has no job id, status or user.
func PhillyTrace(t *PhillyTable) *TraceTable {
	tt := &TraceTable{Name: t.Source, Format: "philly", Jobs: make([]TraceJob, len(t.Jobs)),
		Report: TraceReport{File: t.Source, Rows: len(t.Jobs), Kept: len(t.Jobs)}}
	for i := range t.Jobs {
		tt.Jobs[i] = phillyTraceJob(&t.Jobs[i])
	}
	if len(tt.Jobs) > 0 {
		shiftToStart(tt)
	}
	return tt
}

// phillyTraceJob is a Philly row as a trace job, its submission in Unix
// seconds (shiftToStart makes it relative).
func phillyTraceJob(j *PhillyJob) TraceJob {
	return TraceJob{Submit: float64(j.Submitted.Unix()), GPUs: j.GPUs, Duration: j.Duration, VC: j.Cluster, Line: j.Line}
}

// ReadPhillyTrace reads a reduced Philly table (see ReadPhilly) as a trace
// table (see PhillyTrace); warnings are ReadPhilly's.
func ReadPhillyTrace(path string) (*TraceTable, []string, error) {
	t, warnings, err := ReadPhilly(path)
	if err != nil {
		return nil, nil, err
	}
	return PhillyTrace(t), warnings, nil
}

// ReadPhillyLogTrace reads Philly's cluster_job_log as a stream (see
// DecodePhillyLog, whose definitions of duration and GPUs it keeps) into a
// trace table, one job in memory at a time besides the table. The log's drop counts become the report's (zero GPUs among
// them), and its kept jobs' statuses a note: the reduced rows carry no
// per-job status.
func ReadPhillyLogTrace(path string) (*TraceTable, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &TraceTable{Name: path, Report: TraceReport{File: path}}
	rep, err := DecodePhillyLog(f, path, func(j PhillyJob) error {
		if len(t.Jobs) >= MaxTraceRows {
			return fmt.Errorf("more than %d jobs", MaxTraceRows)
		}
		t.Jobs = append(t.Jobs, phillyTraceJob(&j))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.Jobs) == 0 {
		return nil, &InputError{File: path, Err: fmt.Errorf("no job could be kept (%d read)", rep.Jobs)}
	}
	shiftToStart(t)
	t.Format = "philly-log"
	t.Report.Rows, t.Report.Kept = rep.Jobs, len(t.Jobs)
	for _, reason := range DropReasons() {
		if n := rep.Dropped[reason]; n > 0 {
			if t.Report.Dropped == nil {
				t.Report.Dropped = map[string]int{}
			}
			t.Report.Dropped[string(reason)] = n
		}
	}
	t.Report.Examples = rep.Examples
	if len(rep.KeptByStatus) > 0 {
		var parts []string
		for s, n := range rep.KeptByStatus {
			parts = append(parts, fmt.Sprintf("%s %d", s, n))
		}
		sort.Strings(parts)
		t.Report.Notes = append(t.Report.Notes, "kept jobs by final status: "+strings.Join(parts, ", "))
	}
	return t, nil
}
