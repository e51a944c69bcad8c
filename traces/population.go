package traces

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// PhillyFilter selects the Philly jobs a workload is sampled from and
// places them in the workload's time window (the reference generator's
// defaults are DefaultPhillyFilter).
type PhillyFilter struct {
	// MinDuration keeps jobs that ran at least this many seconds.
	MinDuration float64 `json:"min_duration_s"`
	// MaxGPUTime keeps jobs with strictly less GPU time, in GPU-seconds.
	MaxGPUTime float64 `json:"max_gpu_time_s"`
	// ShiftHours moves submission times back by this many hours before
	// the window is applied.
	ShiftHours int `json:"shift_hours"`
	// WindowHours keeps jobs whose shifted time of day is in
	// [0, WindowHours) hours, on any date; the shifted time of day is the
	// job's arrival in the workload.
	WindowHours int `json:"window_hours"`
}

// DefaultPhillyFilter returns the reference's filter: duration ≥ 60 s,
// GPU time < 1000 GPU-hours, times shifted back 2 h, the 8 hours from
// 02:00 to 10:00 (cluster time) of every day.
func DefaultPhillyFilter() PhillyFilter {
	return PhillyFilter{MinDuration: 60, MaxGPUTime: 1000 * 3600, ShiftHours: 2, WindowHours: 8}
}

func (f PhillyFilter) validate() error {
	switch {
	case f.MinDuration < 0 || f.MinDuration != f.MinDuration:
		return fmt.Errorf("filter: min duration %v must be ≥ 0", f.MinDuration)
	case !(f.MaxGPUTime > 0):
		return fmt.Errorf("filter: max GPU time %v must be > 0", f.MaxGPUTime)
	case f.ShiftHours < 0 || f.ShiftHours > 23:
		return fmt.Errorf("filter: shift %d h must be in 0..23", f.ShiftHours)
	case f.WindowHours < 1 || f.WindowHours > 24:
		return fmt.Errorf("filter: window %d h must be in 1..24", f.WindowHours)
	}
	return nil
}

// window is the length of the arrival window in seconds.
func (f PhillyFilter) window() int { return f.WindowHours * 3600 }

// arrival returns the job's arrival second in the window and whether the
// filter keeps the job.
func (f PhillyFilter) arrival(j *PhillyJob) (int, bool) {
	if j.Duration < f.MinDuration || !(j.GPUTime < f.MaxGPUTime) {
		return 0, false
	}
	h, m, s := j.Submitted.Clock()
	tod := h*3600 + m*60 + s - f.ShiftHours*3600
	if tod < 0 {
		tod += 24 * 3600
	}
	return tod, tod < f.window()
}

// category is a Philly job's class by GPU time, which decides its
// application (see Generate).
type category int

const (
	catTiny   category = iota // < 1 GPU-hour: cifar10 or ncf
	catSmall                  // 1–10 GPU-hours: deepspeech2 or bert
	catMedium                 // 10–100 GPU-hours: yolov3
	catLarge                  // ≥ 100 GPU-hours: imagenet
	numCategories
)

func categoryOf(gpuTime float64) category {
	switch h := gpuTime / 3600; {
	case h < 1:
		return catTiny
	case h < 10:
		return catSmall
	case h < 100:
		return catMedium
	default:
		return catLarge
	}
}

// name is the category's name in the summary file.
func (c category) name() string {
	return [...]string{"gpu_hours_lt_1", "gpu_hours_1_to_10", "gpu_hours_10_to_100", "gpu_hours_ge_100"}[c]
}

// shortJob is the longest duration, in seconds, of the jobs whose GPU
// counts the reference draws for yolov3 and imagenet in realistic
// workloads (jobs of at most a day).
const shortJob = 24 * 3600

// draw is one sampled Philly job, as the generator needs it.
type draw struct {
	arrival int // seconds into the window
	cat     category
	gpus    int
}

// population is a filtered set of Philly jobs to sample from.
type population interface {
	// size is how many jobs there are to sample without replacement.
	size() int
	// sample draws n ≤ size() distinct jobs in random order.
	sample(n int, r *rand.Rand) []draw
	// shortGPUs is the GPU-count histogram of the category's jobs that ran
	// at most a day (what realistic yolov3/imagenet jobs draw from).
	shortGPUs(c category) []GPUCount
}

// GPUCount is one bar of a GPU-count histogram: Jobs jobs used GPUs GPUs.
type GPUCount struct {
	GPUs int
	Jobs int
}

// drawGPUs picks a GPU count with probability proportional to its jobs;
// ok is false for an empty histogram.
func drawGPUs(h []GPUCount, r *rand.Rand) (gpus int, ok bool) {
	total := 0
	for _, c := range h {
		total += c.Jobs
	}
	if total == 0 {
		return 0, false
	}
	x := r.IntN(total)
	for _, c := range h {
		if x < c.Jobs {
			return c.GPUs, true
		}
		x -= c.Jobs
	}
	return h[len(h)-1].GPUs, true // unreachable
}

// tablePopulation is the real trace, filtered.
type tablePopulation struct {
	jobs  []draw
	short [numCategories][]GPUCount
}

func newTablePopulation(t *PhillyTable, f PhillyFilter) (*tablePopulation, error) {
	if t == nil || len(t.Jobs) == 0 {
		return nil, errors.New("empty Philly table")
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return buildPool(len(t.Jobs), func(i int) (poolJob, bool) {
		j := &t.Jobs[i]
		at, ok := f.arrival(j)
		return poolJob{arrival: at, gpuTime: j.GPUTime, duration: j.Duration, gpus: j.GPUs}, ok
	}, categoryOf), nil
}

// poolJob is what a population needs of a trace job.
type poolJob struct {
	arrival           int // seconds into the workload
	gpuTime, duration float64
	gpus              int
}

// buildPool makes the population of the n jobs job(i) keeps, in index
// order, each in the class cat gives its GPU time, with the GPU-count
// histograms of each class's jobs that ran at most a day.
func buildPool(n int, job func(i int) (poolJob, bool), cat func(gpuTime float64) category) *tablePopulation {
	p := &tablePopulation{}
	var short [numCategories]map[int]int
	for i := 0; i < n; i++ {
		j, ok := job(i)
		if !ok {
			continue
		}
		c := cat(j.gpuTime)
		p.jobs = append(p.jobs, draw{arrival: j.arrival, cat: c, gpus: j.gpus})
		if j.duration <= shortJob {
			if short[c] == nil {
				short[c] = map[int]int{}
			}
			short[c][j.gpus]++
		}
	}
	for c := range short {
		p.short[c] = histogram(short[c])
	}
	return p
}

func (p *tablePopulation) size() int { return len(p.jobs) }

func (p *tablePopulation) sample(n int, r *rand.Rand) []draw {
	// A partial Fisher–Yates shuffle of the indices: the first n of a
	// uniformly random permutation.
	idx := make([]int32, len(p.jobs))
	for i := range idx {
		idx[i] = int32(i)
	}
	out := make([]draw, n)
	for i := 0; i < n; i++ {
		k := i + r.IntN(len(idx)-i)
		idx[i], idx[k] = idx[k], idx[i]
		out[i] = p.jobs[idx[i]]
	}
	return out
}

func (p *tablePopulation) shortGPUs(c category) []GPUCount { return p.short[c] }

// histogram turns GPU-count counts into bars sorted by GPU count.
func histogram(m map[int]int) []GPUCount {
	h := make([]GPUCount, 0, len(m))
	for g, n := range m {
		h = append(h, GPUCount{GPUs: g, Jobs: n})
	}
	sortGPUCounts(h)
	return h
}

func sortGPUCounts(h []GPUCount) {
	slices.SortFunc(h, func(a, b GPUCount) int { return cmp.Compare(a.GPUs, b.GPUs) })
}
