package app

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/experiments/bench"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

func newBenchCmd(ext *extensions.Extensions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the simulator and the policies' own cost",
	}
	cmd.AddCommand(newBenchScaleCmd(ext))
	return cmd
}

func newBenchScaleCmd(ext *extensions.Extensions) *cobra.Command {
	var (
		sizes    string
		dir      string
		out      string
		quality  int
		seed     uint64
		policy   string
		perNode  int
		quietRun bool
		trace    string
		tNodes   string
		tPols    string
	)
	cmd := &cobra.Command{
		Use:   "scale",
		Short: "Run whole simulations on growing clusters and workloads; report round latency, memory and wall time",
		Long: `scale runs one simulation per size NODESxJOBS on a workload of JOBS jobs
generated from the embedded Philly summary (160 jobs on 16 nodes is the
reference's 1.0x load; keep jobs/nodes at 10 for a comparable load) and reports
the policy's round latency (median, p99, and by number of active jobs), peak
memory and wall time. With --quality N, every N-th round also runs a Pollux
search with ten times the generations on the same round and reports the
fitness ratio (ours / longer).

With --whole-trace FILE (a reduced Philly table such as the reference's
philly.csv), it also replays the whole trace (workload generate --all) on each
of --trace-nodes under each of --policies, with a progress bar and ETA on a
terminal. Runs record no per-job rounds; peak RSS is the process's so far.`,
		Example: `  polluxsim bench scale --sizes 16x160,64x640,256x2000,1024x10000 --out scale.json
  polluxsim bench scale --sizes 1024x2000 --quality 50
  polluxsim bench scale --whole-trace traces/philly.csv --trace-nodes 100 --policies tiresias,pollux`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if quality < 0 { // was ignored, as 0
				return fmt.Errorf("--quality must be 0 (off) or a positive number of rounds, got %d", quality)
			}
			if out != "" {
				if err := checkOutFile(out, inputFile{"--whole-trace", trace}, inputFile{"--profiles", dir}); err != nil {
					return err
				}
			}
			var sz []bench.ScaleSize
			if trace == "" || cmd.Flags().Changed("sizes") {
				var err error
				if sz, err = parseSizes(sizes); err != nil {
					return err
				}
			}
			set, err := runner.LoadProfiles(dir)
			if err != nil {
				return err
			}
			spec := runspec.DefaultSpec(policy)
			spec.GPUsPerNode = perNode
			if spec, err = spec.WithOptions(ext); err != nil {
				return err
			}
			if err := spec.Validate(ext); err != nil {
				return err
			}
			if trace != "" {
				whole, err := wholeTraceSizes(ext, trace, tNodes, tPols, set, perNode)
				if err != nil {
					return err
				}
				sz = append(sz, whole...)
			}
			opt := bench.ScaleOptions{Ext: ext, Spec: spec, Seed: seed, Quality: quality}
			if !quietRun {
				opt.Result = func(r bench.ScaleResult) {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s on %d nodes, %d jobs: wall %.1f s (CPU %.1f s), peak RSS %.0f MB, max active %d (pending %d), avg JCT %.0f s\n",
						r.Policy, r.Nodes, r.Jobs, r.Wall, r.CPU, r.PeakRSSMB, r.MaxActive, r.MaxPending, r.AvgJCT)
				}
			}
			if !quietRun {
				var prog *progress
				opt.Progress = func(s bench.ScaleSize) {
					pol := s.Policy
					if pol == "" {
						pol = policy
					}
					jobs := s.Jobs
					if s.Workload != nil {
						jobs = len(s.Workload.Jobs)
					}
					prog = newProgress(cmd.ErrOrStderr(), jobs, fmt.Sprintf("%s on %d x %d GPUs", pol, s.Nodes, perNode), false)
					fmt.Fprintf(cmd.ErrOrStderr(), "running %s on %d nodes x %d GPUs, %d jobs...\n", pol, s.Nodes, perNode, jobs)
				}
				opt.Observer = func(_ float64, finished, _ int) { prog.set(finished) }
				opt.Done = func() { prog.finish() }
			}
			res, err := bench.RunScale(set, sz, opt)
			if err != nil {
				return err
			}
			if out != "" {
				if err := outputs.WriteJSON(out, res); err != nil {
					return err
				}
			}
			return writeScaleTable(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sizes, "sizes", "16x160,64x640,256x2000", "comma-separated NODESxJOBS")
	f.StringVar(&dir, "profiles", "", runner.ProfilesHelp)
	f.StringVar(&out, "out", "", "also write the results as JSON to this file")
	f.Var(flagvalue.NewInt(&quality, 0), "quality", "compare with a 10x longer search every N-th round, 0 or more (0: off)")
	f.Uint64Var(&seed, "workload-seed", 1, "seed of the generated workloads")
	f.StringVar(&policy, "policy", defaultPolicy(ext), "policy to measure")
	gpusPerNodeFlag(f, &perNode, "GPUs per node")
	f.BoolVar(&quietRun, "quiet", false, "print no progress")
	f.StringVar(&trace, "whole-trace", "", "also replay every job of this reduced Philly table (workload generate --all)")
	f.StringVar(&tNodes, "trace-nodes", "25,100", "comma-separated node counts for --whole-trace")
	f.StringVar(&tPols, "policies", "tiresias,optimus,pollux", "comma-separated policies for --whole-trace")
	return cmd
}

// wholeTraceSizes are the whole-trace cases: the trace's every job on each
// node count under each policy.
func wholeTraceSizes(ext *extensions.Extensions, path, nodes, pols string, set *profiles.Set, perNode int) ([]bench.ScaleSize, error) {
	tab, _, err := traces.ReadPhilly(path)
	if err != nil {
		return nil, err
	}
	w, err := traces.GenerateAll(tab, traces.GenerateOptions{Seed: 1, Apps: runspec.AppConfigs(set, perNode)})
	if err != nil {
		return nil, err
	}
	var out []bench.ScaleSize
	for _, part := range strings.Split(nodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--trace-nodes: %q is not a positive number", part)
		}
		for _, p := range strings.Split(pols, ",") {
			p = strings.TrimSpace(p)
			if !slices.Contains(ext.PolicyRegistry().Names(), p) {
				return nil, fmt.Errorf("--policies: unknown policy %q (%s)", p, reg.Known(p, ext.PolicyRegistry().Names()))
			}
			out = append(out, bench.ScaleSize{Nodes: n, Jobs: len(w.Jobs), Policy: p, Workload: w, WorkloadName: "whole " + filepath.Base(path)})
		}
	}
	return out, nil
}

// parseSizes reads "16x160,1024x2000".
func parseSizes(text string) ([]bench.ScaleSize, error) {
	var out []bench.ScaleSize
	for _, part := range strings.Split(text, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), "x")
		n, err1 := strconv.Atoi(a)
		j, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || j < 1 {
			return nil, fmt.Errorf("--sizes: %q is not NODESxJOBS with positive numbers", part)
		}
		out = append(out, bench.ScaleSize{Nodes: n, Jobs: j})
	}
	return out, nil
}

func writeScaleTable(w io.Writer, res []bench.ScaleResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "policy\tworkload\tnodes\tGPUs\tjobs\tmax active\tmax pending\trounds\tround p50\tround p99\tpolicy total\twall\tCPU\tpeak RSS\tavg JCT\tquality (ours/10x)")
	for _, r := range res {
		q := "-"
		if r.QualityRounds > 0 {
			q = fmt.Sprintf("mean %.4f min %.4f (%d rounds)", r.QualityMean, r.QualityMin, r.QualityRounds)
		}
		wl := r.WorkloadName
		if wl == "" {
			wl = "generated"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f s\t%.3f s\t%.1f s\t%.1f s\t%.1f s\t%.0f MB\t%.0f s\t%s\n",
			r.Policy, wl, r.Nodes, r.GPUs, r.Jobs, r.MaxActive, r.MaxPending, r.Rounds, r.RoundP50, r.RoundP99, r.PolicyTotal, r.Wall, r.CPU, r.PeakRSSMB, r.AvgJCT, q)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nround latency by active jobs (p50 / p99):")
	for _, r := range res {
		var parts []string
		for _, b := range r.ByActive {
			parts = append(parts, fmt.Sprintf("%d-%d: %.3f/%.3f s", b.MinActive, b.MaxActive, b.P50, b.P99))
		}
		fmt.Fprintf(w, "  %s, %d nodes: %s\n", r.Policy, r.Nodes, strings.Join(parts, "; "))
	}
	return nil
}
