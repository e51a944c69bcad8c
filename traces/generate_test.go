package traces

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

// csvBytes writes a workload to memory.
func csvBytes(t *testing.T, w *Workload) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testSources(t *testing.T) map[string]Source {
	t.Helper()
	s, err := DefaultSummary()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Source{"table": syntheticPhilly(20000, 7), "summary": s}
}

func TestGenerateDeterministic(t *testing.T) {
	for name, src := range testSources(t) {
		t.Run(name, func(t *testing.T) {
			gen := func(seed uint64, config string) []byte {
				w, err := Generate(src, GenerateOptions{Jobs: 160, Seed: seed, Config: config, Apps: formatApps()})
				if err != nil {
					t.Fatal(err)
				}
				return csvBytes(t, w)
			}
			for _, config := range []string{ConfigTuned, ConfigRealistic} {
				a, b := gen(1, config), gen(1, config)
				if !bytes.Equal(a, b) {
					t.Errorf("%s: same seed, different output", config)
				}
				if c := gen(2, config); bytes.Equal(a, c) {
					t.Errorf("%s: seeds 1 and 2 give the same workload", config)
				}
			}
		})
	}
}

func TestGenerateLoads(t *testing.T) {
	for name, src := range testSources(t) {
		for _, n := range []int{1, 80, 160, 240, 320, 1000} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				w, err := Generate(src, GenerateOptions{Jobs: n, Seed: 3, Apps: formatApps()})
				if err != nil {
					t.Fatal(err)
				}
				if len(w.Jobs) != n {
					t.Fatalf("%d jobs, want %d", len(w.Jobs), n)
				}
				if err := Validate(w, referenceApps(), 64); err != nil {
					t.Fatal(err)
				}
				for i, j := range w.Jobs {
					if want := fmt.Sprintf("%s-%d", j.App, i); j.Name != want {
						t.Errorf("job %d named %q, want %q", i, j.Name, want)
					}
					if j.Time < 0 || j.Time >= 28800 || j.Time != math.Trunc(j.Time) {
						t.Errorf("job %s arrives at %v, want a whole second in [0, 28800)", j.Name, j.Time)
					}
				}
				// What we generate, we can write and read back.
				p := filepath.Join(t.TempDir(), "w.csv")
				if err := WriteFile(p, w); err != nil {
					t.Fatal(err)
				}
				if _, _, err := ReadFile(p, ReadOptions{Apps: referenceApps()}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestGenerateConfigs(t *testing.T) {
	apps := formatApps()
	for name, src := range testSources(t) {
		t.Run(name, func(t *testing.T) {
			opts := GenerateOptions{Jobs: 320, Seed: 11, Apps: apps}
			tuned, err := Generate(src, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Config = ConfigRealistic
			real, err := Generate(src, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tuned.Jobs {
				a, b := tuned.Jobs[i], real.Jobs[i]
				if a.Name != b.Name || a.Time != b.Time || a.App != b.App {
					t.Fatalf("job %d differs between configs: %+v vs %+v", i, a, b)
				}
				found := false
				for _, p := range apps[a.App].Tuned {
					found = found || (p.Replicas == a.Replicas && p.Batch == a.Batch)
				}
				if !found {
					t.Errorf("tuned job %+v has no tuned pair of %s", a, a.App)
				}
				if b.Batch != apps[b.App].InitBatch*b.Replicas {
					t.Errorf("realistic job %+v: batch is not B0 × GPUs", b)
				}
			}
		})
	}
}

func TestGenerateMaxReplicas(t *testing.T) {
	src := syntheticPhilly(20000, 7)
	w, err := Generate(src, GenerateOptions{Jobs: 2000, Seed: 1, Config: ConfigRealistic, Apps: formatApps(), MaxReplicas: 4})
	if err != nil {
		t.Fatal(err)
	}
	capped := 0
	for _, j := range w.Jobs {
		if j.Replicas > 4 {
			t.Fatalf("job %+v above the cap", j)
		}
		if j.Replicas == 4 {
			capped++
		}
	}
	if capped == 0 {
		t.Error("no job at the cap: the test table has no big jobs?")
	}
}

func TestGenerateErrors(t *testing.T) {
	src := syntheticPhilly(1000, 1)
	sum, err := DefaultSummary()
	if err != nil {
		t.Fatal(err)
	}
	noTuned := formatApps()
	noTuned[AppNCF] = AppConfig{InitBatch: 256}
	noBERT := formatApps()
	delete(noBERT, AppBERT)
	cases := []struct {
		name string
		src  Source
		opts GenerateOptions
		want string
	}{
		{"no source", nil, GenerateOptions{Jobs: 1, Apps: formatApps()}, "no Philly source"},
		{"zero jobs", src, GenerateOptions{Jobs: 0, Apps: formatApps()}, "at least 1"},
		{"too many jobs", src, GenerateOptions{Jobs: 1000, Apps: formatApps()}, "without replacement"},
		{"too many from summary", sum, GenerateOptions{Jobs: 31294, Apps: formatApps()}, "from the 31293 Philly jobs"},
		{"bad config", src, GenerateOptions{Jobs: 1, Config: "best", Apps: formatApps()}, `unknown config "best"`},
		{"missing app", src, GenerateOptions{Jobs: 1, Apps: noBERT}, `no configuration for application "bert"`},
		{"no tuned pairs", src, GenerateOptions{Jobs: 1, Apps: noTuned}, `"ncf" has no tuned configuration`},
		{"summary filter", sum, GenerateOptions{Jobs: 1, Apps: formatApps(), Filter: PhillyFilter{MinDuration: 1, MaxGPUTime: 1, ShiftHours: 0, WindowHours: 24}}, "cannot be sampled"},
		{"bad filter", src, GenerateOptions{Jobs: 1, Apps: formatApps(), Filter: PhillyFilter{MaxGPUTime: 1, WindowHours: 25}}, "window"},
		{"empty table", &PhillyTable{}, GenerateOptions{Jobs: 1, Apps: formatApps()}, "empty Philly table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generate(c.src, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Realistic workloads need no tuned pairs.
	if _, err := Generate(src, GenerateOptions{Jobs: 5, Config: ConfigRealistic, Apps: noTuned}); err != nil {
		t.Errorf("realistic without tuned pairs: %v", err)
	}
}

func TestGenerateFilter(t *testing.T) {
	// A 24-hour window with no duration or GPU-time limit keeps every job.
	src := syntheticPhilly(500, 5)
	all := PhillyFilter{MinDuration: 0, MaxGPUTime: math.MaxFloat64, ShiftHours: 0, WindowHours: 24}
	w, err := Generate(src, GenerateOptions{Jobs: 500, Seed: 1, Apps: formatApps(), Filter: all})
	if err != nil {
		t.Fatal(err)
	}
	if w.Jobs[len(w.Jobs)-1].Time < 8*3600 {
		t.Errorf("no arrival after 8 h in a 24-h window")
	}
}

// expectedMix is the application mix the reference method gives in
// expectation: the GPU-time classes' shares of the filtered trace, split
// 50/50 between cifar10 and ncf, and deepspeech2 and bert.
func expectedMix(s *Summary) map[string]float64 {
	p := make([]float64, numCategories)
	for c, sc := range s.Categories {
		p[c] = float64(sc.Jobs) / float64(s.Kept)
	}
	return map[string]float64{
		AppCIFAR10: p[catTiny] / 2, AppNCF: p[catTiny] / 2,
		AppDeepSpeech2: p[catSmall] / 2, AppBERT: p[catSmall] / 2,
		AppYOLOv3: p[catMedium], AppImageNet: p[catLarge],
	}
}

// referenceMix is the mix over the reference's 8 × 160 jobs (FORMAT.md).
func referenceMix() map[string]int {
	return map[string]int{AppCIFAR10: 495, AppNCF: 503, AppDeepSpeech2: 111, AppBERT: 86, AppYOLOv3: 59, AppImageNet: 26}
}

// generateMix generates seeds from..to of n jobs and returns the mix and
// the arrival times.
func generateMix(t *testing.T, src Source, config string, n int, from, to uint64) (map[string]int, []float64, []*Workload) {
	t.Helper()
	mix := map[string]int{}
	var arrivals []float64
	var ws []*Workload
	for seed := from; seed <= to; seed++ {
		w, err := Generate(src, GenerateOptions{Jobs: n, Seed: seed, Config: config, Apps: formatApps()})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range w.Jobs {
			mix[j.App]++
			arrivals = append(arrivals, j.Time)
		}
		ws = append(ws, w)
	}
	return mix, arrivals, ws
}

func mixLine(m map[string]int) string {
	var parts []string
	for _, a := range []string{AppCIFAR10, AppNCF, AppDeepSpeech2, AppBERT, AppYOLOv3, AppImageNet} {
		parts = append(parts, fmt.Sprintf("%s %d", a, m[a]))
	}
	return strings.Join(parts, ", ")
}

// TestGenerateMixOnRealTrace is the acceptance test on the real
// philly.csv: over 8 × 160 jobs (seeds 1..8), the application mix must be
// what the method gives in expectation, as the reference's mix is.
func TestGenerateMixOnRealTrace(t *testing.T) {
	dir := refdata.Dir(t)
	tab, _, err := ReadPhilly(filepath.Join(dir, "traces", "philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(tab, PhillyFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := expectedMix(sum)
	mix, arrivals, _ := generateMix(t, tab, ConfigTuned, 160, 1, 8)
	for _, a := range arrivals {
		if a < 0 || a >= 28800 {
			t.Fatalf("arrival %v outside [0, 28800)", a)
		}
	}
	// The reference's 8 workloads, read from their files.
	refFiles := map[string]int{}
	for i := 1; i <= 8; i++ {
		w, _, err := ReadFile(filepath.Join(dir, "workloads", fmt.Sprintf("workload-%d.csv", i)), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range w.Mix() {
			refFiles[k] += v
		}
	}
	if got, want := mixLine(refFiles), mixLine(referenceMix()); got != want {
		t.Errorf("reference workloads' mix %s, FORMAT.md says %s", got, want)
	}
	expected := map[string]int{}
	for k, v := range p {
		expected[k] = int(math.Round(v * 1280))
	}
	chiOurs, chiRef := chiSquare(mix, p), chiSquare(refFiles, p)
	t.Logf("expected     %s", mixLine(expected))
	t.Logf("generated    %s   chi2 = %.2f (df 5; 0.1%% critical %.2f)", mixLine(mix), chiOurs, chi2Crit5)
	t.Logf("reference    %s   chi2 = %.2f", mixLine(refFiles), chiRef)
	t.Logf("gen vs ref   homogeneity chi2 = %.2f", chiSquare2(mix, refFiles, GeneratedApps()))
	if chiOurs > chi2Crit5 {
		t.Errorf("generated mix is off the expected one: chi2 %.2f > %.2f", chiOurs, chi2Crit5)
	}
	if chiRef > chi2Crit5 {
		t.Errorf("the reference's mix does not fit the expected one (chi2 %.2f): our model of its method is wrong", chiRef)
	}
	for app, pa := range p {
		e := pa * 1280
		sd := math.Sqrt(1280 * pa * (1 - pa))
		if d := math.Abs(float64(mix[app]) - e); d > 4*sd {
			t.Errorf("%s: %d jobs, expected %.1f ± %.1f (4σ band)", app, mix[app], e, 4*sd)
		}
	}
}

// TestGenerateRealisticOnRealTrace checks realistic GPU counts against the
// reference's workloads-realistic.
func TestGenerateRealisticOnRealTrace(t *testing.T) {
	dir := refdata.Dir(t)
	tab, _, err := ReadPhilly(filepath.Join(dir, "traces", "philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	gpuMix := func(ws []*Workload) (map[string]int, int, int) {
		m := map[string]int{}
		one, total := 0, 0
		for _, w := range ws {
			for _, j := range w.Jobs {
				m[fmt.Sprintf("%s/%d", j.App, j.Replicas)]++
				total++
				if j.Replicas == 1 {
					one++
				}
			}
		}
		return m, one, total
	}
	_, _, ours := generateMix(t, tab, ConfigRealistic, 160, 1, 8)
	var refs []*Workload
	for i := 1; i <= 8; i++ {
		w, _, err := ReadFile(filepath.Join(dir, "workloads-realistic", fmt.Sprintf("workload-%d.csv", i)), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, w)
	}
	om, oOne, oTot := gpuMix(ours)
	rm, rOne, rTot := gpuMix(refs)
	t.Logf("1-GPU jobs: generated %d/%d, reference %d/%d", oOne, oTot, rOne, rTot)
	t.Logf("generated (app/GPUs): %v", om)
	t.Logf("reference (app/GPUs): %v", rm)
	for _, w := range ours {
		for _, j := range w.Jobs {
			// imagenet and yolov3 draw from jobs of at most a day: no
			// imagenet job of that class has fewer than 8 GPUs.
			if j.App == AppImageNet && j.Replicas < 8 {
				t.Errorf("realistic imagenet job %+v with fewer than 8 GPUs", j)
			}
			if j.Replicas > 64 {
				t.Errorf("job %+v larger than the 64-GPU cluster", j)
			}
		}
	}
	// Single-GPU share: a proportion test, 4σ band.
	p := float64(rOne) / float64(rTot)
	if d := math.Abs(float64(oOne)/float64(oTot) - p); d > 4*math.Sqrt(2*p*(1-p)/float64(oTot)) {
		t.Errorf("single-GPU share %.3f vs reference %.3f", float64(oOne)/float64(oTot), p)
	}
}
