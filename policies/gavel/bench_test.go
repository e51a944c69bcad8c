package gavel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// benchJobs returns n active jobs of six applications (distinct speeds per
// GPU type), asking for 1, 2, 4 or 8 GPUs, with distinct ages and
// remaining work.
func benchJobs(n int, types []string, seed uint64) []policies.Job {
	rng := rand.New(rand.NewPCG(seed, 1))
	apps := make([]map[string]float64, 6)
	for a := range apps {
		apps[a] = map[string]float64{}
		for _, t := range types {
			apps[a][t] = 0.05 + 0.5*rng.Float64()
		}
	}
	jobs := make([]policies.Job, n)
	for i := range jobs {
		a := rng.IntN(len(apps))
		j := mkJob(fmt.Sprint("job", i), []int{1, 1, 2, 4, 8}[rng.IntN(5)], apps[a])
		j.App = fmt.Sprint("app", a)
		j.Submit = float64(i)
		j.Age = 3600 * rng.Float64()
		j.Oracle = typeOracle{perType: apps[a], rem: 1000 + 1e5*rng.Float64()}
		jobs[i] = j
	}
	return jobs
}

// BenchmarkRound measures one round boundary (the program solved and the
// round's jobs picked) at 64 GPUs (16 × 4, 30 active jobs) and 2,000 GPUs
// (500 × 4, 940 active jobs: the same jobs per GPU), on one GPU type and on
// three. gavel-las and gavel-throughput merge identical jobs (same
// application and GPU count), gavel-ftf cannot (ages and remaining work
// differ) and bisects over programs of every job. The allocation cache is
// cleared every iteration.
func BenchmarkRound(b *testing.B) {
	for _, sz := range []struct {
		nodes, jobs int
		types       []string
	}{
		{16, 30, []string{"t4"}},
		{16, 30, []string{"t4", "a100", "rtx2080ti"}},
		{500, 940, []string{"t4"}},
		{500, 940, []string{"t4", "a100", "rtx2080ti"}},
	} {
		var pools []policies.Pool
		for _, t := range sz.types {
			pools = append(pools, policies.Pool{Type: t, Nodes: sz.nodes / len(sz.types), GPUsPerNode: 4})
		}
		pools[0].Nodes += sz.nodes % len(sz.types)
		c := policies.NewCluster(pools...)
		if len(sz.types) == 1 {
			c = policies.Cluster{Nodes: sz.nodes, GPUsPerNode: 4}
			for i := range sz.types {
				sz.types[i] = policies.DefaultType
			}
		}
		jobs := benchJobs(sz.jobs, sz.types, 9)
		for _, name := range []string{LAS, Throughput, FTF} {
			b.Run(fmt.Sprintf("%s/gpus=%d/types=%d/jobs=%d", name, c.TotalGPUs(), len(sz.types), sz.jobs), func(b *testing.B) {
				p := mustNew(&testing.T{}, name, DefaultOptions())
				for i := 0; i < b.N; i++ {
					p.cacheX = nil
					p.Schedule(float64(i)*p.opt.RoundSeconds, c, jobs)
				}
			})
		}
	}
}
