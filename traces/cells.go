package traces

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/flagvalue"
)

// Header maps the columns a reader needs to their positions in a CSV
// header, in any order (ReadHeader).
type Header struct {
	file  string
	index map[string]int // required (or present optional) column -> position
	width int            // number of header fields
	extra []string       // the other columns, in order
}

// Index is the position of column col, and whether the header has it
// (every required column, an optional one when present).
func (h *Header) Index(col string) (int, bool) {
	i, ok := h.index[col]
	return i, ok
}

// Width is the number of the header's fields; a row of another number
// is malformed.
func (h *Header) Width() int { return h.width }

// Extra is the header's columns that are neither required nor optional,
// in order: ignored, each with a warning, by ReadHeader's caller unless
// it refuses them.
func (h *Header) Extra() []string { return h.extra }

// ReadHeader reads and checks the header line of a CSV file named file,
// the one header reader of polluxsim's own CSV formats (workloads, Philly
// tables, fault logs; public cluster traces, whose columns go by several
// names, have theirs in tracecsv.go): names are trimmed of spaces and case-sensitive, a
// UTF-8 byte-order mark is skipped; every column of required must be there
// exactly once and no column may appear twice; other columns are ignored
// with a warning (Extra lists them), except those of optional, which are
// indexed when present. An empty input is an error. Errors are
// *InputError naming the file and line 1.
func ReadHeader(cr *csv.Reader, file string, required []string, optional ...string) (*Header, []string, error) {
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, &InputError{File: file, Line: 1, Err: fmt.Errorf("empty file: expected the header %s", strings.Join(required, ","))}
	}
	if err != nil {
		return nil, nil, csvError(file, err)
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff") // a UTF-8 byte-order mark
	}
	want := make(map[string]bool, len(required))
	for _, c := range required {
		want[c] = true
	}
	for _, c := range optional {
		want[c] = true
	}
	h := &Header{file: file, index: make(map[string]int, len(required)), width: len(rec)}
	var warnings []string
	seen := make(map[string]int, len(rec))
	for i, raw := range rec {
		name := strings.TrimSpace(raw)
		if j, dup := seen[name]; dup {
			return nil, nil, &InputError{File: file, Line: 1, Column: name,
				Err: fmt.Errorf("appears twice in the header (fields %d and %d)", j+1, i+1)}
		}
		seen[name] = i
		if want[name] {
			h.index[name] = i
		} else {
			h.extra = append(h.extra, name)
			warnings = append(warnings, fmt.Sprintf("%s:1: extra column %q ignored", file, name))
		}
	}
	var missing []string
	for _, c := range required {
		if _, ok := h.index[c]; !ok {
			missing = append(missing, strconv.Quote(c))
		}
	}
	if len(missing) > 0 {
		plural := ""
		if len(missing) > 1 {
			plural = "s"
		}
		return nil, nil, &InputError{File: file, Line: 1,
			Err: fmt.Errorf("missing column%s %s (the header must have %s, in any order)",
				plural, strings.Join(missing, ", "), strings.Join(required, ","))}
	}
	return h, warnings, nil
}

// csvError turns an encoding/csv error into an *InputError with the line.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{File: file, Line: pe.Line, Err: pe.Err}
	}
	var le *longLineError
	if errors.As(err, &le) {
		return &InputError{File: file, Line: le.line, Err: le}
	}
	return &InputError{File: file, Err: err}
}

// cell is one field of a row, with enough context to report a problem.
type cell struct {
	file, column, text string
	line               int
}

func (c cell) errorf(format string, args ...any) error {
	return &InputError{File: c.file, Line: c.line, Column: c.column, Err: fmt.Errorf(format, args...)}
}

// float parses a finite number.
func (c cell) float() (float64, error) {
	s := strings.TrimSpace(c.text)
	if s == "" {
		return 0, c.errorf("empty, expected a number")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && !flagvalue.PlainDecimal(s) {
		// strconv reads "1_0" as 10 and "0x1p4" as 16: plain decimal only.
		return 0, c.errorf("%q is not a plain decimal number", s)
	}
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, c.errorf("%q is out of range", s)
		}
		return 0, c.errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, c.errorf("%q is not a finite number", s)
	}
	return v, nil
}

// maxCount bounds integer cells (GPUs, batch sizes) so that later
// arithmetic cannot overflow.
const maxCount = 1 << 40

// int parses a whole number; an integral decimal such as "4.0" (as pandas
// writes integer columns that once held a missing value) is accepted.
func (c cell) int() (int, error) {
	s := strings.TrimSpace(c.text)
	if s == "" {
		return 0, c.errorf("empty, expected a whole number")
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v > maxCount || v < -maxCount {
			return 0, c.errorf("%q is out of range", s)
		}
		return int(v), nil
	}
	f, err := c.float()
	if err != nil {
		return 0, c.errorf("%q is not a whole number", s)
	}
	if f != math.Trunc(f) {
		return 0, c.errorf("%q is not a whole number", s)
	}
	if f > maxCount || f < -maxCount {
		return 0, c.errorf("%q is out of range", s)
	}
	return int(f), nil
}
