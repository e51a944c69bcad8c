package elasticflow

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Job is one job of an ElasticFlow artifact trace.
type Job struct {
	// ID is the trace's job_id.
	ID string
	// Submit is the submission time in seconds (submit_time or
	// submission_time).
	Submit float64
	// Iterations is the job's training length in iterations at its batch
	// size (iteration or num_iteration).
	Iterations float64
	// Model is the artifact's model_name, e.g. "cifar10" or "bert".
	Model string
	// Deadline is the absolute deadline in seconds (ddl or deadline); 0
	// for a best-effort job (best_effort = 1, as the artifact's jobs.py
	// reads it).
	Deadline float64
	// Batch is the job's global batch size (batch_size).
	Batch int
	// GPUs is the number of GPUs it requested (num_gpu).
	GPUs int
	// Duration is the job's run time in seconds on its requested GPUs
	// (duration): the time over which the artifact drew its deadline.
	Duration float64
	// Line is the job's 1-based line in the file.
	Line int
}

// Factor is the job's deadline tightness in the artifact: the time from
// submission to deadline over its run time (uniform in [0.5, 1.5] by the
// artifact's trace generators). It is 0 for a best-effort job.
func (j Job) Factor() float64 {
	if j.Deadline == 0 || j.Duration <= 0 {
		return 0
	}
	return (j.Deadline - j.Submit) / j.Duration
}

// maxJobs bounds what ReadTrace accepts: the largest ITP cluster has
// 15,801 jobs.
const maxJobs = 1 << 20

// fields lists the fields in the order their columns are looked for.
var fields = []string{"id", "submit", "iterations", "model", "deadline", "batch", "gpus", "duration"}

// columns maps each field to the header names the artifact's traces use
// for it (its scheduler's jobs.py accepts both spellings).
var columns = map[string][]string{
	"id":         {"job_id"},
	"submit":     {"submit_time", "submission_time"},
	"iterations": {"iteration", "num_iteration"},
	"model":      {"model_name"},
	"deadline":   {"ddl", "deadline"},
	"batch":      {"batch_size"},
	"gpus":       {"num_gpu"},
	"duration":   {"duration"},
}

// ReadTrace reads an ElasticFlow artifact trace (CSV with the columns
// job_id, submit_time, iteration, model_name, ddl, batch_size, num_gpu,
// duration, or the ITP spelling submission_time, num_iteration, deadline;
// an optional best_effort column). name is used in messages. A bad cell
// is an error naming the file, line and column.
func ReadTrace(r io.Reader, name string) ([]Job, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file, want a header", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	at := map[string]int{}
	for i, h := range head {
		at[strings.TrimSpace(h)] = i
	}
	col := map[string]int{}
	for _, f := range fields {
		names := columns[f]
		col[f] = -1
		for _, n := range names {
			if i, ok := at[n]; ok {
				col[f] = i
			}
		}
		if col[f] < 0 {
			return nil, fmt.Errorf("%s:1: no column %s", name, strings.Join(names, " or "))
		}
	}
	be, hasBE := at["best_effort"]
	var jobs []Job
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(jobs) >= maxJobs {
			return nil, fmt.Errorf("%s:%d: more than %d jobs", name, line, maxJobs)
		}
		num := func(f string, min float64) (float64, error) {
			s := strings.TrimSpace(rec[col[f]])
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < min {
				return 0, fmt.Errorf("%s:%d: column %s: %q is not a number >= %g", name, line, columns[f][0], s, min)
			}
			return v, nil
		}
		j := Job{ID: rec[col["id"]], Model: strings.TrimSpace(rec[col["model"]]), Line: line}
		var g, b float64
		if j.Submit, err = num("submit", 0); err == nil {
			if j.Iterations, err = num("iterations", 1); err == nil {
				if j.Deadline, err = num("deadline", 0); err == nil {
					if b, err = num("batch", 1); err == nil {
						if g, err = num("gpus", 1); err == nil {
							j.Duration, err = num("duration", 0)
						}
					}
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if j.Model == "" {
			return nil, fmt.Errorf("%s:%d: column model_name is empty", name, line)
		}
		if g != math.Trunc(g) || b != math.Trunc(b) || g > 1<<20 || b > 1<<30 {
			return nil, fmt.Errorf("%s:%d: num_gpu and batch_size must be whole numbers in range", name, line)
		}
		j.GPUs, j.Batch = int(g), int(b)
		if hasBE && strings.TrimSpace(rec[be]) == "1" {
			j.Deadline = 0
		}
		if j.Deadline != 0 && j.Deadline <= j.Submit {
			return nil, fmt.Errorf("%s:%d: deadline %g is not after submission %g", name, line, j.Deadline, j.Submit)
		}
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs", name)
	}
	return jobs, nil
}
