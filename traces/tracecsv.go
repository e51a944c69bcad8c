package traces

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxTraceRows bounds the job rows one trace file may have: the largest
// published traces (Helios Saturn, Acme Seren, PAI 2020) have under two
// million; a file past this is refused with its line rather than filling
// memory.
const MaxTraceRows = 20_000_000

// traceCSV describes a CSV trace format for readTraceCSV.
type traceCSV struct {
	// required columns; the header must have them, in any order (others
	// are ignored).
	required []string
	// headerless is the published column order of files without a header
	// line (PAI's); nil when a header is required.
	headerless []string
	// calendar: the row function returns Submit as Unix seconds; the table
	// is shifted so that its earliest submission is 0 (TraceTable.Start).
	calendar bool
}

// traceRow is one data row of a trace CSV, with its columns by name.
type traceRow struct {
	file  string
	line  int
	rec   []string
	index map[string]int
	names *interner
}

// interner shares the copies of the few distinct values of a column
// (states, users, virtual clusters), so that a table of millions of jobs
// keeps neither a string per job nor the line each was cut from.
type interner struct{ m map[string]string }

// maxInterned bounds the distinct values shared; later ones are copied.
const maxInterned = 1 << 16

func (in *interner) get(s string) string {
	if v, ok := in.m[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(in.m) < maxInterned {
		in.m[v] = v
	}
	return v
}

// name returns the trimmed text of a column of few distinct values
// (state, user, vc, type, GPU type), shared between rows; "" when absent.
func (r *traceRow) name(col string) string { return r.names.get(r.text(col)) }

// id returns the trimmed text of a column, copied out of the line.
func (r *traceRow) id(col string) string { return strings.Clone(r.text(col)) }

// has reports whether the file has the column.
func (r *traceRow) has(col string) bool { _, ok := r.index[col]; return ok }

// cell returns the row's cell of a column ("" when the file lacks it).
func (r *traceRow) cell(col string) cell {
	c := cell{file: r.file, line: r.line, column: col}
	if i, ok := r.index[col]; ok {
		c.text = r.rec[i]
	}
	return c
}

// text returns the trimmed text of a column, "" when absent.
func (r *traceRow) text(col string) string { return strings.TrimSpace(r.cell(col).text) }

// errorf makes an error naming the row's file and line.
func (r *traceRow) errorf(format string, args ...any) error {
	return &InputError{File: r.file, Line: r.line, Err: fmt.Errorf(format, args...)}
}

// rowFunc turns a row into a job, or says why the trace marks it as not a
// GPU job (a TraceDrop… reason), or returns its problem.
type rowFunc func(r *traceRow, rep *TraceReport) (job TraceJob, drop string, err error)

// readTraceCSV reads a CSV trace from in as a stream (lines bounded by
// maxLineBytes, rows by MaxTraceRows) into a table; name is used in
// messages. Malformed rows are *InputError values naming file:line (up to
// ten reported); rows the trace marks as bad are counted in the report.
func readTraceCSV(in io.Reader, name string, spec traceCSV, row rowFunc) (*TraceTable, error) {
	t := &TraceTable{Name: name, Report: TraceReport{File: name}}
	rows, err := scanTraceCSV(in, name, spec, func(r *traceRow) error {
		j, drop, err := row(r, &t.Report)
		switch {
		case err != nil:
			return err
		case drop != "":
			t.Report.drop(name, r.line, drop)
		default:
			j.Line = r.line
			t.Jobs = append(t.Jobs, j)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.Report.Rows, t.Report.Kept = rows, len(t.Jobs)
	if len(t.Jobs) == 0 {
		return nil, &InputError{File: name, Err: fmt.Errorf("no GPU job in the trace (%d rows read%s)", rows, droppedSuffix(&t.Report))}
	}
	if spec.calendar {
		shiftToStart(t)
	}
	return t, nil
}

// scanTraceCSV reads the header and calls fn for every data row of the
// right width; it returns the number of such rows. Errors of fn and of the
// rows' form are collected (up to ten) and returned together.
func scanTraceCSV(in io.Reader, name string, spec traceCSV, fn func(r *traceRow) error) (int, error) {
	cr := csv.NewReader(bufio.NewReaderSize(newLineLimiter(in, maxLineBytes), 1<<16))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	first, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return 0, &InputError{File: name, Line: 1, Err: fmt.Errorf("empty file: expected the header %s", strings.Join(spec.required, ","))}
	}
	if err != nil {
		return 0, csvError(name, err)
	}
	index, width, isHeader, err := traceHeader(first, name, spec)
	if err != nil {
		return 0, err
	}
	var errs errorList
	rows := 0
	names := &interner{m: map[string]string{}}
	handle := func(rec []string, line int) {
		if len(rec) != width {
			errs.add(&InputError{File: name, Line: line, Err: fmt.Errorf("has %d fields, the header has %d", len(rec), width)})
			return
		}
		rows++
		if err := fn(&traceRow{file: name, line: line, rec: rec, index: index, names: names}); err != nil {
			errs.add(err)
		}
	}
	if !isHeader {
		handle(first, 1)
	}
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
		if rows >= MaxTraceRows {
			errs.add(&InputError{File: name, Line: line, Err: fmt.Errorf("more than %d job rows", MaxTraceRows)})
			break
		}
		handle(rec, line)
	}
	return rows, errs.err()
}

// droppedSuffix describes the dropped rows for a message.
func droppedSuffix(r *TraceReport) string {
	if len(r.Dropped) == 0 {
		return ""
	}
	return "; left out: " + strings.Join(r.Examples, "; ")
}

// traceHeader maps column names to positions. The first record is the
// header when it holds every required column; a file of a headerless
// format whose first record has the published width is read with the
// published order.
func traceHeader(first []string, name string, spec traceCSV) (map[string]int, int, bool, error) {
	index := make(map[string]int, len(first))
	dup := ""
	for i, raw := range first {
		col := strings.TrimSpace(raw)
		if i == 0 {
			col = strings.TrimSpace(strings.TrimPrefix(raw, "\ufeff"))
		}
		if j, ok := index[col]; ok && dup == "" {
			dup = fmt.Sprintf("column %q appears twice in the header (fields %d and %d)", col, j+1, i+1)
		}
		index[col] = i
	}
	var missing []string
	for _, c := range spec.required {
		if _, ok := index[c]; !ok {
			missing = append(missing, strconv.Quote(c))
		}
	}
	switch {
	case len(missing) == 0 && dup != "":
		return nil, 0, false, &InputError{File: name, Line: 1, Err: errors.New(dup)}
	case len(missing) == 0:
		return index, len(first), true, nil
	case spec.headerless != nil && len(first) == len(spec.headerless):
		index = make(map[string]int, len(spec.headerless))
		for i, c := range spec.headerless {
			index[c] = i
		}
		return index, len(first), false, nil
	}
	msg := fmt.Sprintf("missing column %s (the header must have %s, in any order)", strings.Join(missing, ", "), strings.Join(spec.required, ","))
	if spec.headerless != nil {
		msg += fmt.Sprintf(", or a headerless file must have the %d published columns %s", len(spec.headerless), strings.Join(spec.headerless, ","))
	}
	return nil, 0, false, &InputError{File: name, Line: 1, Err: errors.New(msg)}
}

// shiftToStart makes a calendar trace's submissions seconds from its
// earliest one, recorded as Start. Times before 2000 are not taken for
// dates (PAI's seconds count from an offset of the trace's own): the
// submissions are shifted all the same, and Start stays zero.
func shiftToStart(t *TraceTable) {
	first := math.Inf(1)
	for i := range t.Jobs {
		first = math.Min(first, t.Jobs[i].Submit)
	}
	for i := range t.Jobs {
		t.Jobs[i].Submit -= first
	}
	if first < firstDate {
		return
	}
	sec, frac := math.Modf(first)
	t.Start = time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
}

// firstDate is 2000-01-01 in Unix seconds: earlier "Unix" times are
// offsets, not dates.
const firstDate = 946684800

// Time formats of trace columns (TraceTime layouts, ColumnMapping.TimeFormat).
const (
	// TimeDateTime is a calendar time "2006-01-02 15:04:05" (Helios, Acme,
	// Philly), optionally with fractional seconds, a 'T' and a zone.
	TimeDateTime = "datetime"
	// TimeSeconds is a number of seconds from the trace's start (ITP).
	TimeSeconds = "seconds"
	// TimeUnix is a Unix time in seconds, possibly fractional or in
	// exponent form (PAI's "1.5976e+09" style).
	TimeUnix = "unix"
	// TimeUnixMillis is a Unix time in milliseconds.
	TimeUnixMillis = "unix-ms"
)

// maxTraceSeconds bounds times and durations: far beyond any trace (a
// thousand years), small enough that sums of them stay exact enough.
const maxTraceSeconds = 1000 * 365 * 86400.0

// traceTime parses a time cell in a format (TimeDateTime, TimeSeconds,
// TimeUnix, TimeUnixMillis, or a Go layout such as
// "2006-01-02T15:04:05Z07:00") as seconds: from the trace's start for
// TimeSeconds, Unix seconds otherwise.
func traceTime(c cell, format string) (float64, error) {
	s := strings.TrimSpace(c.text)
	switch format {
	case TimeSeconds, TimeUnix, TimeUnixMillis:
		v, err := c.float()
		if err != nil {
			return 0, err
		}
		if format == TimeUnixMillis {
			v /= 1000
		}
		if v < 0 || v > maxTraceSeconds {
			return 0, c.errorf("time %q out of range", s)
		}
		return v, nil
	}
	if s == "" {
		return 0, c.errorf("empty, expected a time")
	}
	if format == TimeDateTime || format == "" {
		if tm, err := parsePhillyTime(s); err == nil && tm.Year() >= 1970 && tm.Year() <= 2999 {
			return float64(tm.Unix()), nil
		}
	}
	layouts := []string{format}
	if format == TimeDateTime || format == "" {
		layouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00"}
	}
	for _, l := range layouts {
		if tm, err := time.Parse(l, s); err == nil {
			if tm.Year() < 1970 || tm.Year() > 2999 {
				return 0, c.errorf("time %q out of range", s)
			}
			return float64(tm.UnixNano()) / 1e9, nil
		}
	}
	want := "2006-01-02 15:04:05"
	if format != TimeDateTime && format != "" {
		want = format
	}
	return 0, c.errorf("%q is not a time of the form %s", s, want)
}

// traceDuration parses a duration in seconds: finite, not negative, at
// most a thousand years.
func traceDuration(c cell) (float64, error) {
	v, err := c.float()
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, c.errorf("negative duration %v", v)
	}
	if v > maxTraceSeconds {
		return 0, c.errorf("duration %v s out of range", v)
	}
	return v, nil
}

// traceGPUs parses a whole GPU count, 0 allowed (the caller drops it).
func traceGPUs(c cell) (int, error) {
	v, err := c.int()
	if err != nil {
		return 0, err
	}
	if v < 0 || v > 1<<24 {
		return 0, c.errorf("GPU count %d out of range", v)
	}
	return v, nil
}
