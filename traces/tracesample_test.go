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

// phillySampleOptions are SampleTrace's options that reproduce Generate
// on a Philly table.
func phillySampleOptions(seed uint64, config string) TraceSampleOptions {
	return TraceSampleOptions{Jobs: 160, Seed: seed, Config: config, Apps: formatApps(), Categories: CategoriesAbsolute}
}

// samePhillyWorkloads checks SampleTrace on PhillyTrace(tab) gives
// Generate's and GenerateAll's jobs, byte for byte.
func samePhillyWorkloads(t *testing.T, tab *PhillyTable, seeds []uint64) {
	t.Helper()
	tt := PhillyTrace(tab)
	for _, config := range []string{ConfigTuned, ConfigRealistic} {
		for _, seed := range seeds {
			want, err := Generate(tab, GenerateOptions{Jobs: 160, Seed: seed, Config: config, Apps: formatApps()})
			if err != nil {
				t.Fatal(err)
			}
			got, rep, err := SampleTrace(tt, phillySampleOptions(seed, config))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(csvBytes(t, got), csvBytes(t, want)) {
				t.Fatalf("%s seed %d: SampleTrace differs from Generate", config, seed)
			}
			if rep.LimitsGPUHours != [3]float64{1, 10, 100} {
				t.Errorf("limits %v", rep.LimitsGPUHours)
			}
		}
		opts := phillySampleOptions(3, config)
		opts.All = true
		got, _, err := SampleTrace(tt, opts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := GenerateAll(tab, GenerateOptions{Seed: 3, Config: config, Apps: formatApps()})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(csvBytes(t, got), csvBytes(t, want)) {
			t.Fatalf("%s: SampleTrace All differs from GenerateAll", config)
		}
	}
}

// TestSampleTraceIsGenerateOnPhilly: the general sampler, given a Philly
// table and Philly's class limits, is the Philly generator.
func TestSampleTraceIsGenerateOnPhilly(t *testing.T) {
	samePhillyWorkloads(t, syntheticPhilly(20000, 7), []uint64{1, 2, 3})
}

func TestSampleTraceIsGenerateOnRealPhilly(t *testing.T) {
	tab, _, err := ReadPhilly(filepath.Join(refdata.Dir(t), "traces", "philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	samePhillyWorkloads(t, tab, []uint64{1, 2, 3, 4, 5, 6, 7, 8})
}

// TestSampleITPQuantileClasses: on ITP the recomputed limits give the
// paper pool's class shares (within the ties of whole-second durations),
// and a realistic workload caps or skips jobs above a placement limit.
func TestSampleITPQuantileClasses(t *testing.T) {
	s, err := DefaultSummary()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"cluster02", "cluster04", "cluster07"} {
		tab, err := ReadITP(c)
		if err != nil {
			t.Fatal(err)
		}
		w, rep, err := SampleTrace(tab, TraceSampleOptions{Jobs: 160, Seed: 1, Apps: formatApps()})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != 160 || rep.Categories != CategoriesQuantile {
			t.Fatalf("%s: %d jobs, %+v", c, len(w.Jobs), rep)
		}
		for k := range rep.PoolByClass {
			want := float64(s.Categories[k].Jobs) / float64(s.Kept)
			got := float64(rep.PoolByClass[k]) / float64(rep.Pool)
			if math.Abs(got-want) > 0.02 {
				t.Errorf("%s class %d: share %.3f, paper pool %.3f", c, k, got, want)
			}
		}
		for _, j := range w.Jobs {
			if j.Time < 0 || j.Time >= 8*3600 {
				t.Fatalf("%s: arrival %v outside the 8-hour window", c, j.Time)
			}
		}
		t.Logf("%s: pool %d of %d, limits %.2f / %.2f / %.2f GPU-h, classes %v, mix %v", c, rep.Pool, rep.Rows,
			rep.LimitsGPUHours[0], rep.LimitsGPUHours[1], rep.LimitsGPUHours[2], rep.PoolByClass, w.Mix())
	}
	tab, err := ReadITP("cluster02")
	if err != nil {
		t.Fatal(err)
	}
	opts := TraceSampleOptions{All: true, Seed: 1, Config: ConfigRealistic, Apps: formatApps(), MaxGPUs: 16}
	w, rep, err := SampleTrace(tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for _, j := range w.Jobs {
		largest = max(largest, j.Replicas)
		if j.Batch != formatApps()[j.App].InitBatch*j.Replicas {
			t.Fatalf("job %+v: batch is not B0 × GPUs", j)
		}
	}
	if largest != 16 || rep.Capped == 0 || rep.Oversize == 0 {
		t.Errorf("cap: largest %d, report %+v", largest, rep)
	}
	opts.Oversize = OversizeSkip
	w2, rep2, err := SampleTrace(tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Pool != rep.Pool-rep.Oversize || len(w2.Jobs) != rep2.Pool || rep2.Oversize != rep.Oversize {
		t.Errorf("skip: pool %d (cap's %d, oversize %d), %d jobs", rep2.Pool, rep.Pool, rep.Oversize, len(w2.Jobs))
	}
	opts.Oversize = OversizeRefuse
	if _, _, err := SampleTrace(tab, opts); err == nil || !strings.Contains(err.Error(), "ask for more than 16 GPUs") {
		t.Errorf("refuse: %v", err)
	}
	t.Logf("cluster02 whole, realistic, max 16 GPUs: %d jobs, %d oversize in the trace, %d capped (cap) / pool %d (skip)",
		len(w.Jobs), rep.Oversize, rep.Capped, rep2.Pool)
}

func TestSampleTraceWindowAndErrors(t *testing.T) {
	in := "job_id,submission_time,duration,num_gpu\n"
	for i := 0; i < 100; i++ {
		in += fmt.Sprintf("j%d,%d,%d,%d\n", i, i*1000, 100+i*50, 1+i%4)
	}
	tab, err := ParseITP(strings.NewReader(in), "w.csv")
	if err != nil {
		t.Fatal(err)
	}
	w, rep, err := SampleTrace(tab, TraceSampleOptions{Jobs: 10, Seed: 4, Apps: formatApps(), From: 20000, Until: 50000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pool != 30 || len(w.Jobs) != 10 {
		t.Errorf("window: pool %d, %d jobs", rep.Pool, len(w.Jobs))
	}
	for _, j := range w.Jobs {
		if j.Time < 0 || j.Time >= 30000 || math.Mod(j.Time, 1000) != 0 {
			t.Errorf("arrival %v", j.Time)
		}
	}
	a, _, _ := SampleTrace(tab, TraceSampleOptions{Jobs: 10, Seed: 4, Apps: formatApps(), From: 20000, Until: 50000})
	if !bytes.Equal(csvBytes(t, a), csvBytes(t, w)) {
		t.Error("same seed, different workload")
	}
	for _, c := range []struct {
		opts TraceSampleOptions
		want string
	}{
		{TraceSampleOptions{Jobs: 31, Apps: formatApps(), From: 20000, Until: 50000}, "cannot sample 31 jobs"},
		{TraceSampleOptions{Jobs: 1, Apps: formatApps(), From: 5, Until: 5}, "window"},
		{TraceSampleOptions{Jobs: 1, Apps: formatApps(), From: 5}, "needs its end"},
		{TraceSampleOptions{Jobs: 1, Apps: formatApps(), Oversize: "drop"}, `unknown oversize rule "drop"`},
		{TraceSampleOptions{Jobs: 1, Apps: formatApps(), Categories: "log"}, `unknown categories "log"`},
		{TraceSampleOptions{Jobs: 0, Apps: formatApps()}, "at least 1"},
		{TraceSampleOptions{Jobs: 1}, "no configuration for application"},
		{TraceSampleOptions{Jobs: 1, Apps: formatApps(), From: 1e8, Until: 2e8}, "keep none"},
	} {
		if _, _, err := SampleTrace(tab, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opts, err, c.want)
		}
	}
}

// TestKeepAllFilterReplaysEveryJob: a whole replay with KeepAllFilter has
// every job of the cluster, at its own time from the earliest.
func TestKeepAllFilterReplaysEveryJob(t *testing.T) {
	tab, err := ReadITP("cluster02")
	if err != nil {
		t.Fatal(err)
	}
	w, rep, err := SampleTrace(tab, TraceSampleOptions{All: true, Filter: KeepAllFilter(), Apps: formatApps()})
	if err != nil {
		t.Fatal(err)
	}
	first := math.Inf(1)
	for _, j := range tab.Jobs {
		first = math.Min(first, j.Submit)
	}
	last := w.Jobs[len(w.Jobs)-1].Time
	if len(w.Jobs) != 5778 || rep.Pool != 5778 || w.Jobs[0].Time != 0 || math.Abs(last/86400-59.7) > 0.05 {
		t.Errorf("%d jobs, pool %d, first %v, last %.1f days (first submission %v)", len(w.Jobs), rep.Pool, w.Jobs[0].Time, last/86400, first)
	}
}

func TestSetWindow(t *testing.T) {
	for spec, want := range map[string]TraceSampleOptions{
		"daily":            {Filter: DefaultPhillyFilter()},
		"daily:0-24":       {Filter: PhillyFilter{MinDuration: 60, MaxGPUTime: 1000 * 3600, ShiftHours: 0, WindowHours: 24}},
		"daily:9-17":       {Filter: PhillyFilter{MinDuration: 60, MaxGPUTime: 1000 * 3600, ShiftHours: 9, WindowHours: 8}},
		"all":              {Filter: DefaultPhillyFilter(), All: true},
		"span:3600-7200":   {Filter: DefaultPhillyFilter(), From: 3600, Until: 7200},
		"span:10d-10d8h":   {Filter: DefaultPhillyFilter(), From: 864000, Until: 864000 + 8*3600},
		"span:1.5h-90m":    {},
		"daily:10-2":       {},
		"daily:24-24":      {},
		"span:5-5":         {},
		"weekly":           {},
		"all:1":            {},
		"span:-1-5":        {},
		"span:1e400-1e401": {},
	} {
		var o TraceSampleOptions
		err := o.SetWindow(spec)
		if want.Filter == (PhillyFilter{}) {
			if err == nil {
				t.Errorf("SetWindow(%q) accepted: %+v", spec, o)
			}
			continue
		}
		if err != nil || o.Filter != want.Filter || o.All != want.All || o.From != want.From || o.Until != want.Until {
			t.Errorf("SetWindow(%q) = %+v, %v; want %+v", spec, o, err, want)
		}
	}
	// A filter's own limits are kept.
	o := TraceSampleOptions{Filter: KeepAllFilter()}
	if err := o.SetWindow("daily:2-10"); err != nil || o.Filter.MaxGPUTime != KeepAllFilter().MaxGPUTime || o.Filter.WindowHours != 8 {
		t.Errorf("%+v, %v", o.Filter, err)
	}
}
