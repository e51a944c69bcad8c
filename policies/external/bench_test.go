package external_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/external"
)

// nothing is the trivial policy in process: every job gets nothing.
type nothing struct{}

func (nothing) Name() string            { return "nothing" }
func (nothing) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }
func (nothing) Schedule(_ float64, _ policies.Cluster, jobs []policies.Job) policies.Decision {
	return policies.Decision{Alloc: make([][]int, len(jobs))}
}

// benchJobs are n waiting jobs with every field a policy sees set (θ_sys
// included), as on an overloaded cluster.
func benchJobs(n int) []policies.Job {
	jobs := make([]policies.Job, n)
	for i := range jobs {
		jobs[i] = policies.Job{Name: "job-" + strconv.Itoa(i), App: "cifar10", Submit: float64(60 * i), Age: 3600.5,
			Request: policies.Request{GPUs: 1 + i%8, Batch: 128}, Limits: models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 512},
			MaxSeenGPUs: 4, Params: &models.Params{AlphaC: 0.01, BetaC: 0.0003, AlphaR: 0.02, BetaR: 1e-5, AlphaN: 0.05, BetaN: 2e-5, Gamma: 1.7},
			Grad: models.GradStats{Sqr: 0.123, Var: 4.56}, Epoch: 3, Attained: 1234.5}
	}
	return jobs
}

// BenchmarkRoundOverhead is one full round (Schedule) of n waiting jobs on
// 16 x 4 GPUs under the trivial policy: in process, in a Go child (the
// test binary: the protocol's cost on both sides in Go), and in a Python
// child (the Python client's). docs/performance.md has the figures.
func BenchmarkRoundOverhead(b *testing.B) {
	c := policies.Cluster{Nodes: 16, GPUsPerNode: 4}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	kinds := []struct {
		name string
		argv func(b *testing.B) []string
	}{
		{"in-process", nil},
		{"go-child", func(b *testing.B) []string {
			return []string{"env", "POLLUXSIM_FAKE_POLICY=nothing", "POLLUXSIM_FAKE_PIDS=" + filepath.Join(b.TempDir(), "pids"), exe}
		}},
		{"python-child", func(b *testing.B) []string {
			return []string{needPython(b), filepath.Join("testdata", "trivial.py")}
		}},
	}
	for _, n := range []int{10, 100, 1000, 10000} {
		jobs := benchJobs(n)
		for _, k := range kinds {
			b.Run(fmt.Sprintf("%s/jobs=%d", k.name, n), func(b *testing.B) {
				var p policies.Policy = nothing{}
				if k.argv != nil {
					var err error
					if p, err = external.Start(external.Config{Argv: k.argv(b), Timeout: time.Minute, Log: os.Stderr}); err != nil {
						b.Fatal(err)
					}
					defer p.(interface{ Close() error }).Close()
				}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					d := p.Schedule(float64(60*i), c, jobs)
					if len(d.Alloc) != n {
						b.Fatalf("%d allocations", len(d.Alloc))
					}
				}
				if f, ok := p.(policies.Fallible); ok && f.Err() != nil {
					b.Fatal(f.Err())
				}
			})
		}
	}
}
