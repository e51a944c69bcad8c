package runspec

import (
	"fmt"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// AppConfigs gives the workload generator each application's B0 and tuned
// (GPUs, batch) pairs, computed from a profile set for nodes of
// gpusPerNode GPUs.
func AppConfigs(set *profiles.Set, gpusPerNode int) map[string]traces.AppConfig {
	apps := make(map[string]traces.AppConfig, len(set.Apps))
	for name, app := range set.Apps {
		ac := traces.AppConfig{InitBatch: app.Limits.InitBatch}
		for _, tc := range profiles.TunedConfigs(app, gpusPerNode) {
			ac.Tuned = append(ac.Tuned, traces.TunedPair{Replicas: tc.Replicas, Batch: tc.Batch})
		}
		apps[name] = ac
	}
	return apps
}

// GenerateWorkload samples a workload of n jobs from src (nil: the embedded
// Philly summary) with the reference generator's method, configured as
// config ("tuned" or "realistic") from the applications in set.
func GenerateWorkload(src traces.Source, set *profiles.Set, n int, seed uint64, config string, gpusPerNode int) (*traces.Workload, error) {
	if src == nil {
		s, err := traces.DefaultSummary()
		if err != nil {
			return nil, err
		}
		src = s
	}
	return traces.Generate(src, traces.GenerateOptions{
		Jobs: n, Seed: seed, Config: config, Apps: AppConfigs(set, gpusPerNode),
	})
}

// FarBatchFactor is how far above an application's largest total batch
// size a job's batch_size may be before BatchWarnings flags it: realistic
// workloads (B0 × the user's GPUs) exceed the largest batch a little.
const FarBatchFactor = 10

// BatchWarnings flags the jobs of w whose batch size is far outside the
// range its application's profile covers: a per-GPU batch (batch_size
// over num_replicas) below the smallest per-GPU batch (Limits.MinLocal) or
// a batch above FarBatchFactor × the largest total
// batch (Limits.MaxBatch). Such a job still runs, on extrapolated step
// times and statistics (under fixed-batch policies, for as long as such a
// batch takes), so this is a warning, naming the job's line, the column
// that holds its batch in the source (Workload.BatchColumn; none for a
// source without one) and the range.
func BatchWarnings(w *traces.Workload, set *profiles.Set) []string {
	var out []string
	for _, j := range w.Jobs {
		app, ok := set.Apps[j.App]
		if !ok {
			continue
		}
		lo, hi := app.Limits.MinLocal, app.Limits.MaxBatch
		gpus := max(j.Replicas, 1)
		if j.Batch >= lo*gpus && j.Batch <= FarBatchFactor*hi {
			continue
		}
		err := fmt.Errorf("%d is far outside %s's range %d..%d (smallest per-GPU batch .. largest total batch); its profile is extrapolated",
			j.Batch, j.App, lo, hi)
		if j.Batch >= lo && j.Batch < lo*gpus {
			// The total is in range, the per-GPU batch is not (ncf at 128 on
			// 64 GPUs, 2 per GPU, ran 117x slower with no warning).
			err = fmt.Errorf("%d over %d GPUs is %.3g per GPU, below %s's smallest per-GPU batch %d; its profile is extrapolated",
				j.Batch, gpus, float64(j.Batch)/float64(gpus), j.App, lo)
		}
		// The column as the source calls it: a source of another format
		// than the workload CSV has no batch_size column.
		e := &traces.InputError{File: w.Source, Line: j.Line, Job: j.Name, Column: w.BatchColumn, Err: err}
		out = append(out, e.Error())
	}
	return out
}
