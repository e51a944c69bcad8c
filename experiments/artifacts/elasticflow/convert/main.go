// Command convert turns a trace of ElasticFlow's artifact into a polluxsim
// workload CSV with deadlines (see the elasticflow package and
// docs/elasticflow-artifact.md):
//
//	go run ./experiments/artifacts/elasticflow/convert [-deadlines factor|seconds] [-gpus-per-node 4] [-match-load] TRACE.csv OUT.csv
//
// It prints what it did: jobs, best-effort jobs, the model mapping, batch
// sizes replaced, and the workload's GPU-seconds here over the artifact's.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/polluxsim/polluxsim/experiments/artifacts/elasticflow"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

func main() {
	deadlines := flag.String("deadlines", elasticflow.DeadlineFactor, "factor (keep each job's deadline over run time) or seconds (keep the artifact's seconds)")
	gpn := flag.Int("gpus-per-node", 4, "GPUs per node for the isolated run times")
	match := flag.Bool("match-load", false, "multiply submission times by the work here over the artifact's (same offered load)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: convert [-deadlines factor|seconds] [-gpus-per-node N] [-match-load] TRACE.csv OUT.csv")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(1)
	}
	if err := run(flag.Arg(0), flag.Arg(1), elasticflow.Options{Deadlines: *deadlines, GPUsPerNode: *gpn, MatchLoad: *match}); err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
}

func run(in, out string, opts elasticflow.Options) error {
	if opts.GPUsPerNode < 1 || opts.GPUsPerNode > 1024 {
		return fmt.Errorf("-gpus-per-node %d: want 1..1024", opts.GPUsPerNode)
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	jobs, err := elasticflow.ReadTrace(f, in)
	if err != nil {
		return err
	}
	w, rep, err := elasticflow.Convert(jobs, profiles.Default(), opts)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := traces.WriteFile(out, w); err != nil {
		return err
	}
	fmt.Printf("%s: %d jobs (%d best-effort), %d batch sizes replaced by the application's initial batch\n", out, rep.Jobs, rep.BestEffort, rep.BatchReplaced)
	keys := make([]string, 0, len(rep.Mapped))
	for k := range rep.Mapped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  %s: %d\n", k, rep.Mapped[k])
	}
	fmt.Printf("GPU-seconds on the requested GPUs: %.4g here, %.4g in the artifact (x%.3g)\n", rep.GPUSeconds, rep.ArtifactGPUSeconds, rep.GPUSeconds/rep.ArtifactGPUSeconds)
	return nil
}
