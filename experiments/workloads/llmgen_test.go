package workloads_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/profiles"
)

// TestLLMGenMix: over 20,000 jobs each kind's share is within 4 standard
// errors of LLMMix's (binomial), each class of a kind within 4 standard
// errors of an equal part of it, and every job is a class of the mix.
func TestLLMGenMix(t *testing.T) {
	const n = 20000
	w, err := workloads.LLMGen{Jobs: n, Seed: 7, Hours: 8}.Make(profiles.LLM())
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.LLM()
	kinds := map[string]int{}
	classes := map[workloads.LLMClass]int{}
	for _, j := range w.Jobs {
		var cls workloads.LLMClass
		for _, size := range profiles.LLMSizes() {
			for _, kind := range profiles.LLMKinds() {
				if profiles.LLMAppName(size, kind) == j.App {
					cls = workloads.LLMClass{Size: size, Kind: kind, GPUs: j.Replicas}
				}
			}
		}
		if cls.Kind == "" {
			t.Fatalf("job %s: application %s is not of the llm set", j.Name, j.App)
		}
		app, err := set.App(j.App)
		if err != nil {
			t.Fatal(err)
		}
		if j.Batch < j.Replicas || j.Batch > app.Limits.MaxBatch {
			t.Errorf("job %s: batch %d outside [%d, %d]", j.Name, j.Batch, j.Replicas, app.Limits.MaxBatch)
		}
		kinds[cls.Kind]++
		classes[cls]++
	}
	band := func(what string, got int, p float64) {
		se := math.Sqrt(p * (1 - p) / n)
		if f := float64(got) / n; math.Abs(f-p) > 4*se {
			t.Errorf("%s: share %.4f, want %.4f ± %.4f", what, f, p, 4*se)
		}
	}
	total := 0.0
	for _, k := range workloads.LLMMix() {
		total += k.Share
		band(k.Kind, kinds[k.Kind], k.Share)
		for _, c := range k.Classes {
			band(fmt.Sprint(c), classes[c], k.Share/float64(len(k.Classes)))
			delete(classes, c)
		}
	}
	if math.Abs(total-1) > 1e-12 {
		t.Errorf("shares sum to %v, want 1", total)
	}
	if len(classes) > 0 {
		t.Errorf("jobs of classes outside the mix: %v", classes)
	}
}

// TestLLMGenArrivals: arrivals start at 0, never go back, and their mean
// gap is Hours/Jobs within 4 standard errors (exponential gaps: the
// standard deviation equals the mean).
func TestLLMGenArrivals(t *testing.T) {
	const n = 10000
	w, err := workloads.LLMGen{Jobs: n, Seed: 3, Hours: 8}.Make(profiles.LLM())
	if err != nil {
		t.Fatal(err)
	}
	if w.Jobs[0].Time != 0 {
		t.Errorf("first arrival %v, want 0", w.Jobs[0].Time)
	}
	for i := 1; i < n; i++ {
		if w.Jobs[i].Time < w.Jobs[i-1].Time {
			t.Fatalf("job %d arrives at %v before job %d at %v", i, w.Jobs[i].Time, i-1, w.Jobs[i-1].Time)
		}
	}
	mean := 8 * 3600.0 / n
	got := w.Jobs[n-1].Time / (n - 1)
	if se := mean / math.Sqrt(n-1); math.Abs(got-mean) > 4*se+0.5/(n-1) {
		t.Errorf("mean gap %.3f s, want %.3f ± %.3f", got, mean, 4*se)
	}
}

// TestLLMGenDeterministic: one seed gives one workload through the
// registry; another seed another.
func TestLLMGenDeterministic(t *testing.T) {
	ext, err := intree.With()
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := ext.ResolveWorkload("llm:jobs=300,seed=5,hours=4", ext.WorkloadEnv(profiles.LLM(), 8))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := ext.ResolveWorkload("llm:seed=5,hours=4,jobs=300", ext.WorkloadEnv(profiles.LLM(), 8))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("the same description gave two workloads")
	}
	c, _, err := ext.ResolveWorkload("llm:jobs=300,seed=6,hours=4", ext.WorkloadEnv(profiles.LLM(), 8))
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Error("seeds 5 and 6 gave the same jobs")
	}
	if len(a.Jobs) != 300 || a.Source != "llm:jobs=300,seed=5,hours=4" {
		t.Errorf("%d jobs from %q, want 300 from the reference", len(a.Jobs), a.Source)
	}
}

// TestLLMGenRefusals: bad descriptions are refused in one line naming
// the key; the six 2019 applications' profile sets are refused naming
// --profiles.
func TestLLMGenRefusals(t *testing.T) {
	ext, err := intree.With()
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"llm:jobs=0":         "jobs=0",
		"llm:jobs=x":         "jobs=x",
		"llm:jobs=2000000":   "jobs=2000000",
		"llm:seed=-1":        "seed=-1",
		"llm:hours=0":        "hours=0",
		"llm:hours=NaN":      "hours=NaN",
		"llm:hours=+Inf":     "hours=+Inf",
		"llm:load=2":         `unknown key "load"`,
		"llm:jobs=1,jobs=2":  "jobs",
		"llm:jobs":           "jobs",
		"llm:jobs=10,,seed=": "llm:",
		"llm:,,":             `llm: ",," is not key=value`,
	} {
		_, _, err := ext.ResolveWorkload(ref, ext.WorkloadEnv(profiles.LLM(), 8))
		if err == nil {
			t.Errorf("%s: no error", ref)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line naming %q", ref, msg, want)
		}
	}
	for _, set := range []*profiles.Set{nil, profiles.Default()} {
		if _, _, err := ext.ResolveWorkload("llm:jobs=10", ext.WorkloadEnv(set, 4)); err == nil || !strings.Contains(err.Error(), "--profiles llm") {
			t.Errorf("profiles %v: error %v, want one naming --profiles llm", set, err)
		}
	}
}
