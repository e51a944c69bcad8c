package experiments

import (
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
