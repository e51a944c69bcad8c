package traces

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Validate checks a workload before a simulation starts. Every job must
// have a non-empty, unique name in valid UTF-8, a finite time ≥ 0 not before the previous
// job's, an application, num_replicas and batch_size of at least 1, and a
// deadline that is finite and positive, or 0 (none).
// When apps is not empty, every job's application must be one of them;
// when totalGPUs > 0, no job may ask for more GPUs than the cluster has.
//
// Problems are *InputError values naming the workload's source, the job's
// line when it was read from a file, and the job; up to ten are reported,
// joined.
func Validate(w *Workload, apps []string, totalGPUs int) error {
	if w == nil {
		return errors.New("no workload")
	}
	if len(w.Jobs) == 0 {
		return &InputError{File: w.Source, Err: errors.New("workload has no jobs")}
	}
	known := nameSet(apps)
	seen := make(map[string]int, len(w.Jobs))
	var errs errorList
	for i := range w.Jobs {
		j := &w.Jobs[i]
		bad := func(column, format string, args ...any) bool {
			label := j.Name
			if label == "" {
				label = fmt.Sprintf("#%d", i+1)
			}
			return errs.add(&InputError{File: w.Source, Line: j.Line, Job: label, Column: column,
				Err: fmt.Errorf(format, args...)})
		}
		switch {
		case j.Name == "":
			bad(ColName, "empty job name")
		case !utf8.ValidString(j.Name):
			bad(ColName, "name %q is not valid UTF-8", j.Name)
		case !cleanText(j.Name):
			bad(ColName, "name %q has control characters or surrounding spaces", j.Name)
		default:
			if prev, dup := seen[j.Name]; dup {
				bad(ColName, "duplicate job name (also job #%d)", prev+1)
			}
			seen[j.Name] = i
		}
		switch {
		case math.IsNaN(j.Time) || math.IsInf(j.Time, 0):
			bad(ColTime, "time %v is not a finite number", j.Time)
		case j.Time < 0:
			bad(ColTime, "negative time %v", j.Time)
		case i > 0 && j.Time < w.Jobs[i-1].Time:
			bad(ColTime, "time %v is before the previous job's %v (jobs must be sorted by time)", j.Time, w.Jobs[i-1].Time)
		}
		switch {
		case j.App == "":
			bad(ColApp, "empty application")
		case !utf8.ValidString(j.App):
			bad(ColApp, "application %q is not valid UTF-8", j.App)
		case !cleanText(j.App):
			bad(ColApp, "application %q has control characters or surrounding spaces", j.App)
		case known != nil && !known[j.App]:
			bad(ColApp, "unknown application %q (known: %s)", j.App, sortedKeys(known))
		}
		switch {
		case j.Replicas < 1:
			bad(ColReplicas, "must be at least 1, got %d", j.Replicas)
		case totalGPUs > 0 && j.Replicas > totalGPUs:
			bad(ColReplicas, "asks for %d GPUs but the cluster has only %d", j.Replicas, totalGPUs)
		}
		if j.Batch < 1 {
			bad(ColBatch, "must be at least 1, got %d", j.Batch)
		}
		if j.Deadline < 0 || math.IsNaN(j.Deadline) || math.IsInf(j.Deadline, 0) {
			bad(ColDeadline, "deadline %v is not a positive finite number of seconds (0: none)", j.Deadline)
		}
		if errs.truncated {
			break
		}
	}
	return errs.err()
}

// cleanText reports whether s is free of control characters and of
// leading or trailing white space, so that it survives a CSV round trip.
func cleanText(s string) bool {
	return strings.TrimSpace(s) == s && strings.IndexFunc(s, unicode.IsControl) < 0
}
