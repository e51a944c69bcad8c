package traces

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// How SampleTrace puts a trace's jobs into the four GPU-time classes that
// decide their applications (TraceSampleOptions.Categories).
const (
	// CategoriesQuantile (the default) recomputes the class limits per
	// trace: they are the trace's GPU-time quantiles at the shares the
	// paper's Philly pool has below 1, 10 and 100 GPU-hours (24,498,
	// 4,771, 1,438 and 586 of 31,293 jobs: 78.3 %, 93.5 %, 98.1 %), so a
	// workload from any trace has the paper's application mix, its
	// largest jobs becoming imagenet and its smallest cifar10 or ncf.
	CategoriesQuantile = "quantile"
	// CategoriesAbsolute keeps Philly's limits, 1, 10 and 100 GPU-hours,
	// whatever the trace: the mix follows the trace's own job sizes.
	CategoriesAbsolute = "absolute"
)

// What SampleTrace does with jobs that ask for more GPUs than
// TraceSampleOptions.MaxGPUs (the largest placement any profile measured).
const (
	// OversizeCap (the default) gives a realistic job MaxGPUs GPUs (batch
	// B0 × MaxGPUs) and counts it.
	OversizeCap = "cap"
	// OversizeSkip leaves the trace's larger jobs out of the pool sampled
	// (whatever the configuration, so tuned and realistic workloads of a
	// seed keep the same arrivals) and counts them.
	OversizeSkip = "skip"
	// OversizeRefuse makes a realistic workload with a larger job an error
	// that says how many there are.
	OversizeRefuse = "refuse"
)

// KeepAllFilter keeps every job whatever its duration and GPU time: with
// TraceSampleOptions.All, a replay of all the trace's jobs (the default
// filter leaves out jobs under 60 s and of 1000 GPU-hours or more, as the
// paper's generator does).
func KeepAllFilter() PhillyFilter {
	return PhillyFilter{MinDuration: 0, MaxGPUTime: math.MaxFloat64, ShiftHours: 0, WindowHours: 24}
}

// TraceSampleOptions configures SampleTrace.
type TraceSampleOptions struct {
	// Jobs is the number of jobs to sample (ignored with All).
	Jobs int
	// Seed selects the sample; the same table, seed and options give the
	// same workload, byte for byte.
	Seed uint64
	// Config is ConfigTuned (the default when empty) or ConfigRealistic.
	Config string
	// Apps gives every application of GeneratedApps its B0 and tuned pairs.
	Apps map[string]AppConfig
	// Filter keeps jobs by duration and GPU time and, unless All or Until
	// is set, places them by time of day (the zero value means
	// DefaultPhillyFilter: ≥ 60 s, < 1000 GPU-hours, 02:00–10:00). For a
	// trace with relative times (ITP) the time of day counts from the
	// trace's start as midnight.
	Filter PhillyFilter
	// All makes every job the filter keeps by duration and GPU time a job
	// at its own submission time, counted from the earliest one kept: the
	// whole trace replayed, no sampling (Jobs is ignored).
	All bool
	// From and Until, when Until > 0, replace the daily window by one span
	// of the trace: jobs submitted in [From, Until) seconds, arriving at
	// Submit − From.
	From, Until float64
	// Categories is CategoriesQuantile (default) or CategoriesAbsolute.
	Categories string
	// MaxGPUs, when positive, is the largest GPU count a job may have
	// (the largest placement of the profiles); Oversize says what happens
	// to larger ones. Tuned pairs come from the profiles and are not
	// capped.
	MaxGPUs  int
	Oversize string
}

// TraceSampleReport says how SampleTrace read the trace.
type TraceSampleReport struct {
	// Trace names the table sampled.
	Trace string `json:"trace"`
	// Rows is the number of jobs of the table; Pool of them passed the
	// filter and the window (and, with OversizeSkip, the size limit).
	Rows int `json:"rows"`
	Pool int `json:"pool"`
	// Categories is the class rule used; LimitsGPUHours the class limits
	// (a job of GPU time ≥ LimitsGPUHours[k] is in a class above k), and
	// PoolByClass the pool's jobs per class.
	Categories     string     `json:"categories"`
	LimitsGPUHours [3]float64 `json:"limits_gpu_hours"`
	PoolByClass    [4]int     `json:"pool_by_class"`
	// Oversize counts the jobs of the filtered trace with more than
	// MaxGPUs GPUs; with OversizeSkip they are not in the pool.
	Oversize int `json:"oversize"`
	// Capped counts the workload's realistic jobs given MaxGPUs GPUs.
	Capped int `json:"capped"`
}

// philly's GPU-time limits of the four classes, in GPU-seconds.
var phillyLimits = [3]float64{3600, 36000, 360000}

// SampleTrace makes a workload from any trace table by the paper's method
// (see Generate, which does this for Philly): keep the jobs the filter
// passes, sample opts.Jobs of them without replacement, arrival = the
// job's place in the window, application by the job's GPU-time class
// (< limit 1 → cifar10 or ncf; → 2 deepspeech2 or bert; → 3 yolov3; above
// → imagenet), tuned or realistic configurations. The class limits are
// recomputed per trace unless opts.Categories is CategoriesAbsolute.
//
// On a Philly table (PhillyTrace) with CategoriesAbsolute and no MaxGPUs,
// SampleTrace gives the jobs Generate and GenerateAll give, byte for byte.
func SampleTrace(t *TraceTable, opts TraceSampleOptions) (*Workload, *TraceSampleReport, error) {
	if t == nil || len(t.Jobs) == 0 {
		return nil, nil, errors.New("sample: empty trace")
	}
	gopt := GenerateOptions{Jobs: opts.Jobs, Seed: opts.Seed, Config: opts.Config, Apps: opts.Apps}
	config, err := gopt.config()
	if err != nil {
		return nil, nil, err
	}
	f := opts.Filter
	if f == (PhillyFilter{}) {
		f = DefaultPhillyFilter()
	}
	if err := f.validate(); err != nil {
		return nil, nil, fmt.Errorf("sample: %w", err)
	}
	switch {
	case opts.Until > 0 && (opts.All || !(opts.From >= 0) || opts.From >= opts.Until || opts.Until > maxTraceSeconds):
		return nil, nil, fmt.Errorf("sample: window [%v, %v) s must satisfy 0 ≤ from < until, without All", opts.From, opts.Until)
	case opts.Until <= 0 && opts.From != 0:
		return nil, nil, fmt.Errorf("sample: a window start (from %v s) needs its end (until)", opts.From)
	case opts.MaxGPUs < 0:
		return nil, nil, fmt.Errorf("sample: max GPUs %d must not be negative", opts.MaxGPUs)
	}
	oversize := opts.Oversize
	if oversize == "" {
		oversize = OversizeCap
	}
	if oversize != OversizeCap && oversize != OversizeSkip && oversize != OversizeRefuse {
		return nil, nil, fmt.Errorf("sample: unknown oversize rule %q (want %s, %s or %s)", opts.Oversize, OversizeCap, OversizeSkip, OversizeRefuse)
	}
	cats := opts.Categories
	if cats == "" {
		cats = CategoriesQuantile
	}
	if cats != CategoriesQuantile && cats != CategoriesAbsolute {
		return nil, nil, fmt.Errorf("sample: unknown categories %q (want %s or %s)", opts.Categories, CategoriesQuantile, CategoriesAbsolute)
	}
	rep := &TraceSampleReport{Trace: t.Name, Rows: len(t.Jobs), Categories: cats}

	// The jobs kept, and their arrivals.
	tod0 := 0
	if !t.Start.IsZero() {
		h, m, s := t.Start.Clock()
		tod0 = h*3600 + m*60 + s
	}
	first := math.Inf(1)
	keepSize := func(j *TraceJob) bool { return j.Duration >= f.MinDuration && j.GPUTime() < f.MaxGPUTime }
	for i := range t.Jobs {
		if j := &t.Jobs[i]; keepSize(j) {
			first = math.Min(first, j.Submit)
		}
	}
	place := func(j *TraceJob) (int, bool) {
		if !keepSize(j) {
			return 0, false
		}
		switch {
		case opts.All:
			return int(math.Floor(j.Submit - first)), true
		case opts.Until > 0:
			return int(math.Floor(j.Submit - opts.From)), j.Submit >= opts.From && j.Submit < opts.Until
		}
		tod := (tod0+int(math.Mod(math.Floor(j.Submit), 86400)))%86400 - f.ShiftHours*3600
		if tod < 0 {
			tod += 24 * 3600
		}
		return tod, tod < f.window()
	}
	var gpuTimes []float64
	for i := range t.Jobs {
		j := &t.Jobs[i]
		if _, ok := place(j); !ok {
			continue
		}
		if opts.MaxGPUs > 0 && j.GPUs > opts.MaxGPUs {
			rep.Oversize++
			if oversize == OversizeSkip {
				continue
			}
		}
		gpuTimes = append(gpuTimes, j.GPUTime())
	}
	if len(gpuTimes) == 0 {
		return nil, rep, fmt.Errorf("sample: the filter and window keep none of the %d jobs of %s", len(t.Jobs), t.Name)
	}
	limits := phillyLimits
	if cats == CategoriesQuantile {
		if limits, err = quantileLimits(gpuTimes); err != nil {
			return nil, rep, err
		}
	}
	for k := range limits {
		rep.LimitsGPUHours[k] = limits[k] / 3600
	}
	catOf := categoryOf
	if cats == CategoriesQuantile {
		catOf = func(g float64) category {
			c := catTiny
			for _, l := range limits {
				if g >= l {
					c++
				}
			}
			return c
		}
	}
	pop := buildPool(len(t.Jobs), func(i int) (poolJob, bool) {
		j := &t.Jobs[i]
		at, ok := place(j)
		if ok && oversize == OversizeSkip && opts.MaxGPUs > 0 && j.GPUs > opts.MaxGPUs {
			ok = false
		}
		return poolJob{arrival: at, gpuTime: j.GPUTime(), duration: j.Duration, gpus: j.GPUs}, ok
	}, catOf)
	rep.Pool = pop.size()
	for _, d := range pop.jobs {
		rep.PoolByClass[d.cat]++
	}

	draws := pop.jobs
	if !opts.All {
		switch {
		case opts.Jobs < 1:
			return nil, rep, fmt.Errorf("sample: number of jobs %d must be at least 1", opts.Jobs)
		case opts.Jobs > pop.size():
			return nil, rep, fmt.Errorf("sample: cannot sample %d jobs without replacement from the %d jobs of %s the filter keeps", opts.Jobs, pop.size(), t.Name)
		}
		draws = pop.sample(opts.Jobs, rand.New(rand.NewPCG(opts.Seed, streamSample)))
	}
	jobs := assemble(draws, pop, gopt, config)
	if opts.MaxGPUs > 0 && config == ConfigRealistic {
		over := 0
		for i := range jobs {
			if jobs[i].Replicas > opts.MaxGPUs {
				over++
				if oversize != OversizeRefuse {
					jobs[i].Replicas, jobs[i].Batch = opts.MaxGPUs, opts.Apps[jobs[i].App].InitBatch*opts.MaxGPUs
				}
			}
		}
		if over > 0 && oversize == OversizeRefuse {
			return nil, rep, fmt.Errorf("sample: %d of the %d jobs ask for more than %d GPUs, the largest placement measured (cap them or skip them)", over, len(jobs), opts.MaxGPUs)
		}
		rep.Capped = over
	}
	how := fmt.Sprintf("%d jobs sampled", len(jobs))
	if opts.All {
		how = fmt.Sprintf("all %d jobs kept", len(jobs))
	}
	return &Workload{
		Source: fmt.Sprintf("generated from %s: %s, seed %d, %s configs, %s GPU-time classes", t.Name, how, opts.Seed, config, cats),
		Jobs:   jobs,
	}, rep, nil
}

// quantileLimits returns the GPU times at the paper pool's class shares
// (see CategoriesQuantile), from the embedded Philly summary's counts.
func quantileLimits(gpuTimes []float64) ([3]float64, error) {
	var limits [3]float64
	s, err := DefaultSummary()
	if err != nil {
		return limits, err
	}
	sorted := slices.Clone(gpuTimes)
	slices.Sort(sorted)
	n, cum := len(sorted), 0
	for k := range limits {
		cum += s.Categories[k].Jobs
		i := int(math.Round(float64(cum) / float64(s.Kept) * float64(n)))
		if i >= n {
			limits[k] = sorted[n-1] + 1 // above every job: the class above is empty
		} else {
			limits[k] = sorted[i]
		}
	}
	return limits, nil
}

// SampleTraceByName reads the trace ref names (formats.Read, e.g.
// "itp:cluster02") and samples it (SampleTrace): what a workload source
// of traces does.
func SampleTraceByName(formats *TraceFormats, ref string, opts TraceSampleOptions) (*Workload, *TraceSampleReport, error) {
	t, err := formats.Read(ref)
	if err != nil {
		return nil, nil, err
	}
	return SampleTrace(t, opts)
}
