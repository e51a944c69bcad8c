package traces

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

// GenerateAll keeps exactly the jobs the filter passes by duration and
// GPU time, each at its submission time from the first kept one, with the
// application its GPU time gives; the output is deterministic.
func TestGenerateAll(t *testing.T) {
	tab := syntheticPhilly(5000, 11)
	f := DefaultPhillyFilter()
	var kept []PhillyJob
	for _, j := range tab.Jobs {
		if j.Duration >= f.MinDuration && j.GPUTime < f.MaxGPUTime {
			kept = append(kept, j)
		}
	}
	first := kept[0].Submitted
	for _, j := range kept {
		if j.Submitted.Before(first) {
			first = j.Submitted
		}
	}
	for _, config := range []string{ConfigTuned, ConfigRealistic} {
		w, err := GenerateAll(tab, GenerateOptions{Seed: 1, Config: config, Apps: formatApps()})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != len(kept) || len(kept) == len(tab.Jobs) {
			t.Fatalf("%s: %d jobs, the filter keeps %d of %d", config, len(w.Jobs), len(kept), len(tab.Jobs))
		}
		// Arrivals are the kept submissions, sorted; classes match.
		want := map[int64]int{}
		byClass := map[category]int{}
		for _, j := range kept {
			want[int64(j.Submitted.Sub(first)/time.Second)]++
			byClass[categoryOf(j.GPUTime)]++
		}
		got := map[int64]int{}
		apps := map[string]int{}
		for i, j := range w.Jobs {
			if i > 0 && j.Time < w.Jobs[i-1].Time {
				t.Fatalf("%s: arrivals not sorted at job %d", config, i)
			}
			got[int64(j.Time)]++
			apps[j.App]++
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d distinct arrivals, want %d", config, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: %d jobs at %d s, want %d", config, got[k], k, v)
			}
		}
		if w.Jobs[0].Time != 0 {
			t.Errorf("%s: first arrival %v, want 0", config, w.Jobs[0].Time)
		}
		if apps[AppCIFAR10]+apps[AppNCF] != byClass[catTiny] || apps[AppDeepSpeech2]+apps[AppBERT] != byClass[catSmall] ||
			apps[AppYOLOv3] != byClass[catMedium] || apps[AppImageNet] != byClass[catLarge] {
			t.Errorf("%s: mix %v, classes %v", config, apps, byClass)
		}
		again, _ := GenerateAll(tab, GenerateOptions{Seed: 1, Config: config, Apps: formatApps()})
		if !bytes.Equal(csvBytes(t, w), csvBytes(t, again)) {
			t.Errorf("%s: not deterministic", config)
		}
	}
	if _, err := GenerateAll(&PhillyTable{}, GenerateOptions{Apps: formatApps()}); err == nil {
		t.Error("no error for an empty table")
	}
}

// The whole filtered trace: 74,428 of its 82,247 jobs pass the generator's
// filter, over 106 days.
func TestGenerateAllRealTrace(t *testing.T) {
	dir := refdata.Dir(t)
	tab, _, err := ReadPhilly(filepath.Join(dir, "traces", "philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := GenerateAll(tab, GenerateOptions{Seed: 1, Apps: formatApps()})
	if err != nil {
		t.Fatal(err)
	}
	days := w.Jobs[len(w.Jobs)-1].Time / 86400
	if len(tab.Jobs) != 82247 || len(w.Jobs) != 74428 || math.Abs(days-106.2) > 0.1 {
		t.Errorf("%d jobs of %d over %.1f days", len(w.Jobs), len(tab.Jobs), days)
	}
}

// The whole trace from Philly's cluster_job_log, through the ingest: the
// jobs the reduced table keeps that pass the filter.
func TestGenerateAllFromJobLog(t *testing.T) {
	out := filepath.Join(t.TempDir(), "philly.csv")
	if _, err := ConvertPhillyLog(filepath.Join("testdata", "cluster_job_log_small.json"), out); err != nil {
		t.Fatal(err)
	}
	tab, _, err := ReadPhilly(out)
	if err != nil {
		t.Fatal(err)
	}
	w, err := GenerateAll(tab, GenerateOptions{Seed: 1, Config: ConfigRealistic, Apps: formatApps()})
	if err != nil {
		t.Fatal(err)
	}
	// The table's rows: 8 GPUs × 193263 s (429 GPU-hours: imagenet, kept),
	// 3 × 66 s (kept), 0 s (dropped). The second is 2 days, 5h 50m 16s
	// after the first.
	if len(w.Jobs) != 2 || w.Jobs[0].App != AppImageNet || w.Jobs[1].Time != 2*86400+5*3600+50*60+16 {
		t.Errorf("workload %+v", w.Jobs)
	}
	if w.Jobs[1].Replicas != 3 {
		t.Errorf("realistic GPUs %d, want the trace's 3", w.Jobs[1].Replicas)
	}
}
