package traces

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// Column names of the workload CSV format (see ReadFile).
const (
	ColName     = "name"
	ColTime     = "time"
	ColApp      = "application"
	ColReplicas = "num_replicas"
	ColBatch    = "batch_size"
	// ColDeadline is the optional deadline column: seconds after the
	// job's submission (Job.Deadline); an empty cell means none.
	ColDeadline = "deadline"
)

// workloadColumns returns the workload columns in the order WriteFile uses.
func workloadColumns() []string {
	return []string{ColName, ColTime, ColApp, ColReplicas, ColBatch}
}

// ReadOptions tunes ReadFile and Parse.
type ReadOptions struct {
	// Apps, when not empty, lists the known application names; a job
	// naming any other application is an error.
	Apps []string
}

// ReadFile reads a workload CSV file in the reference (adaptdl) format:
// a header with the columns name, time, application, num_replicas and
// batch_size in any order, then one job per line. An optional deadline
// column gives each job's deadline in seconds after its submission, an
// empty cell (or no column) a best-effort job (see docs/deadlines.md).
// Other columns are ignored with a warning.
//
// Every problem is reported as an *InputError naming file:line and the
// column: a missing column, a row with the wrong number of fields, a cell
// that is not a number (or is NaN or infinite), a negative time, a
// num_replicas or batch_size below 1, a deadline that is not a positive
// number of seconds, an empty or duplicate name, a name
// or application that is not valid UTF-8 or has control characters, an
// unknown application (when opts.Apps is given), an empty file or a file
// with no jobs. Up to ten problems are reported at once, joined.
//
// Rows out of time order are not an error: the jobs are sorted by time
// (stably, so jobs submitted at the same second keep their file order) and
// a warning says so. The reference files are already sorted.
func ReadFile(path string, opts ReadOptions) (*Workload, []string, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return Parse(f, path, opts)
}

// Parse reads a workload CSV from r; name is used in messages and as the
// workload's Source. See ReadFile for the format and the checks.
func Parse(r io.Reader, name string, opts ReadOptions) (*Workload, []string, error) {
	cr := csv.NewReader(bufio.NewReader(newLineLimiter(r, maxLineBytes)))
	cr.FieldsPerRecord = -1 // checked here, with a better message
	h, warnings, err := ReadHeader(cr, name, workloadColumns(), ColDeadline)
	if err != nil {
		return nil, nil, err
	}
	known := nameSet(opts.Apps)
	w := &Workload{Source: name, BatchColumn: ColBatch}
	var errs errorList
	firstLine := make(map[string]int)
	for !errs.truncated {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs.add(csvError(name, err))
			break // encoding/csv cannot resynchronise after a quoting error
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != h.width {
			errs.add(&InputError{File: name, Line: line,
				Err: fmt.Errorf("has %d fields, the header has %d", len(rec), h.width)})
			continue
		}
		job, rowErrs := parseJobRow(rec, h, line, known)
		if len(rowErrs) > 0 {
			for _, e := range rowErrs {
				errs.add(e)
			}
			continue
		}
		if prev, dup := firstLine[job.Name]; dup {
			errs.add(&InputError{File: name, Line: line, Column: ColName,
				Err: fmt.Errorf("duplicate job name %q (first on line %d)", job.Name, prev)})
			continue
		}
		firstLine[job.Name] = line
		w.Jobs = append(w.Jobs, job)
	}
	if err := errs.err(); err != nil {
		return nil, nil, err
	}
	if len(w.Jobs) == 0 {
		return nil, nil, &InputError{File: name, Line: 2, Err: errors.New("no jobs: the file has a header only")}
	}
	if !sort.SliceIsSorted(w.Jobs, func(i, j int) bool { return w.Jobs[i].Time < w.Jobs[j].Time }) {
		sort.SliceStable(w.Jobs, func(i, j int) bool { return w.Jobs[i].Time < w.Jobs[j].Time })
		warnings = append(warnings, fmt.Sprintf("%s: rows are not in time order; jobs sorted by time (ties keep file order)", name))
	}
	return w, warnings, nil
}

// parseJobRow converts one data row; it returns every problem of the row.
func parseJobRow(rec []string, h *Header, line int, known map[string]bool) (Job, []error) {
	get := func(col string) cell {
		return cell{file: h.file, line: line, column: col, text: rec[h.index[col]]}
	}
	var errs []error
	job := Job{Line: line}
	nc := get(ColName)
	if job.Name = strings.TrimSpace(nc.text); job.Name == "" {
		errs = append(errs, nc.errorf("empty job name"))
	} else if !utf8.ValidString(job.Name) {
		errs = append(errs, nc.errorf("job name %q is not valid UTF-8", job.Name))
	} else if !cleanText(job.Name) {
		errs = append(errs, nc.errorf("job name %q has control characters", job.Name))
	}
	tc := get(ColTime)
	if t, err := tc.float(); err != nil {
		errs = append(errs, err)
	} else if t < 0 {
		errs = append(errs, tc.errorf("negative time %s", strings.TrimSpace(tc.text)))
	} else {
		job.Time = t
	}
	ac := get(ColApp)
	switch app := strings.TrimSpace(ac.text); {
	case app == "":
		errs = append(errs, ac.errorf("empty application"))
	case !utf8.ValidString(app):
		errs = append(errs, ac.errorf("application %q is not valid UTF-8", app))
	case !cleanText(app):
		errs = append(errs, ac.errorf("application %q has control characters", app))
	case known != nil && !known[app]:
		errs = append(errs, ac.errorf("unknown application %q (known: %s)", app, sortedKeys(known)))
	default:
		job.App = app
	}
	for _, col := range []string{ColReplicas, ColBatch} {
		c := get(col)
		v, err := c.int()
		switch {
		case err != nil:
			errs = append(errs, err)
		case v < 1:
			errs = append(errs, c.errorf("must be at least 1, got %d", v))
		case col == ColReplicas:
			job.Replicas = v
		default:
			job.Batch = v
		}
	}
	if i, ok := h.index[ColDeadline]; ok && strings.TrimSpace(rec[i]) != "" {
		c := get(ColDeadline)
		switch d, err := c.float(); {
		case err != nil:
			errs = append(errs, err)
		case d <= 0:
			errs = append(errs, c.errorf("deadline must be a positive number of seconds after submission, got %s (leave the cell empty for a best-effort job)", strings.TrimSpace(c.text)))
		default:
			job.Deadline = d
		}
	}
	return job, errs
}

// WriteFile writes w to path in the reference CSV format, atomically: the
// file appears complete or not at all. The workload is checked first
// (Validate without applications or cluster size), so a file WriteFile
// writes is always one ReadFile reads back.
func WriteFile(path string, w *Workload) error {
	if err := Validate(w, nil, 0); err != nil {
		return err
	}
	return atomicfile.Write(path, func(out io.Writer) error { return Write(out, w) })
}

// Write writes w in the reference CSV format: the header
// name,time,application,num_replicas,batch_size and one line per job,
// times written as integers when they are whole seconds. When a job has a
// deadline, a last column deadline follows (empty for best-effort jobs);
// a workload without deadlines is written exactly as before deadlines
// existed. It does not check the workload; WriteFile does.
func Write(out io.Writer, w *Workload) error {
	if w == nil {
		return errors.New("no workload to write")
	}
	bw := bufio.NewWriter(out)
	cw := csv.NewWriter(bw)
	cols := workloadColumns()
	deadlines := w.HasDeadlines()
	if deadlines {
		cols = append(cols, ColDeadline)
	}
	if err := cw.Write(cols); err != nil {
		return err
	}
	rec := make([]string, len(cols))
	for _, j := range w.Jobs {
		rec[0] = j.Name
		rec[1] = formatSeconds(j.Time)
		rec[2] = j.App
		rec[3] = strconv.Itoa(j.Replicas)
		rec[4] = strconv.Itoa(j.Batch)
		if deadlines {
			rec[5] = ""
			if j.Deadline > 0 {
				rec[5] = formatSeconds(j.Deadline)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// formatSeconds writes whole seconds as an integer ("107") and anything
// else in the shortest form that reads back exactly ("107.25").
func formatSeconds(t float64) string {
	if t == math.Trunc(t) && math.Abs(t) < 1e15 {
		return strconv.FormatInt(int64(t), 10)
	}
	return strconv.FormatFloat(t, 'f', -1, 64)
}

// nameSet turns a list of names into a set; nil for an empty list.
func nameSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// sortedKeys lists a set's names, sorted, comma-separated.
func sortedKeys(s map[string]bool) string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
