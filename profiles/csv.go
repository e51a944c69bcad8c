package profiles

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/flagvalue"
)

// This file reads the three CSV tables of the reference format. Every
// error names the file, the line and, for a bad cell, the column, as
// "file:line:col: message". Blank lines are skipped (as pandas does); a
// header may list the columns in any order and carry extra columns.

// Column names of the reference format.
var (
	placementColumns   = []string{"placement", "local_bsz", "step_time", "sync_time"}
	scalabilityColumns = []string{"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}
	validationColumns  = []string{"progress", "iteration", "metric", "grad_sqr", "grad_var"}
)

// maxPlacementDigits bounds the nodes of a measured placement: one digit per
// node, so a placement id stays a reasonable string.
const maxPlacementDigits = 32

// PlacementRow is one row of placements.csv: the step and sync time of a
// measured placement at one per-GPU batch size.
type PlacementRow struct {
	// Placement holds the GPUs used on each node, normalised to its
	// lexicographically smallest cyclic rotation.
	Placement []int
	Local     float64
	Step      float64
	Sync      float64
	// Line is the row's line in its file.
	Line int
}

// ScalabilityRow is one row of scalability.csv.
type ScalabilityRow struct {
	Nodes, Replicas int
	Local           float64
	Step            float64
	Sync            float64
	Line            int
}

// ValidationRow is one row of validation-<B>.csv: the state at the end of
// one epoch of a training run at a fixed total batch size.
type ValidationRow struct {
	Progress  float64
	Iteration float64
	Metric    float64
	GradSqr   float64
	GradVar   float64
}

// csvError is the error of one position of one file.
func csvError(file string, line, col int, format string, args ...any) error {
	if col > 0 {
		return fmt.Errorf("%s:%d:%d: %s", file, line, col, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
}

// tableReader walks the rows of one CSV file, giving each requested column
// of each row by name.
type tableReader struct {
	file string
	r    *csv.Reader
	cols []int // index in the record of each wanted column
	want []string
	rec  []string
	line int
}

// newTableReader reads the header of a CSV file and locates the wanted
// columns in it.
func newTableReader(file string, data []byte, want []string) (*tableReader, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s:1: empty file, want a header with columns %s", file, strings.Join(want, ","))
	}
	if err != nil {
		return nil, wrapCSVError(file, err)
	}
	line, _ := r.FieldPos(0)
	idx := map[string]int{}
	for i, h := range header {
		name := strings.TrimSpace(h)
		if _, dup := idx[name]; dup {
			_, col := r.FieldPos(i)
			return nil, csvError(file, line, col, "column %q appears twice in the header", name)
		}
		idx[name] = i
	}
	tr := &tableReader{file: file, r: r, want: want, cols: make([]int, len(want)), line: line}
	for k, name := range want {
		i, ok := idx[name]
		if !ok {
			return nil, csvError(file, line, 0, "missing column %q (header has %s; want %s)",
				name, strings.Join(header, ","), strings.Join(want, ","))
		}
		tr.cols[k] = i
	}
	return tr, nil
}

// wrapCSVError turns an encoding/csv error into a file:line:col error.
func wrapCSVError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return csvError(file, pe.Line, pe.Column, "%v", pe.Err)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// next advances to the next row; it returns false at the end of the file.
func (t *tableReader) next() (bool, error) {
	rec, err := t.r.Read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, wrapCSVError(t.file, err)
	}
	t.rec = rec
	t.line, _ = t.r.FieldPos(0)
	for k, i := range t.cols {
		if i >= len(rec) {
			return false, csvError(t.file, t.line, 0, "row has %d fields, column %q is missing", len(rec), t.want[k])
		}
	}
	return true, nil
}

// cell returns the raw text of wanted column k of the current row and its
// byte column.
func (t *tableReader) cell(k int) (string, int) {
	i := t.cols[k]
	_, col := t.r.FieldPos(i)
	return strings.TrimSpace(t.rec[i]), col
}

// errAt is an error at wanted column k of the current row.
func (t *tableReader) errAt(k int, format string, args ...any) error {
	_, col := t.cell(k)
	return csvError(t.file, t.line, col, "%s: %s", t.want[k], fmt.Sprintf(format, args...))
}

// float parses wanted column k as a finite number.
func (t *tableReader) float(k int) (float64, error) {
	s, _ := t.cell(k)
	if s == "" {
		return 0, t.errAt(k, "empty cell")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && !flagvalue.PlainDecimal(s) {
		// strconv reads "1_0" as 10 and "0x1p4" as 16: plain decimal only.
		return 0, t.errAt(k, "%q is not a plain decimal number", s)
	}
	if err != nil {
		return 0, t.errAt(k, "%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, t.errAt(k, "%q is not a finite number", s)
	}
	return v, nil
}

// maxMeasure bounds times, batch sizes and counts in the tables: larger
// values are certainly mistakes, and the bound keeps interpolation finite.
const maxMeasure = 1e12

// minTarget bounds a training run's progress target (the last progress of
// a validation run, a compact profile's target) from below: one iteration
// at the initial batch size. Smaller targets are certainly mistakes, and
// make metrics relative to a job's run time alone, such as the fairness ρ,
// astronomically large or infinite (a target of 1e-308 gave ρ = +Inf).
const minTarget = 1

// positive parses wanted column k as a number in (0, maxMeasure].
func (t *tableReader) positive(k int) (float64, error) {
	v, err := t.float(k)
	if err == nil && !(v > 0) {
		err = t.errAt(k, "%v must be positive", v)
	}
	if err == nil && v > maxMeasure {
		err = t.errAt(k, "%v is larger than %g", v, maxMeasure)
	}
	return v, err
}

// nonNegative parses wanted column k as a number ≥ 0.
func (t *tableReader) nonNegative(k int) (float64, error) {
	v, err := t.float(k)
	if err == nil && v < 0 {
		err = t.errAt(k, "%v must not be negative", v)
	}
	return v, err
}

// tiny is the smallest step time or per-GPU batch accepted: smaller
// positive values are certainly mistakes and would make ratios overflow.
const tiny = 1e-12

// count parses wanted column k as a positive integer (a whole number,
// possibly written as a float such as "6.0").
func (t *tableReader) count(k int) (int, error) {
	v, err := t.positive(k)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v > 1<<30 {
		return 0, t.errAt(k, "%v is not a whole number of reasonable size", v)
	}
	return int(v), nil
}

// local parses the local_bsz column k: a per-GPU batch size is a whole
// number of samples (8.5 was silently truncated by the limits).
func (t *tableReader) local(k int) (float64, error) {
	v, err := t.count(k)
	return float64(v), err
}

// times parses the step_time and sync_time columns (indices ks, ky):
// step > 0 and 0 ≤ sync ≤ step.
func (t *tableReader) times(ks, ky int) (step, sync float64, err error) {
	if step, err = t.positive(ks); err != nil {
		return 0, 0, err
	}
	if step < tiny {
		return 0, 0, t.errAt(ks, "%v is too small (below %g s)", step, tiny)
	}
	if sync, err = t.nonNegative(ky); err != nil {
		return 0, 0, err
	}
	if sync > step {
		return 0, 0, t.errAt(ky, "%v exceeds step_time %v", sync, step)
	}
	return step, sync, nil
}

// ParsePlacements reads placements.csv (header placement, local_bsz,
// step_time, sync_time). Placements are normalised to their smallest cyclic
// rotation; a (placement, local_bsz) pair may appear only once. file names
// the data in error messages.
func ParsePlacements(file string, data []byte) ([]PlacementRow, error) {
	return parsePlacements(file, data, false)
}

// parsePlacements is ParsePlacements; with average, a repeated
// (placement, local_bsz) pair is merged into its first row by averaging its
// times instead of being an error (the Sia artifact's tables repeat a few
// measurements).
func parsePlacements(file string, data []byte, average bool) ([]PlacementRow, error) {
	t, err := newTableReader(file, data, placementColumns)
	if err != nil {
		return nil, err
	}
	type key struct {
		id    string
		local float64
	}
	seen, index, count := map[key]int{}, map[key]int{}, map[key]int{}
	var rows []PlacementRow
	for {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var row PlacementRow
		row.Line = t.line
		s, _ := t.cell(0)
		if row.Placement, err = parsePlacementID(s); err != nil {
			return nil, t.errAt(0, "%v", err)
		}
		if row.Local, err = t.local(1); err != nil {
			return nil, err
		}
		if row.Step, row.Sync, err = t.times(2, 3); err != nil {
			return nil, err
		}
		k := key{placementKey(row.Placement), row.Local}
		if first, dup := seen[k]; dup {
			if !average {
				return nil, csvError(file, t.line, 0, "duplicate row for placement %s at local_bsz %v (first at line %d)",
					k.id, row.Local, first)
			}
			i := index[k]
			rows[i].Step, rows[i].Sync = mergeMean(rows[i].Step, row.Step, count[k]), mergeMean(rows[i].Sync, row.Sync, count[k])
			count[k]++
			continue
		}
		seen[k] = t.line
		index[k], count[k] = len(rows), 1
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s:%d: no data rows after the header", file, t.line)
	}
	return rows, nil
}

// parsePlacementID reads a placement written as digits, one per node, each
// the GPUs used on that node (1..9), and returns it normalised.
func parsePlacementID(s string) ([]int, error) {
	if s == "" {
		return nil, errors.New("empty cell")
	}
	if len(s) > maxPlacementDigits {
		return nil, fmt.Errorf("%q has more than %d nodes", s, maxPlacementDigits)
	}
	p := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '0':
			return nil, fmt.Errorf("%q: digit 0 at position %d (every node in a placement uses 1..9 GPUs)", s, i+1)
		case c < '1' || c > '9':
			return nil, fmt.Errorf("%q is not a placement (digits 1..9, one per node)", s)
		}
		p[i] = int(c - '0')
	}
	return minRotation(p), nil
}

// ParseScalability reads scalability.csv (header num_nodes, num_replicas,
// local_bsz, step_time, sync_time).
func ParseScalability(file string, data []byte) ([]ScalabilityRow, error) {
	return parseScalability(file, data, false)
}

// mergeMean adds x to the mean m of n values.
func mergeMean(m, x float64, n int) float64 { return m + (x-m)/float64(n+1) }

// parseScalability is ParseScalability; with average, repeated rows are
// averaged as in parsePlacements.
func parseScalability(file string, data []byte, average bool) ([]ScalabilityRow, error) {
	t, err := newTableReader(file, data, scalabilityColumns)
	if err != nil {
		return nil, err
	}
	type key struct {
		n, r  int
		local float64
	}
	seen, index, count := map[key]int{}, map[key]int{}, map[key]int{}
	var rows []ScalabilityRow
	for {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		row := ScalabilityRow{Line: t.line}
		if row.Nodes, err = t.count(0); err != nil {
			return nil, err
		}
		if row.Replicas, err = t.count(1); err != nil {
			return nil, err
		}
		if row.Replicas < row.Nodes {
			return nil, t.errAt(1, "%d replicas cannot span %d nodes", row.Replicas, row.Nodes)
		}
		if row.Local, err = t.local(2); err != nil {
			return nil, err
		}
		if row.Step, row.Sync, err = t.times(3, 4); err != nil {
			return nil, err
		}
		k := key{row.Nodes, row.Replicas, row.Local}
		if first, dup := seen[k]; dup {
			if !average {
				return nil, csvError(file, t.line, 0, "duplicate row for %d nodes, %d replicas at local_bsz %v (first at line %d)",
					k.n, k.r, k.local, first)
			}
			i := index[k]
			rows[i].Step, rows[i].Sync = mergeMean(rows[i].Step, row.Step, count[k]), mergeMean(rows[i].Sync, row.Sync, count[k])
			count[k]++
			continue
		}
		seen[k] = t.line
		index[k], count[k] = len(rows), 1
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s:%d: no data rows after the header", file, t.line)
	}
	return rows, nil
}

// ParseValidation reads one validation-<B>.csv (header progress, iteration,
// metric, grad_sqr, grad_var). Progress and iteration are cumulative: they
// must be non-negative and never decrease, and the last progress (the
// target) must be at least one iteration; grad_sqr and grad_var must be non-negative.
func ParseValidation(file string, data []byte) ([]ValidationRow, error) {
	t, err := newTableReader(file, data, validationColumns)
	if err != nil {
		return nil, err
	}
	var rows []ValidationRow
	for {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var row ValidationRow
		if row.Progress, err = t.nonNegative(0); err != nil {
			return nil, err
		}
		if row.Iteration, err = t.nonNegative(1); err != nil {
			return nil, err
		}
		if row.Metric, err = t.float(2); err != nil {
			return nil, err
		}
		if row.GradSqr, err = t.nonNegative(3); err != nil {
			return nil, err
		}
		if row.GradVar, err = t.nonNegative(4); err != nil {
			return nil, err
		}
		if n := len(rows); n > 0 {
			if row.Progress < rows[n-1].Progress {
				return nil, t.errAt(0, "%v is less than the previous row's %v (progress is cumulative)", row.Progress, rows[n-1].Progress)
			}
			if row.Iteration < rows[n-1].Iteration {
				return nil, t.errAt(1, "%v is less than the previous row's %v (iteration is cumulative)", row.Iteration, rows[n-1].Iteration)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s:%d: no data rows after the header", file, t.line)
	}
	if !(rows[len(rows)-1].Progress > 0) {
		return nil, t.errAt(0, "0 on every row: training never progresses (the last row's progress is the target)")
	}
	if last := rows[len(rows)-1].Progress; last < minTarget {
		return nil, t.errAt(0, "the last row's progress %v (the target) is below %v iteration at the initial batch size, which would make the fairness ρ infinite", last, minTarget)
	}
	return rows, nil
}
