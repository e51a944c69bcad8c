package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/internal/kv"
)

// ColumnMapping says how to read a CSV trace nobody has written a reader
// for: which columns hold the submission time, the GPUs and the duration
// (or the start and end times it is computed from), and how times are
// written. The optional columns fill TraceJob's other fields.
type ColumnMapping struct {
	// File is the CSV file, relative to the mapping file (mapping files
	// only; ReadMappedCSV takes the path).
	File string `json:"file,omitempty"`
	// Submit, GPUs: required columns.
	Submit string `json:"submit"`
	GPUs   string `json:"gpus"`
	// Duration is the run time column in seconds; when empty, Start and
	// End give it (End − Start).
	Duration string `json:"duration,omitempty"`
	Start    string `json:"start,omitempty"`
	End      string `json:"end,omitempty"`
	// TimeFormat is how Submit, Start and End are written: "datetime"
	// (2006-01-02 15:04:05, the default), "seconds" (from the trace's
	// start, kept as is), "unix", "unix-ms", or a Go layout such as
	// "2006-01-02T15:04:05Z07:00". Calendar times are made seconds after
	// the earliest submission.
	TimeFormat string `json:"time_format,omitempty"`
	// Optional columns.
	ID      string `json:"id,omitempty"`
	Status  string `json:"status,omitempty"`
	User    string `json:"user,omitempty"`
	VC      string `json:"vc,omitempty"`
	Nodes   string `json:"nodes,omitempty"`
	GPUType string `json:"gpu_type,omitempty"`
	Type    string `json:"type,omitempty"`
}

// mappingKeys are the keys of ParseColumnMapping, with their fields.
func (m *ColumnMapping) fields() map[string]*string {
	return map[string]*string{"file": &m.File, "submit": &m.Submit, "gpus": &m.GPUs, "duration": &m.Duration,
		"start": &m.Start, "end": &m.End, "time": &m.TimeFormat, "time_format": &m.TimeFormat, "id": &m.ID,
		"status": &m.Status, "user": &m.User, "vc": &m.VC, "nodes": &m.Nodes, "gpu_type": &m.GPUType, "type": &m.Type}
}

// ParseColumnMapping reads a mapping written as a flag value,
// "submit=submit_time,gpus=gpu_num,duration=duration,time=datetime" (keys:
// submit, gpus, duration, start, end, time, id, status, user, vc, nodes,
// gpu_type, type).
func ParseColumnMapping(s string) (ColumnMapping, error) {
	var m ColumnMapping
	f := m.fields()
	for _, item := range strings.Split(s, ",") {
		pair, err := kv.Cut(item)
		p := f[pair.Key]
		if err != nil || p == nil || pair.Value == "" {
			keys := make([]string, 0, len(f))
			for k := range f {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return m, fmt.Errorf("column mapping %q: %q is not KEY=COLUMN (keys: %s)", s, item, strings.Join(keys, ", "))
		}
		*p = pair.Value
	}
	return m, m.validate()
}

// validate checks the mapping names what a trace job needs.
func (m *ColumnMapping) validate() error {
	switch {
	case m.Submit == "" || m.GPUs == "":
		return errors.New("column mapping: submit and gpus columns are required")
	case m.Duration == "" && (m.Start == "" || m.End == ""):
		return errors.New("column mapping: give a duration column, or start and end columns")
	}
	switch m.TimeFormat {
	case "", TimeDateTime, TimeSeconds, TimeUnix, TimeUnixMillis:
	default:
		if !strings.Contains(m.TimeFormat, "2006") {
			return fmt.Errorf("column mapping: time format %q is none of %s, %s, %s, %s nor a Go layout (with 2006 for the year)",
				m.TimeFormat, TimeDateTime, TimeSeconds, TimeUnix, TimeUnixMillis)
		}
	}
	return nil
}

// ReadColumnMapping reads a mapping file: JSON with the keys of
// ColumnMapping, "file" naming the CSV relative to the mapping file.
func ReadColumnMapping(path string) (ColumnMapping, error) {
	var m ColumnMapping
	f, err := openInput(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	data, err := inputfile.ReadAll(f)
	if err != nil {
		return m, &InputError{File: path, Err: err}
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, &InputError{File: path, Err: fmt.Errorf("not a column mapping: %w", err)}
	}
	if err := m.validate(); err != nil {
		return m, &InputError{File: path, Err: err}
	}
	if m.File == "" {
		return m, &InputError{File: path, Err: errors.New(`column mapping: no "file" naming the CSV`)}
	}
	if !filepath.IsAbs(m.File) {
		m.File = filepath.Join(filepath.Dir(path), m.File)
	}
	return m, nil
}

// ReadMappedTrace reads the trace a mapping file describes (see
// ReadColumnMapping): the "csv" format's reader.
func ReadMappedTrace(mappingPath string) (*TraceTable, error) {
	m, err := ReadColumnMapping(mappingPath)
	if err != nil {
		return nil, err
	}
	return ReadMappedCSV(m.File, m)
}

// ReadMappedCSV reads a CSV trace at path by a column mapping (see
// ParseMappedCSV).
func ReadMappedCSV(path string, m ColumnMapping) (*TraceTable, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMappedCSV(f, path, m)
}

// ParseMappedCSV reads a CSV trace from r by a column mapping; name is
// used in messages. GPUs may be fractional: a fraction is rounded up to a
// whole GPU and the job counted (TraceReport.Fractional); 0 GPUs is a CPU
// job, left out and counted, as is a row with an empty duration or end
// time (it never ran).
func ParseMappedCSV(r io.Reader, name string, m ColumnMapping) (*TraceTable, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	format := m.TimeFormat
	if format == "" {
		format = TimeDateTime
	}
	req := []string{m.Submit, m.GPUs}
	if m.Duration != "" {
		req = append(req, m.Duration)
	} else {
		req = append(req, m.Start, m.End)
	}
	for _, c := range []string{m.ID, m.Status, m.User, m.VC, m.Nodes, m.GPUType, m.Type} {
		if c != "" {
			req = append(req, c)
		}
	}
	spec := traceCSV{required: req, calendar: format != TimeSeconds}
	t, err := readTraceCSV(r, name, spec, func(r *traceRow, rep *TraceReport) (TraceJob, string, error) {
		j := TraceJob{ID: r.id(m.ID), Status: r.name(m.Status), User: r.name(m.User), VC: r.name(m.VC),
			GPUType: r.name(m.GPUType), Type: r.name(m.Type)}
		var err error
		if j.Submit, err = traceTime(r.cell(m.Submit), format); err != nil {
			return j, "", err
		}
		g, err := r.cell(m.GPUs).float()
		if err != nil {
			return j, "", err
		}
		if g < 0 || g > 1<<24 {
			return j, "", r.cell(m.GPUs).errorf("GPU count %v out of range", g)
		}
		if m.Nodes != "" && r.text(m.Nodes) != "" {
			if j.Nodes, err = traceGPUs(r.cell(m.Nodes)); err != nil {
				return j, "", err
			}
		}
		if m.Duration != "" {
			if r.text(m.Duration) == "" {
				return j, TraceDropNoRunTime, nil
			}
			if j.Duration, err = traceDuration(r.cell(m.Duration)); err != nil {
				return j, "", err
			}
		} else {
			if r.text(m.Start) == "" || r.text(m.End) == "" {
				return j, TraceDropNoRunTime, nil
			}
			s, err := traceTime(r.cell(m.Start), format)
			if err != nil {
				return j, "", err
			}
			e, err := traceTime(r.cell(m.End), format)
			if err != nil {
				return j, "", err
			}
			if e < s {
				return j, "", r.cell(m.End).errorf("ends before it starts (%s)", r.text(m.Start))
			}
			j.Duration = e - s
		}
		if g == 0 {
			return j, TraceDropZeroGPUs, nil
		}
		j.GPUs = int(math.Ceil(g))
		if float64(j.GPUs) != g {
			rep.Fractional++
		}
		return j, "", nil
	})
	if err != nil {
		return nil, err
	}
	t.Format = "csv"
	return t, nil
}
