package traces

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
)

// Job configurations a generated workload can carry (GenerateOptions.Config).
const (
	// ConfigTuned gives every job one of its application's tuned
	// (GPUs, batch size) pairs, at random: the paper's "TunedJobs".
	ConfigTuned = "tuned"
	// ConfigRealistic gives every job the GPU count of the Philly job it
	// was sampled from and the batch size B0 × GPUs: what users asked for.
	ConfigRealistic = "realistic"
)

// The applications Generate assigns, by the Philly job's GPU time.
const (
	AppCIFAR10     = "cifar10"
	AppNCF         = "ncf"
	AppDeepSpeech2 = "deepspeech2"
	AppBERT        = "bert"
	AppYOLOv3      = "yolov3"
	AppImageNet    = "imagenet"
)

// GeneratedApps lists the applications Generate assigns, sorted.
func GeneratedApps() []string {
	return []string{AppBERT, AppCIFAR10, AppDeepSpeech2, AppImageNet, AppNCF, AppYOLOv3}
}

// TunedPair is one tuned job configuration: a GPU count and a total batch
// size.
type TunedPair struct {
	Replicas int
	Batch    int
}

// AppConfig is what the generator needs to know of an application.
type AppConfig struct {
	// InitBatch is the initial batch size B0 (realistic batch = B0 × GPUs).
	InitBatch int
	// Tuned lists the tuned configurations; a tuned job gets one of them
	// uniformly at random.
	Tuned []TunedPair
}

// GenerateOptions configures Generate.
type GenerateOptions struct {
	// Jobs is the number of jobs; 160 is the reference's 1.0× load, so
	// the load is Jobs/160 (80, 240, 320 for 0.5×, 1.5×, 2.0×).
	Jobs int
	// Seed selects the random sample; the same seed, source and options
	// give the same workload, byte for byte.
	Seed uint64
	// Config is ConfigTuned (the default when empty) or ConfigRealistic.
	Config string
	// Apps gives every application of GeneratedApps its B0 and tuned
	// pairs (only B0 is needed for realistic workloads, only the pairs for
	// tuned ones).
	Apps map[string]AppConfig
	// MaxReplicas, when positive, caps the GPU count of realistic jobs
	// (batch = B0 × the capped count). The reference does not cap; no job
	// of the filtered trace has more than 64 GPUs.
	MaxReplicas int
	// Filter selects and places the Philly jobs when sampling a
	// *PhillyTable; the zero value means DefaultPhillyFilter. A *Summary
	// carries the filter it was made with; a different non-zero Filter is
	// an error.
	Filter PhillyFilter
}

// Source is what Generate samples Philly jobs from: the real trace as a
// *PhillyTable, or its compact distribution as a *Summary (see
// DefaultSummary).
type Source interface {
	population(f PhillyFilter) (population, error)
	describe() string
}

func (t *PhillyTable) population(f PhillyFilter) (population, error) {
	if f == (PhillyFilter{}) {
		f = DefaultPhillyFilter()
	}
	return newTablePopulation(t, f)
}

func (t *PhillyTable) describe() string { return t.Source }

// Random streams: each decision has its own generator, derived from the
// seed, so that the tuned and realistic workloads of a seed share their
// arrivals and applications (as the reference's do) and one kind of
// decision never shifts another.
const (
	streamSample uint64 = 0x5a3f1c0de0000001 + iota
	streamApp
	streamTuned
	streamGPUs
)

// Generate makes a workload the way the reference generator does (see
// FORMAT.md of the reference data, "How the workloads were generated"):
// keep the Philly jobs the filter passes (duration ≥ 60 s, GPU time <
// 1000 GPU-hours, shifted time of day in the first 8 hours), sample
// opts.Jobs of them without replacement, and make each one a job that
// arrives at the Philly job's shifted time of day, with an application
// chosen by its GPU time: < 1 GPU-hour → cifar10 or ncf (even odds);
// 1–10 → deepspeech2, half of them switched to bert; 10–100 → yolov3;
// ≥ 100 → imagenet. Jobs are sorted by arrival (ties keep sample order)
// and named <application>-<rank>.
//
// Tuned jobs get a random tuned pair of their application. Realistic jobs
// get the Philly job's GPU count, except yolov3 and imagenet jobs, which
// like the reference's draw their GPU count from the jobs of their GPU-time
// class that ran at most a day (the long single-GPU jobs of those classes
// would be unrealistic), and batch size B0 × GPUs.
//
// Randomness comes only from opts.Seed (math/rand/v2 PCG streams); the
// output is not the reference's pandas sample, but has its distribution.
func Generate(src Source, opts GenerateOptions) (*Workload, error) {
	if src == nil {
		return nil, errors.New("generate: no Philly source")
	}
	config, err := opts.config()
	if err != nil {
		return nil, err
	}
	pop, err := src.population(opts.Filter)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	switch {
	case opts.Jobs < 1:
		return nil, fmt.Errorf("generate: number of jobs %d must be at least 1", opts.Jobs)
	case opts.Jobs > pop.size():
		return nil, fmt.Errorf("generate: cannot sample %d jobs without replacement from the %d Philly jobs the filter keeps", opts.Jobs, pop.size())
	}
	draws := pop.sample(opts.Jobs, rand.New(rand.NewPCG(opts.Seed, streamSample)))
	jobs := assemble(draws, pop, opts, config)
	return &Workload{
		Source: fmt.Sprintf("generated from %s: %d jobs, seed %d, %s configs", src.describe(), opts.Jobs, opts.Seed, config),
		Jobs:   jobs,
	}, nil
}

// checkAppConfigs makes sure every application the generator may assign
// has what the config needs, whatever the sample turns out to be.
func checkAppConfigs(apps map[string]AppConfig, config string) error {
	for _, name := range GeneratedApps() {
		ac, ok := apps[name]
		if !ok {
			return fmt.Errorf("generate: no configuration for application %q", name)
		}
		if ac.InitBatch < 1 {
			return fmt.Errorf("generate: application %q: initial batch size %d must be at least 1", name, ac.InitBatch)
		}
		if config == ConfigTuned && len(ac.Tuned) == 0 {
			return fmt.Errorf("generate: application %q has no tuned configuration", name)
		}
		for _, p := range ac.Tuned {
			if p.Replicas < 1 || p.Batch < 1 {
				return fmt.Errorf("generate: application %q: tuned pair (%d GPUs, batch %d) must be positive", name, p.Replicas, p.Batch)
			}
		}
	}
	return nil
}

// Mix counts the jobs of each application.
func (w *Workload) Mix() map[string]int {
	m := make(map[string]int)
	for _, j := range w.Jobs {
		m[j.App]++
	}
	return m
}

// assemble makes the workload's jobs from the drawn Philly jobs (see
// Generate): applications by GPU time, tuned or realistic configurations,
// sorted by arrival (ties keep draw order) and named <application>-<rank>.
func assemble(draws []draw, pop population, opts GenerateOptions, config string) []Job {
	rng := func(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(opts.Seed, stream)) }
	rApp, rTuned, rGPUs := rng(streamApp), rng(streamTuned), rng(streamGPUs)
	jobs := make([]Job, len(draws))
	for i, d := range draws {
		var app string
		switch d.cat {
		case catTiny:
			app = AppCIFAR10
			if rApp.IntN(2) == 1 {
				app = AppNCF
			}
		case catSmall:
			app = AppDeepSpeech2
			if rApp.IntN(2) == 1 {
				app = AppBERT
			}
		case catMedium:
			app = AppYOLOv3
		default:
			app = AppImageNet
		}
		gpus := d.gpus
		if d.cat == catMedium || d.cat == catLarge {
			if g, ok := drawGPUs(pop.shortGPUs(d.cat), rGPUs); ok {
				gpus = g
			}
		}
		if opts.MaxReplicas > 0 && gpus > opts.MaxReplicas {
			gpus = opts.MaxReplicas
		}
		ac := opts.Apps[app]
		var tuned TunedPair
		if len(ac.Tuned) > 0 {
			tuned = ac.Tuned[rTuned.IntN(len(ac.Tuned))]
		}
		job := Job{Time: float64(d.arrival), App: app}
		if config == ConfigTuned {
			job.Replicas, job.Batch = tuned.Replicas, tuned.Batch
		} else {
			job.Replicas, job.Batch = gpus, ac.InitBatch*gpus
		}
		jobs[i] = job
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Time < jobs[b].Time })
	for i := range jobs {
		jobs[i].Name = fmt.Sprintf("%s-%d", jobs[i].App, i)
	}
	return jobs
}

// config is the options' configuration kind (tuned by default), checked
// against the applications' configurations.
func (opts GenerateOptions) config() (string, error) {
	config := opts.Config
	if config == "" {
		config = ConfigTuned
	}
	if config != ConfigTuned && config != ConfigRealistic {
		return "", fmt.Errorf("generate: unknown config %q (want %q or %q)", opts.Config, ConfigTuned, ConfigRealistic)
	}
	if err := checkAppConfigs(opts.Apps, config); err != nil {
		return "", err
	}
	return config, nil
}
