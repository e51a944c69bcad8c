package traces

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

const goodCSV = `name,time,application,num_replicas,batch_size
cifar10-0,107,cifar10,6,2048
deepspeech2-1,110,deepspeech2,6,320
ncf-2,135,ncf,1,32768
`

func TestReadFile(t *testing.T) {
	p := writeTemp(t, "w.csv", goodCSV)
	w, warnings, err := ReadFile(p, ReadOptions{Apps: referenceApps()})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	want := []Job{
		{Name: "cifar10-0", Time: 107, App: "cifar10", Replicas: 6, Batch: 2048, Line: 2},
		{Name: "deepspeech2-1", Time: 110, App: "deepspeech2", Replicas: 6, Batch: 320, Line: 3},
		{Name: "ncf-2", Time: 135, App: "ncf", Replicas: 1, Batch: 32768, Line: 4},
	}
	if !reflect.DeepEqual(w.Jobs, want) {
		t.Errorf("jobs\n got %+v\nwant %+v", w.Jobs, want)
	}
	if w.Source != p {
		t.Errorf("source %q, want %q", w.Source, p)
	}
}

func TestRoundTrip(t *testing.T) {
	w := &Workload{Source: "test", Jobs: []Job{
		{Name: "a", Time: 0, App: "cifar10", Replicas: 1, Batch: 128},
		{Name: "b", Time: 10.25, App: "bert", Replicas: 4, Batch: 48},
		{Name: "name, with comma", Time: 10.25, App: "ncf", Replicas: 1, Batch: 256},
		{Name: `quo"te`, Time: 28799, App: "ncf", Replicas: 2, Batch: 512},
	}}
	p := filepath.Join(t.TempDir(), "w.csv")
	if err := WriteFile(p, w); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadFile(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Jobs {
		got.Jobs[i].Line = 0
	}
	if !reflect.DeepEqual(got.Jobs, w.Jobs) {
		t.Errorf("round trip\n got %+v\nwant %+v", got.Jobs, w.Jobs)
	}
	first, _ := os.ReadFile(p)
	if err := WriteFile(p, got); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(p)
	if !bytes.Equal(first, second) {
		t.Errorf("rewrite differs:\n%s\n%s", first, second)
	}
	if !strings.Contains(string(first), "b,10.25,bert,4,48\n") {
		t.Errorf("fractional time not written as 10.25:\n%s", first)
	}
}

func TestReadReferenceWorkloads(t *testing.T) {
	dir := refdata.Dir(t)
	var files []string
	for _, sub := range []string{"workloads", "workloads-realistic"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.csv"))
		files = append(files, m...)
	}
	if len(files) != 16 {
		t.Fatalf("found %d workload files, want 16", len(files))
	}
	for _, f := range files {
		w, warnings, err := ReadFile(f, ReadOptions{Apps: referenceApps()})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(warnings) > 0 {
			t.Errorf("%s: warnings %q", f, warnings)
		}
		if len(w.Jobs) != 160 {
			t.Errorf("%s: %d jobs, want 160", f, len(w.Jobs))
		}
		if err := Validate(w, referenceApps(), 64); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		// Writing it back gives the same bytes: our format is theirs.
		var buf bytes.Buffer
		if err := Write(&buf, w); err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(f)
		if !bytes.Equal(buf.Bytes(), orig) {
			t.Errorf("%s: rewritten file differs from the original", f)
		}
	}
}

func TestReadErrors(t *testing.T) {
	const h = "name,time,application,num_replicas,batch_size\n"
	cases := []struct {
		name, content string
		wants         []string
	}{
		{"empty file", "", []string{"w.csv:1:", "empty file"}},
		{"header only", h, []string{"w.csv:2:", "no jobs"}},
		{"missing column", "name,time,application,num_replicas\na,1,ncf,1\n",
			[]string{"w.csv:1:", `missing column "batch_size"`}},
		{"two missing columns", "name,application,num_replicas\na,ncf,1\n",
			[]string{"w.csv:1:", `"time"`, `"batch_size"`}},
		{"duplicate header", "name,time,time,application,num_replicas,batch_size\n",
			[]string{"w.csv:1:", `column "time"`, "twice"}},
		{"field count", h + "a,1,ncf,1,256\nb,2,ncf,1\n", []string{"w.csv:3:", "has 4 fields, the header has 5"}},
		{"non-numeric time", h + "a,soon,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, `"soon" is not a number`}},
		{"non-numeric replicas", h + "a,1,ncf,two,256\n", []string{"w.csv:2:", `column "num_replicas"`, "not a whole number"}},
		{"fractional batch", h + "a,1,ncf,1,25.5\n", []string{"w.csv:2:", `column "batch_size"`, "not a whole number"}},
		{"NaN time", h + "a,NaN,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, "not a finite number"}},
		{"Inf time", h + "a,+Inf,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, "not a finite number"}},
		{"huge time", h + "a,1e999,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, "out of range"}},
		{"time with digit separators", h + "a,1_0,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, `"1_0" is not a plain decimal number`}},
		{"hexadecimal time", h + "a,0x1p4,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, `"0x1p4" is not a plain decimal number`}},
		{"batch with digit separators", h + "a,1,ncf,1,2_56\n", []string{"w.csv:2:", `column "batch_size"`, "not a whole number"}},
		{"negative time", h + "a,1,ncf,1,256\nb,-5,ncf,1,256\n", []string{"w.csv:3:", `column "time"`, "negative time -5"}},
		{"zero replicas", h + "a,1,ncf,0,256\n", []string{"w.csv:2:", `column "num_replicas"`, "at least 1, got 0"}},
		{"negative batch", h + "a,1,ncf,1,-256\n", []string{"w.csv:2:", `column "batch_size"`, "at least 1, got -256"}},
		{"empty name", h + " ,1,ncf,1,256\n", []string{"w.csv:2:", `column "name"`, "empty job name"}},
		{"duplicate name", h + "a,1,ncf,1,256\nb,2,ncf,1,256\na,3,ncf,1,256\n",
			[]string{"w.csv:4:", `column "name"`, `duplicate job name "a" (first on line 2)`}},
		{"unknown application", h + "a,1,resnet,1,256\n", []string{"w.csv:2:", `column "application"`, `unknown application "resnet"`}},
		{"empty application", h + "a,1,,1,256\n", []string{"w.csv:2:", `column "application"`, "empty application"}},
		{"bad quoting", h + "a,1,\"ncf,1,256\n", []string{"w.csv:"}},
		{"empty cell", h + "a,,ncf,1,256\n", []string{"w.csv:2:", `column "time"`, "empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTemp(t, "w.csv", c.content)
			w, _, err := ReadFile(p, ReadOptions{Apps: referenceApps()})
			if w != nil {
				t.Errorf("got a workload despite the error")
			}
			wantInputError(t, err, c.wants...)
		})
	}
}

func TestReadReportsSeveralErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("name,time,application,num_replicas,batch_size\n")
	for i := 0; i < 30; i++ {
		b.WriteString("x,bad,ncf,1,256\n")
	}
	_, _, err := Parse(strings.NewReader(b.String()), "w.csv", ReadOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "is not a number"); n != maxErrors {
		t.Errorf("%d problems reported, want %d:\n%s", n, maxErrors, msg)
	}
	if !strings.Contains(msg, "w.csv:2:") || !strings.Contains(msg, "w.csv:11:") || !strings.Contains(msg, "further problems") {
		t.Errorf("unexpected message:\n%s", msg)
	}
}

func TestReadExtraColumnsAndOrder(t *testing.T) {
	content := "batch_size,user,application,time,num_replicas,name\n256,alice,ncf,5,1,a\n"
	w, warnings, err := Parse(strings.NewReader(content), "w.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `w.csv:1: extra column "user" ignored`) {
		t.Errorf("warnings %q", warnings)
	}
	want := Job{Name: "a", Time: 5, App: "ncf", Replicas: 1, Batch: 256, Line: 2}
	if w.Jobs[0] != want {
		t.Errorf("job %+v, want %+v", w.Jobs[0], want)
	}
}

func TestReadLenientForms(t *testing.T) {
	// A byte-order mark, spaces around cells, CRLF line ends, integral
	// floats as pandas writes them, and blank lines are all accepted.
	content := "\ufeffname, time ,application,num_replicas,batch_size\r\n a ,1.5, ncf ,4.0,256\r\n\r\n"
	w, _, err := Parse(strings.NewReader(content), "w.csv", ReadOptions{Apps: referenceApps()})
	if err != nil {
		t.Fatal(err)
	}
	want := Job{Name: "a", Time: 1.5, App: "ncf", Replicas: 4, Batch: 256, Line: 2}
	if len(w.Jobs) != 1 || w.Jobs[0] != want {
		t.Errorf("jobs %+v, want [%+v]", w.Jobs, want)
	}
}

func TestReadUnsortedIsSortedStably(t *testing.T) {
	content := "name,time,application,num_replicas,batch_size\nc,30,ncf,1,256\na,10,ncf,1,256\nb,30,ncf,1,256\nd,10,ncf,1,256\n"
	w, warnings, err := Parse(strings.NewReader(content), "w.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, j := range w.Jobs {
		names = append(names, j.Name)
	}
	if got := strings.Join(names, ""); got != "adcb" {
		t.Errorf("order %q, want adcb (stable by time)", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not in time order") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestWriteFileRefusesInvalidWorkload(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.csv")
	bad := &Workload{Jobs: []Job{{Name: "a", Time: -1, App: "ncf", Replicas: 1, Batch: 1}}}
	if err := WriteFile(p, bad); err == nil {
		t.Fatal("no error for a negative time")
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written: %v", err)
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "missing", "w.csv"), &Workload{Jobs: []Job{{Name: "a", App: "ncf", Replicas: 1, Batch: 1}}}); err == nil {
		t.Error("no error writing into a missing folder")
	}
}

func TestFormatSeconds(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 107: "107", 28799: "28799", 0.5: "0.5", 1e-7: "0.0000001", 12.125: "12.125"} {
		if got := formatSeconds(in); got != want {
			t.Errorf("formatSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}
