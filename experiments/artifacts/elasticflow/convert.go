package elasticflow

import (
	"fmt"
	"math"
	"sort"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// Models maps the artifact's model names onto polluxsim's applications.
// The T4 models of its figure 8(a) trace (taken from Pollux's artifact)
// are polluxsim's own; its A100 models of the ITP traces are not profiled
// here and map onto the application of the same kind: the ImageNet CNNs
// onto imagenet (ResNet-50), GPT-2 onto bert (a Transformer fine-tuned),
// ResNet-50 on CIFAR-10 onto cifar10 (ResNet-18).
var Models = map[string]string{
	"cifar10": "cifar10", "ncf": "ncf", "yolov3": "yolov3", "imagenet": "imagenet",
	"deepspeech2": "deepspeech2", "bert": "bert",
	"resnet50": "imagenet", "vgg16": "imagenet", "inception3": "imagenet",
	"gpt2": "bert", "resnet50_cifar10": "cifar10",
}

// Deadline modes of Options.Deadlines.
const (
	// DeadlineFactor keeps each job's tightness: its deadline here is the
	// artifact's factor (deadline - submission) / duration times the job's
	// isolated run time here (sim.IsolatedRunTime).
	DeadlineFactor = "factor"
	// DeadlineSeconds keeps the artifact's deadline in seconds after
	// submission, whatever the job's run time here.
	DeadlineSeconds = "seconds"
)

// Options tunes Convert.
type Options struct {
	// Deadlines is DeadlineFactor (the default when empty) or
	// DeadlineSeconds.
	Deadlines string
	// GPUsPerNode packs a job's isolated run on the fewest nodes of this
	// size (default 4).
	GPUsPerNode int
	// MatchLoad multiplies every submission time by the workload's work
	// here over the artifact's (Report.GPUSeconds / ArtifactGPUSeconds),
	// so the offered load, GPU-seconds per second, is the artifact's.
	MatchLoad bool
}

// Report says what Convert did to the artifact's jobs.
type Report struct {
	// Jobs is the number converted; BestEffort how many have no deadline.
	Jobs, BestEffort int
	// Mapped counts jobs per "model->application".
	Mapped map[string]int
	// BatchReplaced counts jobs whose batch size polluxsim's profile
	// cannot run on their GPUs, given the application's initial batch.
	BatchReplaced int
	// ArtifactGPUSeconds and GPUSeconds are the workload's work, the sum
	// of GPUs times run time on the requested GPUs, in the artifact's
	// trace (duration) and here (isolated run time): their ratio is how
	// much heavier the converted workload is than the artifact's.
	ArtifactGPUSeconds, GPUSeconds float64
}

// Convert turns the artifact's jobs into a polluxsim workload: times
// shifted so the first submission is at 0, the model mapped by Models,
// num_replicas = num_gpu, the batch size kept where the profile can run
// it, and a deadline per Options.Deadlines. polluxsim's jobs train for
// their application's length (profiles.App.Epochs), not the artifact's
// per-job iteration count, so a job's run time here is its application's,
// not the artifact's duration (Report.GPUSeconds against
// ArtifactGPUSeconds measures the difference).
func Convert(jobs []Job, set *profiles.Set, opts Options) (*traces.Workload, Report, error) {
	rep := Report{Mapped: map[string]int{}}
	mode := opts.Deadlines
	if mode == "" {
		mode = DeadlineFactor
	}
	if mode != DeadlineFactor && mode != DeadlineSeconds {
		return nil, rep, fmt.Errorf("deadlines %q: want %s or %s", mode, DeadlineFactor, DeadlineSeconds)
	}
	gpn := opts.GPUsPerNode
	if gpn < 1 {
		gpn = 4
	}
	if len(jobs) == 0 {
		return nil, rep, fmt.Errorf("no jobs")
	}
	sorted := append([]Job(nil), jobs...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Submit < sorted[b].Submit })
	t0 := sorted[0].Submit
	w := &traces.Workload{Source: "elasticflow artifact trace, deadlines " + mode}
	for i, j := range sorted {
		name, ok := Models[j.Model]
		if !ok {
			return nil, rep, fmt.Errorf("line %d: model %q has no polluxsim application (known: see elasticflow.Models)", j.Line, j.Model)
		}
		app, ok := set.Apps[name]
		if !ok {
			return nil, rep, fmt.Errorf("line %d: application %q is not in the profiles", j.Line, name)
		}
		rep.Mapped[j.Model+"->"+name]++
		job := traces.Job{
			Name:     fmt.Sprintf("%s-%d", name, i),
			Time:     j.Submit - t0,
			App:      name,
			Replicas: j.GPUs,
			Batch:    j.Batch,
		}
		run := sim.IsolatedRunTime(app, job, gpn)
		if !(run > 0) || math.IsInf(run, 0) {
			job.Batch = app.Limits.InitBatch
			rep.BatchReplaced++
			run = sim.IsolatedRunTime(app, job, gpn)
		}
		if !(run > 0) || math.IsInf(run, 0) {
			return nil, rep, fmt.Errorf("line %d: %s on %d GPUs: polluxsim's profile cannot run it", j.Line, name, j.GPUs)
		}
		rep.ArtifactGPUSeconds += float64(j.GPUs) * j.Duration
		rep.GPUSeconds += float64(j.GPUs) * run
		switch {
		case j.Deadline == 0:
			rep.BestEffort++
		case mode == DeadlineSeconds:
			job.Deadline = max(j.Deadline-j.Submit, 1)
		case j.Duration <= 0:
			return nil, rep, fmt.Errorf("line %d: duration %g: no run time to take the deadline's factor over (use deadlines %s)", j.Line, j.Duration, DeadlineSeconds)
		default:
			job.Deadline = max(j.Factor()*run, 1)
		}
		w.Jobs = append(w.Jobs, job)
		rep.Jobs++
	}
	if opts.MatchLoad && rep.ArtifactGPUSeconds > 0 {
		f := rep.GPUSeconds / rep.ArtifactGPUSeconds
		for i := range w.Jobs {
			w.Jobs[i].Time *= f
		}
		w.Source += fmt.Sprintf(", submissions x%.4g to the artifact's load", f)
	}
	return w, rep, nil
}
