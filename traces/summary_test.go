package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

func TestDefaultSummary(t *testing.T) {
	s, err := DefaultSummary()
	if err != nil {
		t.Fatal(err)
	}
	if s.Kept != 31293 || s.Rows != 82247 || s.Filter != DefaultPhillyFilter() || s.BucketSeconds != 300 {
		t.Errorf("summary header %+v", s)
	}
	if !strings.Contains(s.Attribution, "msr-fiddle/philly-traces") || !strings.Contains(s.Attribution, "petuum/adaptdl") {
		t.Errorf("attribution %q", s.Attribution)
	}
	if len(defaultSummaryJSON) > 8<<10 {
		t.Errorf("embedded summary is %d bytes; it should stay compact", len(defaultSummaryJSON))
	}
}

// TestEmbeddedSummaryIsUpToDate regenerates the embedded summary from the
// reference's philly.csv, as `polluxsim workload summarize-philly` does.
func TestEmbeddedSummaryIsUpToDate(t *testing.T) {
	dir := refdata.Dir(t)
	path := filepath.Join(dir, "traces", "philly.csv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := ParsePhilly(bytes.NewReader(data), path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(tab, PhillyFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	s.SourceFile, s.SourceSHA256 = "philly.csv", hex.EncodeToString(sum[:])
	got, err := s.marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != defaultSummaryJSON {
		t.Error("traces/default/philly-summary.json is stale: run polluxsim workload summarize-philly --philly <ref>/traces/philly.csv --out traces/default/philly-summary.json")
	}
}

func TestSummaryRoundTrip(t *testing.T) {
	s, err := Summarize(syntheticPhilly(5000, 3), PhillyFilter{}, 600)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "s.json")
	if err := WriteSummary(p, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(p)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.marshal()
	b, _ := back.marshal()
	if !bytes.Equal(a, b) {
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
	var buf bytes.Buffer
	if _, err := back.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), a) {
		t.Errorf("WriteTo differs: %v", err)
	}
}

func TestSummaryRejectsInconsistentFiles(t *testing.T) {
	good := defaultSummaryJSON
	cases := map[string]struct{ from, to, want string }{
		"format":      {`"polluxsim-philly-summary/1"`, `"something/2"`, "format"},
		"count":       {`"jobs": 586`, `"jobs": 587`, "add up"},
		"kept":        {`"kept": 31293`, `"kept": 31292`, "kept is"},
		"bucket":      {`"bucket_seconds": 300`, `"bucket_seconds": 7`, "divide"},
		"class name":  {`"gpu_hours_ge_100"`, `"huge"`, "want \"gpu_hours_ge_100\""},
		"gpus bar":    {`"gpus_short": [[8, 41]`, `"gpus_short": [[0, 41]`, "out of range"},
		"bar shape":   {`[[8, 41]`, `[[8, 41, 1]`, "want [gpus, jobs]"},
		"filter":      {`"window_hours": 8`, `"window_hours": 0`, "window"},
		"not json":    {`{`, `[`, "not a Philly summary"},
		"histogram":   {`"gpus": [[1, 126]`, `"gpus": [[1, 125]`, "histogram counts"},
		"arrivals":    {`"arrivals": [11, `, `"arrivals": [`, "arrival buckets"},
		"negative":    {`"arrivals": [11, 8, `, `"arrivals": [-11, 30, `, "out of range"},
		"short > all": {`"gpus_short": [[8, 41]`, `"gpus_short": [[8, 4100]`, "histogram counts"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(good, c.from) {
				t.Fatalf("fixture lacks %q", c.from)
			}
			bad := strings.Replace(good, c.from, c.to, 1)
			_, err := ParseSummary([]byte(bad), "s.json")
			wantInputError(t, err, "s.json: ", c.want)
		})
	}
}

func TestSummarizeErrors(t *testing.T) {
	tab := syntheticPhilly(100, 1)
	if _, err := Summarize(tab, PhillyFilter{}, 7); err == nil || !strings.Contains(err.Error(), "divide") {
		t.Errorf("bucket 7: %v", err)
	}
	if _, err := Summarize(&PhillyTable{}, PhillyFilter{}, 0); err == nil {
		t.Error("empty table accepted")
	}
	none := PhillyFilter{MinDuration: 1e12, MaxGPUTime: 1, WindowHours: 8}
	if _, err := Summarize(tab, none, 0); err == nil || !strings.Contains(err.Error(), "keeps no job") {
		t.Errorf("filter keeping nothing: %v", err)
	}
}

// TestSummarySamplingIsExact draws every job of a summary: sampling
// without replacement must then give back exactly its histograms.
func TestSummarySamplingIsExact(t *testing.T) {
	tab := syntheticPhilly(20000, 9)
	s, err := Summarize(tab, PhillyFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Generate(s, GenerateOptions{Jobs: s.Kept, Seed: 1, Apps: formatApps()})
	if err != nil {
		t.Fatal(err)
	}
	buckets := make([]int, len(s.Categories[0].Arrivals))
	for _, j := range w.Jobs {
		buckets[int(j.Time)/s.BucketSeconds]++
	}
	for b := range buckets {
		want := 0
		for _, sc := range s.Categories {
			want += sc.Arrivals[b]
		}
		if buckets[b] != want {
			t.Errorf("bucket %d: %d arrivals, want %d", b, buckets[b], want)
		}
	}
	m := w.Mix()
	if m[AppCIFAR10]+m[AppNCF] != s.Categories[catTiny].Jobs || m[AppDeepSpeech2]+m[AppBERT] != s.Categories[catSmall].Jobs ||
		m[AppYOLOv3] != s.Categories[catMedium].Jobs || m[AppImageNet] != s.Categories[catLarge].Jobs {
		t.Errorf("mix %v does not match the classes", m)
	}
}

// TestSummaryMatchesTrace measures how close workloads generated from the
// embedded summary are to workloads generated from the real trace: the
// application mix (chi-square test of homogeneity) and the arrival times
// (two-sample Kolmogorov–Smirnov), over 50 seeds × 160 jobs each.
func TestSummaryMatchesTrace(t *testing.T) {
	dir := refdata.Dir(t)
	tab, _, err := ReadPhilly(filepath.Join(dir, "traces", "philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := DefaultSummary()
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 50
	for _, config := range []string{ConfigTuned, ConfigRealistic} {
		mt, at, wt := generateMix(t, tab, config, 160, 1, seeds)
		ms, as, ws := generateMix(t, sum, config, 160, 1001, 1000+seeds)
		chi := chiSquare2(mt, ms, GeneratedApps())
		d, crit := ksStatistic(at, as), ksCritical(len(at), len(as))
		t.Logf("%s, %d jobs each: trace   %s", config, len(at), mixLine(mt))
		t.Logf("%s, %d jobs each: summary %s", config, len(as), mixLine(ms))
		t.Logf("%s: mix homogeneity chi2 = %.2f (0.1%% critical %.2f); arrivals KS D = %.4f (0.1%% critical %.4f)",
			config, chi, chi2Crit5, d, crit)
		if chi > chi2Crit5 {
			t.Errorf("%s: application mix differs: chi2 %.2f", config, chi)
		}
		if d > crit {
			t.Errorf("%s: arrival times differ: KS D %.4f > %.4f", config, d, crit)
		}
		// Per application, the arrival-time distributions too.
		for _, app := range GeneratedApps() {
			var a, b []float64
			for _, w := range wt {
				for _, j := range w.Jobs {
					if j.App == app {
						a = append(a, j.Time)
					}
				}
			}
			for _, w := range ws {
				for _, j := range w.Jobs {
					if j.App == app {
						b = append(b, j.Time)
					}
				}
			}
			if d, crit := ksStatistic(a, b), ksCritical(len(a), len(b)); d > crit {
				t.Errorf("%s %s: arrival KS D %.4f > %.4f", config, app, d, crit)
			} else if config == ConfigTuned {
				t.Logf("  %-11s arrivals KS D = %.4f (critical %.4f, n = %d, %d)", app, d, crit, len(a), len(b))
			}
		}
		if config == ConfigRealistic {
			count := func(ws []*Workload) map[string]int {
				m := map[string]int{}
				for _, w := range ws {
					for _, j := range w.Jobs {
						k := "1"
						switch {
						case j.Replicas >= 8:
							k = "8+"
						case j.Replicas > 1:
							k = "2-7"
						}
						m[k]++
					}
				}
				return m
			}
			gt, gs := count(wt), count(ws)
			chi := chiSquare2(gt, gs, []string{"1", "2-7", "8+"})
			t.Logf("realistic GPU counts (1 / 2-7 / 8+): trace %v, summary %v, chi2 = %.2f (df 2; 0.1%% critical 13.82)", gt, gs, chi)
			if chi > 13.82 {
				t.Errorf("realistic GPU counts differ: chi2 %.2f", chi)
			}
		}
	}
}
