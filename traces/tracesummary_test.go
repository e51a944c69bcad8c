package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// itpFigures are FORMAT.md's per-cluster figures of the ITP traces:
// jobs, span in days, largest GPU count, GPU-hours, average GPUs busy.
var itpFigures = []struct {
	cluster  string
	jobs     int
	span     float64
	maxGPUs  int
	gpuHours int
	busy     float64
}{
	{"cluster01", 1595, 33.8, 64, 22740, 28.1},
	{"cluster02", 5778, 59.7, 64, 123748, 86.3},
	{"cluster03", 3011, 49.3, 64, 165443, 139.7},
	{"cluster04", 15802, 59.5, 64, 705683, 494.6},
	{"cluster05", 3629, 59.3, 8, 14303, 10.1},
	{"cluster06", 2396, 59.6, 64, 123879, 86.6},
	{"cluster07", 12699, 59.4, 16, 366800, 257.1},
	{"cluster08", 13047, 42.4, 32, 67100, 65.9},
	{"cluster09", 11134, 52.4, 1, 39001, 31.0},
	{"cluster10", 260, 32.8, 16, 4023, 5.1},
}

// TestITPMatchesFormatFigures: the embedded ITP clusters, read and
// summarised, give FORMAT.md's figures (rounded as it rounds them), and
// the ten clusters hold the 69,351 jobs and 1,632,719.7 GPU-hours of the
// trace's README.
func TestITPMatchesFormatFigures(t *testing.T) {
	jobs, hours := 0, 0.0
	for _, want := range itpFigures {
		tab, err := builtinFormats.Read("itp:" + want.cluster)
		if err != nil {
			t.Fatal(err)
		}
		s, err := SummarizeTrace(tab, 4)
		if err != nil {
			t.Fatal(err)
		}
		if s.Jobs != want.jobs || s.MaxGPUs != want.maxGPUs || int(math.Round(s.GPUHours)) != want.gpuHours ||
			math.Round(s.SpanDays*10)/10 != want.span || math.Round(s.AvgGPUsBusy*10)/10 != want.busy {
			t.Errorf("%s: jobs %d, span %.1f d, max %d GPUs, %.0f GPU-h, %.1f busy; FORMAT.md: %+v",
				want.cluster, s.Jobs, s.SpanDays, s.MaxGPUs, s.GPUHours, s.AvgGPUsBusy, want)
		}
		if len(s.Report.Dropped) != 0 || s.Report.Rows != s.Jobs {
			t.Errorf("%s: report %+v: the ITP traces have no zero-GPU row", want.cluster, s.Report)
		}
		t.Logf("%s: %d jobs, %.1f days, max %d GPUs, %.0f GPU-h, %.1f GPUs busy; paper-equivalent %.1f GPUs (by jobs %.1f), suggested %d",
			want.cluster, s.Jobs, s.SpanDays, s.MaxGPUs, s.GPUHours, s.AvgGPUsBusy, s.PaperEquivalentGPUs, s.PaperEquivalentGPUsByJobs, s.SuggestedGPUs)
		jobs += s.Jobs
		hours += s.GPUHours
	}
	if jobs != 69351 || math.Round(hours*10)/10 != 1632719.7 {
		t.Errorf("all clusters: %d jobs, %.1f GPU-hours; want 69,351 and 1,632,719.7", jobs, hours)
	}
}

// TestTraceSummaryClosedForm checks the summary of a small trace against
// figures worked out by hand.
func TestTraceSummaryClosedForm(t *testing.T) {
	// Three jobs over 2 hours: 1 GPU × 3600 s, 4 GPUs × 1800 s, 2 GPUs × 0 s.
	in := "job_id,submission_time,duration,num_gpu\na,100,3600,1\nb,7300,1800,4\nc,3700,0,2\nd,50,10,0\n"
	tab, err := ParseITP(strings.NewReader(in), "small.csv")
	if err != nil {
		t.Fatal(err)
	}
	s, err := SummarizeTrace(tab, 4)
	if err != nil {
		t.Fatal(err)
	}
	// GPU-hours 1 + 2 = 3 over a span of 7200 s: 1.5 GPUs busy.
	wantEq := 1.5 / PaperGPUHoursPerGPUHour()
	wantByJobs := 3 / 2.0 / (160.0 / 512)
	if s.Jobs != 3 || s.SpanSeconds != 7200 || s.GPUHours != 3 || s.AvgGPUsBusy != 1.5 || s.MaxGPUs != 4 ||
		math.Abs(s.PaperEquivalentGPUs-wantEq) > 1e-12 || math.Abs(s.PaperEquivalentGPUsByJobs-wantByJobs) > 1e-12 ||
		s.SuggestedGPUs != 4 || s.MedianDurationS != 1800 || s.Report.Dropped[TraceDropZeroGPUs] != 1 {
		t.Errorf("summary %+v", s)
	}
	if fmt.Sprint(s.GPUs) != "[{1 1} {2 1} {4 1}]" {
		t.Errorf("histogram %v", s.GPUs)
	}
	var text, js bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"jobs               3 (rows read 4, left out 1)", "zero GPUs: 1", "GPU-hours          3", "avg GPUs busy      1.5"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back TraceSummary
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.GPUHours != 3 || back.SuggestedGPUs != 4 {
		t.Errorf("JSON %s: %v", js.String(), err)
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 123748: "123,748", -1632719: "-1,632,719"} {
		if got := group(n); got != want {
			t.Errorf("group(%d) = %q, want %q", n, got, want)
		}
	}
}
