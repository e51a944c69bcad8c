package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/policies/optimus"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/policies/tiresias"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// BenchmarkRoundManyPending measures the engine's round with many pending
// jobs: P jobs (cifar10 and ncf, on their requested 1 or 2 GPUs) all
// submitted at once to 16 × 4 GPUs, run for 200 rounds (stopped by the
// time limit), with every job presented to the policy every round
// (full, Config.FullRounds) and decided incrementally (incremental, see Incremental).
// It reports the cost per round and per job-round (P × rounds, about the
// active jobs summed over rounds), the figure that bounds a long
// overloaded run's time. Run with
//
//	go test -run '^$' -bench RoundManyPending -cpu 1 ./sim
func BenchmarkRoundManyPending(b *testing.B) {
	const rounds = 200
	set := profiles.Compact()
	mk := map[string]func() policies.Policy{
		"tiresias": func() policies.Policy { return tiresias.New(0) },
		"optimus":  func() policies.Policy { return optimus.New() },
		"fifo":     func() policies.Policy { return fifo.New() },
		"pollux":   func() policies.Policy { return pollux.New(pollux.DefaultOptions()) },
	}
	for _, pending := range []int{1000, 10000} {
		w := &traces.Workload{Source: "bench"}
		for i := range pending {
			app, gpus, batch := "cifar10", 1, 128
			if i%2 == 1 {
				app, gpus, batch = "ncf", 2, 256
			}
			w.Jobs = append(w.Jobs, traces.Job{Name: fmt.Sprintf("%s-%d", app, i), Time: float64(i % 60), App: app, Replicas: gpus, Batch: batch})
		}
		for _, name := range []string{"tiresias", "optimus", "fifo", "pollux"} {
			for _, full := range []bool{true, false} {
				mode := map[bool]string{true: "full", false: "incremental"}[full]
				b.Run(fmt.Sprintf("%s/%s/pending=%d", name, mode, pending), func(b *testing.B) {
					cfg := DefaultConfig()
					cfg.Rounds = RoundsNone
					cfg.FullRounds = full
					cfg.MaxTime = rounds*cfg.Interval + cfg.Interval/2
					for b.Loop() {
						_, err := Run(cfg, set, w, mk[name]())
						if err == nil || !strings.Contains(err.Error(), "did not finish by") {
							b.Fatalf("want the time limit to stop the run, got %v", err)
						}
					}
					perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(perRun/rounds/1e3, "µs/round")
					b.ReportMetric(perRun/float64(rounds*pending), "ns/job-round")
				})
			}
		}
	}
}
