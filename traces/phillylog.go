package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// A DropReason says why the Philly log ingest left a job out of the
// reduced table.
type DropReason string

// Reasons a job of cluster_job_log is dropped, checked in this order.
const (
	// DropMalformed: the record is valid JSON but a field has the wrong
	// type (e.g. "attempts": 5).
	DropMalformed DropReason = "malformed record"
	// DropNoSubmitTime: submitted_time is missing, null, "" or "None".
	DropNoSubmitTime DropReason = "no submission time"
	// DropNoAttempts: the job never got a scheduling attempt.
	DropNoAttempts DropReason = "no attempts"
	// DropNoStartTime: the first attempt has no start_time.
	DropNoStartTime DropReason = "no start time"
	// DropNoEndTime: the last attempt has no end_time (the job was still
	// running when the log was taken, or the end was not logged).
	DropNoEndTime DropReason = "no end time"
	// DropBadTime: a time is present but not of the form 2006-01-02 15:04:05.
	DropBadTime DropReason = "unparseable time"
	// DropZeroGPUs: the first attempt lists no GPUs.
	DropZeroGPUs DropReason = "zero GPUs"
	// DropNegativeDuration: the last attempt ends before the first starts.
	DropNegativeDuration DropReason = "negative duration"
	// DropTooLong: the attempts span more than MaxPhillyDuration, which no
	// job of a cluster log can have run (a mistyped year, a clock reset).
	DropTooLong DropReason = "duration over a year"
)

// MaxPhillyDuration bounds the duration of a kept job: the Philly log
// covers a few months, and longer spans than a time.Duration can hold
// (292 years) would otherwise saturate silently.
const MaxPhillyDuration = 365 * 24 * time.Hour

// DropReasons lists every DropReason in the order they are checked.
func DropReasons() []DropReason {
	return []DropReason{DropMalformed, DropNoSubmitTime, DropNoAttempts, DropNoStartTime,
		DropNoEndTime, DropBadTime, DropZeroGPUs, DropNegativeDuration, DropTooLong}
}

// LogReport tells what the Philly log ingest read, kept and dropped.
type LogReport struct {
	// File names the log.
	File string
	// Jobs is the number of job records read; Kept of them made a row.
	Jobs, Kept int
	// Dropped counts the other jobs by reason.
	Dropped map[DropReason]int
	// KeptByStatus counts kept jobs by their final status (Pass, Killed,
	// Failed, ...).
	KeptByStatus map[string]int
	// Examples holds the first dropped job of each reason, as
	// "file:line: job <jobid>: <reason>".
	Examples []string
}

// String formats the report for people, one count per line.
func (r *LogReport) String() string {
	var b strings.Builder
	dropped := r.Jobs - r.Kept
	fmt.Fprintf(&b, "%s: %d jobs read, %d kept, %d dropped\n", r.File, r.Jobs, r.Kept, dropped)
	for _, reason := range DropReasons() {
		if n := r.Dropped[reason]; n > 0 {
			fmt.Fprintf(&b, "  dropped, %-20s %d\n", string(reason)+":", n)
		}
	}
	if len(r.KeptByStatus) > 0 {
		statuses := make([]string, 0, len(r.KeptByStatus))
		for s := range r.KeptByStatus {
			statuses = append(statuses, s)
		}
		sort.Strings(statuses)
		parts := make([]string, len(statuses))
		for i, s := range statuses {
			name := s
			if name == "" {
				name = "(none)"
			}
			parts[i] = fmt.Sprintf("%s %d", name, r.KeptByStatus[s])
		}
		fmt.Fprintf(&b, "  kept by status: %s\n", strings.Join(parts, ", "))
	}
	if len(r.Examples) > 0 {
		b.WriteString("  first dropped job of each reason:\n")
		for _, e := range r.Examples {
			fmt.Fprintf(&b, "    %s\n", e)
		}
	}
	return b.String()
}

// logJob is one record of cluster_job_log. Only the fields we use are
// decoded; others are skipped.
type logJob struct {
	JobID     string      `json:"jobid"`
	VC        string      `json:"vc"`
	Status    string      `json:"status"`
	Submitted logTime     `json:"submitted_time"`
	Attempts  logAttempts `json:"attempts"`
}

// logAttempts is a job's attempts as the reduction uses them: the first,
// the last and their number. It is decoded one attempt at a time, so a
// job with millions of attempts holds two (2 million took 1.57 GB). The
// number of attempts has no limit of its own: the record's (maxRecordBytes)
// allows at most 1.4 million, "{}" and a comma each, and memory does not
// grow with their number.
type logAttempts struct {
	first, last logAttempt
	n           int
}

func (a *logAttempts) UnmarshalJSON(b []byte) error {
	*a = logAttempts{}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[[]logAttempt](), Field: "attempts"}
	}
	for dec.More() {
		var at logAttempt
		if err := dec.Decode(&at); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = "attempts." + te.Field
			}
			return err
		}
		if a.n == 0 {
			a.first = at
		}
		a.last = at
		a.n++
	}
	return nil
}

// jsonKind names the kind of JSON value b starts with, as
// json.UnmarshalTypeError's Value does.
func jsonKind(b []byte) string {
	switch b = bytes.TrimSpace(b); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '"':
		return "string"
	case b[0] == '{':
		return "object"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "number"
}

type logAttempt struct {
	Start  logTime     `json:"start_time"`
	End    logTime     `json:"end_time"`
	Detail []logDetail `json:"detail"`
}

type logDetail struct {
	GPUs []json.RawMessage `json:"gpus"`
}

// logTime is a time of the log: a string in PhillyTimeLayout, or one of
// null, "", "None" for a missing time. It never fails to decode, so one
// odd time drops one job rather than the whole ingest.
type logTime struct {
	t       time.Time
	present bool // a value other than null/""/"None"
	ok      bool // present and parsed
}

func (lt *logTime) UnmarshalJSON(b []byte) error {
	*lt = logTime{}
	var s string
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	lt.present = true
	if err := json.Unmarshal(b, &s); err != nil {
		return nil // not a string: present but unparseable
	}
	if s == "" || s == "None" {
		lt.present = false
		return nil
	}
	if t, err := parsePhillyTime(s); err == nil {
		lt.t, lt.ok = t, true
	}
	return nil
}

// reduce turns a log record into a table row, or says why it cannot.
//
// Definitions (those of the trace authors' analysis notebook in
// msr-fiddle/philly-traces): duration = end of the last attempt − start of
// the first attempt, so it includes the gaps between retries; GPUs = the
// GPUs of the first attempt (summed over its servers); GPU time =
// duration × GPUs; times are naive cluster-local times, subtracted as is.
func (j *logJob) reduce() (PhillyJob, DropReason) {
	if !j.Submitted.present {
		return PhillyJob{}, DropNoSubmitTime
	}
	if j.Attempts.n == 0 {
		return PhillyJob{}, DropNoAttempts
	}
	first, last := &j.Attempts.first, &j.Attempts.last
	if !first.Start.present {
		return PhillyJob{}, DropNoStartTime
	}
	if !last.End.present {
		return PhillyJob{}, DropNoEndTime
	}
	if !j.Submitted.ok || !first.Start.ok || !last.End.ok {
		return PhillyJob{}, DropBadTime
	}
	gpus := 0
	for _, d := range first.Detail {
		gpus += len(d.GPUs)
	}
	if gpus == 0 {
		return PhillyJob{}, DropZeroGPUs
	}
	span := last.End.t.Sub(first.Start.t) // saturates beyond ±292 years
	if span < 0 {
		return PhillyJob{}, DropNegativeDuration
	}
	if span > MaxPhillyDuration {
		return PhillyJob{}, DropTooLong
	}
	dur := span.Seconds()
	return PhillyJob{
		Submitted: j.Submitted.t,
		Duration:  dur,
		GPUs:      gpus,
		GPUTime:   dur * float64(gpus),
		Cluster:   j.VC,
	}, ""
}

// DecodePhillyLog decodes Philly's cluster_job_log from r as a stream (one
// job record in memory at a time, so multi-gigabyte logs are fine) and
// calls emit with the reduced row of every job it keeps, in log order;
// name is used in messages. The log is one JSON array of job objects; a
// stream of objects (JSON Lines) is accepted too.
//
// A row is: timestamp = submitted_time; duration = end of the last attempt
// − start of the first (retry gaps included); num_gpus = the GPUs of the
// first attempt, summed over its servers; gpu_time = duration × num_gpus;
// cluster = vc. These are the definitions of the trace authors' analysis
// notebook (msr-fiddle/philly-traces). Times have no zone and are
// subtracted as written. Jobs that cannot make a row are counted in the
// report by DropReason, with the file:line of the first of each reason.
//
// A JSON syntax error, a truncated file or an error from emit stops the
// decoding with an *InputError naming file:line; the report then covers
// the jobs read so far.
func DecodePhillyLog(r io.Reader, name string, emit func(PhillyJob) error) (*LogReport, error) {
	rep := &LogReport{File: name, Dropped: map[DropReason]int{}, KeptByStatus: map[string]int{}}
	rec := &recorder{r: r}
	first, at, err := rec.peekNonSpace()
	if errors.Is(err, io.EOF) {
		return rep, &InputError{File: name, Line: 1, Err: errors.New("empty file: expected a JSON array of jobs")}
	}
	if err != nil {
		return rep, &InputError{File: name, Err: err}
	}
	if first != '[' && first != '{' {
		return rep, &InputError{File: name, Line: rec.lineAt(at),
			Err: fmt.Errorf("expected a JSON array of jobs, found %q", first)}
	}
	s := &logStream{name: name, rec: rec, dec: json.NewDecoder(rec), rep: rep}
	array := first == '['
	if array {
		if _, err := s.dec.Token(); err != nil {
			return rep, s.syntaxError(err)
		}
	}
	for s.dec.More() {
		if err := s.next(emit); err != nil {
			return rep, err
		}
	}
	if array {
		if _, err := s.dec.Token(); err != nil { // the closing ']'
			return rep, s.syntaxError(err)
		}
	}
	if _, err := s.dec.Token(); !errors.Is(err, io.EOF) {
		return rep, &InputError{File: name, Line: s.line(), Err: errors.New("unexpected data after the JSON array")}
	}
	return rep, nil
}

// logStream is the decoder state of DecodePhillyLog.
type logStream struct {
	name string
	rec  *recorder
	dec  *json.Decoder
	rep  *LogReport
}

// next decodes one job record and emits its row or counts its drop.
func (s *logStream) next(emit func(PhillyJob) error) error {
	from := s.dec.InputOffset() // at the separating ',' or the record
	var j logJob
	err := s.dec.Decode(&j)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return s.syntaxError(err)
	}
	// The whole record has been read now, so its first byte is known.
	line := s.rec.lineAt(s.rec.skip(from, " \t\r\n,"))
	s.rep.Jobs++
	if te != nil {
		s.drop(line, &j, DropMalformed, fmt.Sprintf("field %q: unexpected JSON %s", te.Field, te.Value))
		return nil
	}
	row, reason := j.reduce()
	if reason != "" {
		s.drop(line, &j, reason, "")
		return nil
	}
	row.Line = line
	s.rep.Kept++
	s.rep.KeptByStatus[echo(j.Status)]++
	if err := emit(row); err != nil {
		return &InputError{File: s.name, Line: line, Job: echo(j.JobID), Err: err}
	}
	return nil
}

// maxEcho bounds the bytes of a value of the log that a report or
// message repeats (a 419 MB job id was echoed whole).
const maxEcho = 64

// echo is s as a report repeats it: at most maxEcho bytes, cut at a rune
// boundary and marked "..." when cut.
func echo(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (%d bytes)", len(s))
}

func (s *logStream) drop(line int, j *logJob, reason DropReason, detail string) {
	if s.rep.Dropped[reason] == 0 {
		id := echo(j.JobID)
		if id == "" {
			id = fmt.Sprintf("#%d", s.rep.Jobs)
		}
		ex := fmt.Sprintf("%s:%d: job %s: %s", s.name, line, id, reason)
		if detail != "" {
			ex += " (" + detail + ")"
		}
		s.rep.Examples = append(s.rep.Examples, ex)
	}
	s.rep.Dropped[reason]++
}

// line returns the line of the next value the decoder will read.
func (s *logStream) line() int {
	return s.rec.lineAt(s.rec.skip(s.dec.InputOffset(), " \t\r\n,"))
}

// syntaxError reports a decoding error at the line where it happened. The
// failing value is still held by the recorder, so it is decoded again on
// its own to find the offset of the error within it.
func (s *logStream) syntaxError(err error) error {
	at := s.rec.skip(s.dec.InputOffset(), " \t\r\n,")
	line := s.rec.lineAt(at)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &InputError{File: s.name, Line: line, Err: errors.New("unexpected end of file: the JSON is truncated")}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		rest := s.rec.from(at)
		var v any
		var se2 *json.SyntaxError
		if err2 := json.NewDecoder(bytes.NewReader(rest)).Decode(&v); errors.As(err2, &se2) && se2.Offset <= int64(len(rest)) {
			line += bytes.Count(rest[:se2.Offset], []byte{'\n'})
		}
		return &InputError{File: s.name, Line: line, Err: fmt.Errorf("invalid JSON: %s", se.Error())}
	}
	return &InputError{File: s.name, Line: line, Err: err}
}

// IngestPhillyLog reads the cluster_job_log at path and returns the reduced
// table and the report. See DecodePhillyLog.
func IngestPhillyLog(path string) (*PhillyTable, *LogReport, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t := &PhillyTable{Source: path}
	rep, err := DecodePhillyLog(f, path, func(j PhillyJob) error {
		t.Jobs = append(t.Jobs, j)
		return nil
	})
	if err != nil {
		return nil, rep, err
	}
	return t, rep, nil
}

// ConvertPhillyLog streams the cluster_job_log at logPath into a reduced
// table at outPath (see WritePhilly for the format) without holding the
// jobs in memory. The output is written atomically: on any error nothing
// is left at outPath. A log from which no job is kept is an error.
func ConvertPhillyLog(logPath, outPath string) (*LogReport, error) {
	f, err := openInput(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rep *LogReport
	err = atomicfile.Write(outPath, func(out io.Writer) error {
		pw := newPhillyWriter(out)
		var err error
		rep, err = DecodePhillyLog(f, logPath, func(j PhillyJob) error { return pw.write(&j) })
		if err != nil {
			return err
		}
		if rep.Kept == 0 {
			return &InputError{File: logPath, Err: fmt.Errorf("no job could be kept (%d read)", rep.Jobs)}
		}
		return pw.flush()
	})
	return rep, err
}
