package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

const phillyCSV = `timestamp,duration,num_gpus,gpu_time,cluster
2017-10-09 07:01:55,66.0,1,66.0,11cb48
2017-10-09 06:13:03,2951.0,8,23608.0,6214e9
2017-12-31 23:59:59,0.5,2,1.0,
`

func TestReadPhilly(t *testing.T) {
	p := writeTemp(t, "philly.csv", phillyCSV)
	tab, warnings, err := ReadPhilly(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings %q", warnings)
	}
	want := []PhillyJob{
		{Submitted: time.Date(2017, 10, 9, 7, 1, 55, 0, time.UTC), Duration: 66, GPUs: 1, GPUTime: 66, Cluster: "11cb48", Line: 2},
		{Submitted: time.Date(2017, 10, 9, 6, 13, 3, 0, time.UTC), Duration: 2951, GPUs: 8, GPUTime: 23608, Cluster: "6214e9", Line: 3},
		{Submitted: time.Date(2017, 12, 31, 23, 59, 59, 0, time.UTC), Duration: 0.5, GPUs: 2, GPUTime: 1, Cluster: "", Line: 4},
	}
	if len(tab.Jobs) != len(want) {
		t.Fatalf("%d jobs, want %d", len(tab.Jobs), len(want))
	}
	for i := range want {
		if tab.Jobs[i] != want[i] {
			t.Errorf("job %d: %+v, want %+v", i, tab.Jobs[i], want[i])
		}
	}
	// Written back, the table is the same bytes.
	out := filepath.Join(t.TempDir(), "out.csv")
	if err := WritePhilly(out, tab); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != phillyCSV {
		t.Errorf("written table:\n%s\nwant\n%s", got, phillyCSV)
	}
}

func TestReadPhillyErrors(t *testing.T) {
	const h = "timestamp,duration,num_gpus,gpu_time,cluster\n"
	cases := []struct {
		name, content string
		wants         []string
	}{
		{"empty", "", []string{"p.csv:1:", "empty file"}},
		{"header only", h, []string{"p.csv:2:", "no jobs"}},
		{"missing column", "timestamp,duration,num_gpus,cluster\n", []string{"p.csv:1:", `missing column "gpu_time"`}},
		{"bad timestamp", h + "2017-10-09 07:01:55,66.0,1,66.0,a\n2017-13-09 07:01:55,66.0,1,66.0,a\n",
			[]string{"p.csv:3:", `column "timestamp"`, "2006-01-02 15:04:05"}},
		{"day out of range", h + "2017-02-30 07:01:55,66.0,1,66.0,a\n", []string{"p.csv:2:", `column "timestamp"`}},
		{"negative duration", h + "2017-10-09 07:01:55,-66.0,1,66.0,a\n", []string{"p.csv:2:", `column "duration"`, "negative"}},
		{"NaN gpu_time", h + "2017-10-09 07:01:55,66.0,1,nan,a\n", []string{"p.csv:2:", `column "gpu_time"`, "finite"}},
		{"zero GPUs", h + "2017-10-09 07:01:55,66.0,0,0.0,a\n", []string{"p.csv:2:", `column "num_gpus"`, "at least 1"}},
		{"field count", h + "2017-10-09 07:01:55,66.0,1,66.0\n", []string{"p.csv:2:", "has 4 fields"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParsePhilly(strings.NewReader(c.content), "p.csv")
			wantInputError(t, err, c.wants...)
		})
	}
}

func TestReadReferencePhilly(t *testing.T) {
	dir := refdata.Dir(t)
	path := filepath.Join(dir, "traces", "philly.csv")
	var best time.Duration
	var tab *PhillyTable
	for i := 0; i < 3; i++ { // best of three, to keep a busy machine from failing it
		start := time.Now()
		var err error
		tab, _, err = ReadPhilly(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); i == 0 || d < best {
			best = d
		}
	}
	t.Logf("read %d rows in %v", len(tab.Jobs), best)
	if len(tab.Jobs) != 82247 {
		t.Errorf("%d rows, want 82247", len(tab.Jobs))
	}
	// Our writer reproduces the file byte for byte (but its final blank line).
	var buf bytes.Buffer
	pw := newPhillyWriter(&buf)
	for i := range tab.Jobs {
		if err := pw.write(&tab.Jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.flush(); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(path)
	orig = append(bytes.TrimRight(orig, "\n"), '\n') // the file ends with a blank line
	if !bytes.Equal(buf.Bytes(), orig) {
		t.Error("rewritten philly.csv differs from the original")
	}
}

func BenchmarkReadPhilly(b *testing.B) {
	dir := refdata.Dir(b)
	data, err := os.ReadFile(filepath.Join(dir, "traces", "philly.csv"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := ParsePhilly(bytes.NewReader(data), "philly.csv"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPyFloat(t *testing.T) {
	for in, want := range map[float64]string{
		66: "66.0", 0: "0.0", 0.5: "0.5", 1e-5: "1e-05", 1e16: "1e+16", 1234567.5: "1234567.5",
		9999999999999998: "9999999999999998.0", -2: "-2.0", 0.0001: "0.0001",
	} {
		if got := pyFloat(in); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", in, got, want)
		}
	}
}
