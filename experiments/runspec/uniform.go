package runspec

import (
	"fmt"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// Uniform describes a workload of identical jobs of one application, all
// submitted at time 0 (with a closed loop, N at a time): one ImageNet job
// for Fig 9, the trials of a hyper-parameter search for Table 3. A cell
// gives it as its workload's "uniform" with the job count as "jobs".
type Uniform struct {
	App string `json:"app"`
	// GPUs is each job's request (default 1) and Batch its total batch
	// size (default the application's B0 × GPUs), which fixed-batch
	// policies run at.
	GPUs  int `json:"gpus,omitempty"`
	Batch int `json:"batch,omitempty"`
}

// MaxUniformJobs bounds a uniform workload's jobs (all submitted at once,
// so all active together: the engine's memory follows them).
const MaxUniformJobs = 100_000

// UniformWorkload builds n jobs as u describes on the applications of set.
func UniformWorkload(set *profiles.Set, u Uniform, n int) (*traces.Workload, error) {
	app, ok := set.Apps[u.App]
	if !ok {
		return nil, fmt.Errorf("uniform workload: unknown application %q (profiles from %s have %v)", u.App, set.Source, set.Names())
	}
	gpus, batch := u.GPUs, u.Batch
	if gpus == 0 {
		gpus = 1
	}
	if batch == 0 {
		batch = app.Limits.InitBatch * gpus
	}
	if gpus < 1 || batch < 1 || n < 1 {
		return nil, fmt.Errorf("uniform workload: jobs %d, gpus %d and batch %d must be positive", n, gpus, batch)
	}
	w := &traces.Workload{Source: fmt.Sprintf("uniform: %d x %s on %d GPUs at batch %d", n, u.App, gpus, batch)}
	for i := 0; i < n; i++ {
		w.Jobs = append(w.Jobs, traces.Job{Name: fmt.Sprintf("%s-%d", u.App, i), App: u.App, Replicas: gpus, Batch: batch})
	}
	return w, nil
}
