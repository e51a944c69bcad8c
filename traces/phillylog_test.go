package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDecodePhillyLogFixture(t *testing.T) {
	tab, rep, err := IngestPhillyLog(filepath.Join("testdata", "cluster_job_log_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantDropped := map[DropReason]int{
		DropNoAttempts: 1, DropNoSubmitTime: 2, DropNoStartTime: 1, DropNoEndTime: 1,
		DropZeroGPUs: 1, DropNegativeDuration: 1, DropBadTime: 1, DropMalformed: 1,
	}
	if rep.Jobs != 12 || rep.Kept != 3 || !reflect.DeepEqual(rep.Dropped, wantDropped) {
		t.Errorf("report: %d read, %d kept, dropped %v; want 12, 3, %v", rep.Jobs, rep.Kept, rep.Dropped, wantDropped)
	}
	if want := map[string]int{"Pass": 2, "Killed": 1}; !reflect.DeepEqual(rep.KeptByStatus, want) {
		t.Errorf("kept by status %v, want %v", rep.KeptByStatus, want)
	}
	want := []PhillyJob{
		{Submitted: time.Date(2017, 10, 7, 1, 11, 39, 0, time.UTC), Duration: 193263, GPUs: 8, GPUTime: 8 * 193263, Cluster: "ee9e8c", Line: 2},
		{Submitted: time.Date(2017, 10, 9, 7, 1, 55, 0, time.UTC), Duration: 66, GPUs: 3, GPUTime: 198, Cluster: "6214e9", Line: 10},
		{Submitted: time.Date(2017, 12, 22, 8, 2, 11, 0, time.UTC), Duration: 0, GPUs: 1, GPUTime: 0, Cluster: "103959", Line: 40},
	}
	if !reflect.DeepEqual(tab.Jobs, want) {
		t.Errorf("rows\n got %+v\nwant %+v", tab.Jobs, want)
	}
	// The examples name the line and job of the first drop of each reason.
	for _, ex := range []string{
		"cluster_job_log_small.json:14: job application_no_attempts: no attempts",
		"cluster_job_log_small.json:16: job application_submit_none: no submission time",
		"cluster_job_log_small.json:25: job application_still_running: no end time",
		"cluster_job_log_small.json:38: job application_malformed: malformed record",
	} {
		if !strings.Contains(rep.String(), ex) {
			t.Errorf("report lacks %q:\n%s", ex, rep)
		}
	}
	if s := rep.String(); !strings.Contains(s, "12 jobs read, 3 kept, 9 dropped") || !strings.Contains(s, "no submission time:  2") {
		t.Errorf("report:\n%s", s)
	}
}

func TestDecodePhillyLogJSONLines(t *testing.T) {
	in := `{"jobid":"a","vc":"v","status":"Pass","submitted_time":"2017-10-09 07:00:00","attempts":[{"start_time":"2017-10-09 07:00:10","end_time":"2017-10-09 07:10:10","detail":[{"ip":"m1","gpus":["gpu0","gpu1"]}]}]}
{"jobid":"b","vc":"v","status":"Pass","submitted_time":"2017-10-09 07:00:00","attempts":[]}
`
	var rows []PhillyJob
	rep, err := DecodePhillyLog(strings.NewReader(in), "log.jsonl", func(j PhillyJob) error { rows = append(rows, j); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 2 || rep.Kept != 1 || len(rows) != 1 || rows[0].Duration != 600 || rows[0].GPUs != 2 {
		t.Errorf("report %+v rows %+v", rep, rows)
	}
}

func TestDecodePhillyLogErrors(t *testing.T) {
	job := `{"jobid":"a","submitted_time":"2017-10-09 07:00:00","attempts":[]}`
	cases := []struct {
		name, content string
		wants         []string
	}{
		{"empty", "  \n", []string{"log:1:", "empty file"}},
		{"not an array", "\n\n5", []string{"log:3:", "expected a JSON array"}},
		{"syntax error line", "[\n" + job + ",\n" + job + ",\n{\"jobid\": \"c\",\n \"attempts\": [}\n]", []string{"log:5:", "invalid JSON"}},
		{"missing comma", "[\n" + job + "\n" + job + "\n]", []string{"log:3:", "invalid JSON"}},
		{"truncated", "[\n" + job + ",\n{\"jobid\": \"c\", \"attempts\": [", []string{"log:3:", "truncated"}},
		{"trailing data", "[" + job + "]\n]", []string{"log:2:", "after the JSON array"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodePhillyLog(strings.NewReader(c.content), "log", func(PhillyJob) error { return nil })
			wantInputError(t, err, c.wants...)
		})
	}
}

func TestDecodePhillyLogEmitError(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "cluster_job_log_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stop := errors.New("disk full")
	_, err = DecodePhillyLog(f, "log", func(PhillyJob) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("error %v does not wrap the emit error", err)
	}
	wantInputError(t, err, "log:2:", "application_kept_multi", "disk full")
}

// TestDecodePhillyLogStreams shows the decoder emits each job as soon as
// it has read it: the writer sends job i+1 only after job i was emitted,
// which would stall a decoder that read everything first.
func TestDecodePhillyLogStreams(t *testing.T) {
	const n = 50
	pr, pw := io.Pipe()
	emitted := make(chan int, n)
	go func() {
		fmt.Fprint(pw, "[\n")
		for i := 0; i < n; i++ {
			if i > 0 {
				fmt.Fprint(pw, ",\n")
			}
			fmt.Fprintf(pw, `{"jobid":"j%d","vc":"v","status":"Pass","submitted_time":"2017-10-09 07:00:00",`+
				`"attempts":[{"start_time":"2017-10-09 07:00:00","end_time":"2017-10-09 07:01:%02d","detail":[{"ip":"m","gpus":["gpu0"]}]}]}`, i, i)
			select {
			case got := <-emitted:
				if got != i {
					pw.CloseWithError(fmt.Errorf("emitted job %d, want %d", got, i))
					return
				}
			case <-time.After(10 * time.Second):
				pw.CloseWithError(fmt.Errorf("job %d not emitted before the rest of the log was written", i))
				return
			}
		}
		fmt.Fprint(pw, "\n]\n")
		pw.Close()
	}()
	count := 0
	rep, err := DecodePhillyLog(pr, "pipe", func(j PhillyJob) error {
		if j.Duration != float64(60+count) {
			return fmt.Errorf("job %d: duration %v", count, j.Duration)
		}
		emitted <- count
		count++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != n || count != n {
		t.Errorf("kept %d, emitted %d, want %d", rep.Kept, count, n)
	}
}

func TestConvertPhillyLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "philly.csv")
	rep, err := ConvertPhillyLog(filepath.Join("testdata", "cluster_job_log_small.json"), out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 3 {
		t.Errorf("kept %d, want 3", rep.Kept)
	}
	got, _ := os.ReadFile(out)
	want := "timestamp,duration,num_gpus,gpu_time,cluster\n" +
		"2017-10-07 01:11:39,193263.0,8,1546104.0,ee9e8c\n" +
		"2017-10-09 07:01:55,66.0,3,198.0,6214e9\n" +
		"2017-12-22 08:02:11,0.0,1,0.0,103959\n"
	if string(got) != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
	tab, _, err := ReadPhilly(out)
	if err != nil || len(tab.Jobs) != 3 {
		t.Errorf("reading the table back: %v", err)
	}

	// A broken log leaves no output behind.
	bad := writeTemp(t, "bad.json", `[{"jobid": "a", "attempts": [`)
	out2 := filepath.Join(t.TempDir(), "philly.csv")
	if _, err := ConvertPhillyLog(bad, out2); err == nil {
		t.Error("no error for a truncated log")
	}
	if _, err := os.Stat(out2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output exists after a failed conversion: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out2))
	if len(entries) != 0 {
		t.Errorf("left behind %v", entries)
	}
}

func TestDecodePhillyLogLarge(t *testing.T) {
	// Many jobs with long lines: line numbers stay right across buffer refills.
	var b bytes.Buffer
	b.WriteString("[\n")
	const n = 3000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		gpus := strings.Repeat(`"gpu0",`, 50) + `"gpu1"`
		fmt.Fprintf(&b, `{"jobid":"j%d","vc":"v","status":"Pass","submitted_time":"2017-10-09 07:00:00","attempts":[{"start_time":"2017-10-09 07:00:00","end_time":"2017-10-09 08:00:00","detail":[{"ip":"m","gpus":[%s]}]}]}`, i, gpus)
	}
	b.WriteString("\n]\n")
	i := 0
	rep, err := DecodePhillyLog(&b, "big", func(j PhillyJob) error {
		if j.Line != i+2 || j.GPUs != 51 || j.Duration != 3600 {
			return fmt.Errorf("job %d: line %d, %d GPUs, %v s", i, j.Line, j.GPUs, j.Duration)
		}
		i++
		return nil
	})
	if err != nil || rep.Kept != n {
		t.Fatalf("kept %d: %v", rep.Kept, err)
	}
}

// TestDecodePhillyLogAbsurdDuration: an attempt span longer than
// MaxPhillyDuration (here 400 years, beyond what a time.Duration holds) is
// dropped with its own counted reason, not given a saturated duration.
func TestDecodePhillyLogAbsurdDuration(t *testing.T) {
	job := func(id, start, end string) string {
		return `{"jobid":"` + id + `","vc":"v","status":"Pass","submitted_time":"` + start + `","attempts":[{"start_time":"` + start +
			`","end_time":"` + end + `","detail":[{"ip":"m1","gpus":["gpu0"]}]}]}`
	}
	in := "[\n" + job("ok", "2017-10-09 07:00:00", "2017-10-09 08:00:00") + ",\n" +
		job("long", "1700-01-01 00:00:00", "2100-01-01 00:00:00") + ",\n" +
		job("year", "2017-01-01 00:00:00", "2018-06-01 00:00:00") + "\n]"
	var rows []PhillyJob
	rep, err := DecodePhillyLog(strings.NewReader(in), "log", func(j PhillyJob) error { rows = append(rows, j); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 1 || len(rows) != 1 || rows[0].Duration != 3600 || rep.Dropped[DropTooLong] != 2 {
		t.Errorf("kept %d rows %+v dropped %v; want the one-hour job kept and 2 dropped as %q", rep.Kept, rows, rep.Dropped, DropTooLong)
	}
	if !strings.Contains(rep.String(), "log:3: job long: "+string(DropTooLong)) {
		t.Errorf("report lacks the first too-long job:\n%s", rep)
	}
}

// Memory is bounded per record: a record (with the white space before it)
// over maxRecordBytes is one error naming its line (one of 400 MB took
// 3.5 GB, 400 MB of leading spaces 1.77 GB); a job's attempts are decoded
// one at a time, keeping the first and last (2 million took 1.57 GB), with
// the same row as before; echoed values are cut (a 419 MB job id was
// printed whole).
func TestDecodePhillyLogBounds(t *testing.T) {
	job := `{"jobid":"a","submitted_time":"2017-10-09 07:00:00","attempts":[]}`
	for name, in := range map[string]string{
		"long record":    "[\n" + job + ",\n" + `{"jobid":"` + strings.Repeat("x", maxRecordBytes) + `"}]`,
		"leading spaces": strings.Repeat(" ", maxRecordBytes+1) + "[" + job + "]",
		"spaces between": "[\n" + job + "," + strings.Repeat(" ", maxRecordBytes+1) + job + "]",
	} {
		_, err := DecodePhillyLog(strings.NewReader(in), "log", func(PhillyJob) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "longer than 4 MiB: not a cluster_job_log") || len(err.Error()) > 200 {
			t.Errorf("%s: %.200v", name, err)
		}
	}
	var b strings.Builder
	b.WriteString(`[{"jobid":"many","submitted_time":"2017-10-09 07:00:00","attempts":[`)
	b.WriteString(`{"start_time":"2017-10-09 07:00:10","end_time":"2017-10-09 07:00:20","detail":[{"ip":"m1","gpus":["gpu0","gpu1"]}]}`)
	for range 40000 {
		b.WriteString(`,{"start_time":"2017-10-09 08:00:00","end_time":"2017-10-09 08:00:01","detail":[]}`)
	}
	b.WriteString(`,{"start_time":"2017-10-09 09:00:00","end_time":"2017-10-09 09:00:10","detail":[]}]}]`)
	var rows []PhillyJob
	if _, err := DecodePhillyLog(strings.NewReader(b.String()), "log", func(j PhillyJob) error { rows = append(rows, j); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].GPUs != 2 || rows[0].Duration != 7200 {
		t.Errorf("rows %+v, want one of 2 GPUs (the first attempt's) over 7200 s (first start to last end)", rows)
	}
	long := strings.Repeat("é", 300000)
	in := `[{"jobid":"` + long + `","status":"` + long + `","submitted_time":"2017-10-09 07:00:00","attempts":[]},` +
		`{"jobid":"` + long + `","status":"` + long + `","submitted_time":"2017-10-09 07:00:00","attempts":[{"start_time":"2017-10-09 07:00:10","end_time":"2017-10-09 07:10:10","detail":[{"ip":"m1","gpus":["gpu0"]}]}]}]`
	rep, err := DecodePhillyLog(strings.NewReader(in), "log", func(PhillyJob) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.String(); len(s) > 1000 || !strings.Contains(s, "... (600000 bytes)") || !utf8.ValidString(s) {
		t.Errorf("report of %d bytes:\n%.1000s", len(s), s)
	}
}
