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

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// Column names of the reduced Philly table (see ReadPhilly).
const (
	PhillyColTimestamp = "timestamp"
	PhillyColDuration  = "duration"
	PhillyColGPUs      = "num_gpus"
	PhillyColGPUTime   = "gpu_time"
	PhillyColCluster   = "cluster"
)

// PhillyTimeLayout is the layout of Philly's times: local cluster time
// with no zone, e.g. "2017-10-09 07:01:55".
const PhillyTimeLayout = "2006-01-02 15:04:05"

func phillyColumns() []string {
	return []string{PhillyColTimestamp, PhillyColDuration, PhillyColGPUs, PhillyColGPUTime, PhillyColCluster}
}

// PhillyJob is one row of the reduced Philly table: one job of Microsoft's
// Philly trace (msr-fiddle/philly-traces).
type PhillyJob struct {
	// Submitted is the submission time as written in the trace: cluster
	// local time without a zone, held as a UTC time.Time.
	Submitted time.Time
	// Duration is the job's run time in seconds.
	Duration float64
	// GPUs is the number of GPUs the job used.
	GPUs int
	// GPUTime is Duration × GPUs, in GPU-seconds.
	GPUTime float64
	// Cluster is the (hashed) virtual cluster the job ran in.
	Cluster string
	// Line is the job's 1-based line in the file it was read from, 0 if
	// it was not read from a file.
	Line int
}

// PhillyTable is the reduced Philly trace: one row per job, in file order.
type PhillyTable struct {
	// Source names where the table came from.
	Source string
	Jobs   []PhillyJob
}

// ReadPhilly reads a reduced Philly table (the reference's
// traces/philly.csv, or what IngestPhillyLog writes): the header
// timestamp,duration,num_gpus,gpu_time,cluster in any order (extra columns
// are ignored with a warning), then one job per line. Problems are
// *InputError values naming file:line and the column: a timestamp not in
// the layout 2006-01-02 15:04:05, a duration or gpu_time that is negative
// or not a finite number, a num_gpus below 1.
func ReadPhilly(path string) (*PhillyTable, []string, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ParsePhilly(f, path)
}

// ParsePhilly reads a reduced Philly table from r; name is used in
// messages. See ReadPhilly.
func ParsePhilly(r io.Reader, name string) (*PhillyTable, []string, error) {
	cr := csv.NewReader(bufio.NewReaderSize(newLineLimiter(r, maxLineBytes), 1<<16))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	h, warnings, err := ReadHeader(cr, name, phillyColumns())
	if err != nil {
		return nil, nil, err
	}
	t := &PhillyTable{Source: name, Jobs: make([]PhillyJob, 0, 1024)}
	var errs errorList
	iTS, iDur, iGPU, iGT, iCl := h.index[PhillyColTimestamp], h.index[PhillyColDuration],
		h.index[PhillyColGPUs], h.index[PhillyColGPUTime], h.index[PhillyColCluster]
	for !errs.truncated {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs.add(csvError(name, err))
			break
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != h.width {
			errs.add(&InputError{File: name, Line: line,
				Err: fmt.Errorf("has %d fields, the header has %d", len(rec), h.width)})
			continue
		}
		get := func(i int, col string) cell { return cell{file: name, line: line, column: col, text: rec[i]} }
		j := PhillyJob{Line: line, Cluster: strings.TrimSpace(rec[iCl])}
		ok := true
		fail := func(err error) { ok = false; errs.add(err) }
		if ts, err := parsePhillyTime(rec[iTS]); err != nil {
			fail(get(iTS, PhillyColTimestamp).errorf("%q is not a time of the form %s", rec[iTS], PhillyTimeLayout))
		} else {
			j.Submitted = ts
		}
		if v, err := get(iDur, PhillyColDuration).float(); err != nil {
			fail(err)
		} else if v < 0 {
			fail(get(iDur, PhillyColDuration).errorf("negative duration %v", v))
		} else {
			j.Duration = v
		}
		if v, err := get(iGPU, PhillyColGPUs).int(); err != nil {
			fail(err)
		} else if v < 1 {
			fail(get(iGPU, PhillyColGPUs).errorf("must be at least 1, got %d", v))
		} else {
			j.GPUs = v
		}
		if v, err := get(iGT, PhillyColGPUTime).float(); err != nil {
			fail(err)
		} else if v < 0 {
			fail(get(iGT, PhillyColGPUTime).errorf("negative gpu_time %v", v))
		} else {
			j.GPUTime = v
		}
		if ok {
			t.Jobs = append(t.Jobs, j)
		}
	}
	if err := errs.err(); err != nil {
		return nil, nil, err
	}
	if len(t.Jobs) == 0 {
		return nil, nil, &InputError{File: name, Line: 2, Err: errors.New("no jobs: the file has a header only")}
	}
	return t, warnings, nil
}

// parsePhillyTime parses "YYYY-MM-DD HH:MM:SS" quickly, falling back to
// time.Parse (which also validates ranges) for anything unusual.
func parsePhillyTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' {
		y, ok1 := digits(s[0:4])
		mo, ok2 := digits(s[5:7])
		d, ok3 := digits(s[8:10])
		h, ok4 := digits(s[11:13])
		mi, ok5 := digits(s[14:16])
		se, ok6 := digits(s[17:19])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && mo >= 1 && mo <= 12 && d >= 1 && d <= 28 && h < 24 && mi < 60 && se < 60 {
			return time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC), nil
		}
	}
	return time.Parse(PhillyTimeLayout, s)
}

func digits(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// WritePhilly writes t to path atomically in the reduced table's format:
// the header timestamp,duration,num_gpus,gpu_time,cluster, times as
// 2006-01-02 15:04:05 and durations as Python writes floats ("66.0").
func WritePhilly(path string, t *PhillyTable) error {
	if t == nil {
		return errors.New("no Philly table to write")
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		pw := newPhillyWriter(out)
		for i := range t.Jobs {
			if err := pw.write(&t.Jobs[i]); err != nil {
				return err
			}
		}
		return pw.flush()
	})
}

// phillyWriter streams rows of the reduced table.
type phillyWriter struct {
	bw  *bufio.Writer
	cw  *csv.Writer
	rec []string
	err error
}

func newPhillyWriter(out io.Writer) *phillyWriter {
	bw := bufio.NewWriterSize(out, 1<<16)
	pw := &phillyWriter{bw: bw, cw: csv.NewWriter(bw), rec: make([]string, 5)}
	pw.err = pw.cw.Write(phillyColumns())
	return pw
}

func (pw *phillyWriter) write(j *PhillyJob) error {
	if pw.err != nil {
		return pw.err
	}
	pw.rec[0] = j.Submitted.Format(PhillyTimeLayout)
	pw.rec[1] = pyFloat(j.Duration)
	pw.rec[2] = strconv.Itoa(j.GPUs)
	pw.rec[3] = pyFloat(j.GPUTime)
	pw.rec[4] = j.Cluster
	pw.err = pw.cw.Write(pw.rec)
	return pw.err
}

func (pw *phillyWriter) flush() error {
	if pw.err != nil {
		return pw.err
	}
	pw.cw.Flush()
	if err := pw.cw.Error(); err != nil {
		return err
	}
	return pw.bw.Flush()
}

// pyFloat formats v as Python's repr does ("66.0", "0.5", "1e-05",
// "1e+16"), so tables we write look like the reference's.
func pyFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if v == 0 {
		return "0.0"
	}
	e := strconv.FormatFloat(v, 'e', -1, 64) // shortest digits, d.ddde±XX
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
