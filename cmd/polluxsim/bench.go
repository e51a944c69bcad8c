package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the simulator and the policies' own cost",
	}
	cmd.AddCommand(newBenchScaleCmd())
	return cmd
}

func newBenchScaleCmd() *cobra.Command {
	var (
		sizes    string
		dir      string
		out      string
		quality  int
		seed     uint64
		policy   string
		perNode  int
		quietRun bool
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
fitness ratio (ours / longer).`,
		Example: `  polluxsim bench scale --sizes 16x160,64x640,256x2000,1024x10000 --out scale.json
  polluxsim bench scale --sizes 1024x2000 --quality 50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sz, err := parseSizes(sizes)
			if err != nil {
				return err
			}
			set, err := loadProfileSet(dir)
			if err != nil {
				return err
			}
			spec := experiments.DefaultSpec(policy)
			spec.GPUsPerNode = perNode
			if err := spec.Validate(); err != nil {
				return err
			}
			opt := experiments.ScaleOptions{Spec: spec, Seed: seed, Quality: quality}
			if !quietRun {
				opt.Progress = func(s experiments.ScaleSize) {
					fmt.Fprintf(cmd.ErrOrStderr(), "running %d nodes x %d GPUs, %d jobs...\n", s.Nodes, perNode, s.Jobs)
				}
			}
			res, err := experiments.RunScale(set, sz, opt)
			if err != nil {
				return err
			}
			if out != "" {
				if err := experiments.WriteJSON(out, res); err != nil {
					return err
				}
			}
			return writeScaleTable(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sizes, "sizes", "16x160,64x640,256x2000", "comma-separated NODESxJOBS")
	f.StringVar(&dir, "profiles", "", profilesFlagHelp)
	f.StringVar(&out, "out", "", "also write the results as JSON to this file")
	f.Var(flagvalue.NewInt(&quality, 0), "quality", "compare with a 10x longer search every N-th round (0: off)")
	f.Uint64Var(&seed, "workload-seed", 1, "seed of the generated workloads")
	f.StringVar(&policy, "policy", "pollux", "policy to measure")
	f.Var(flagvalue.NewInt(&perNode, 4), "gpus-per-node", "GPUs per node")
	f.BoolVar(&quietRun, "quiet", false, "print no progress")
	return cmd
}

// parseSizes reads "16x160,1024x2000".
func parseSizes(text string) ([]experiments.ScaleSize, error) {
	var out []experiments.ScaleSize
	for _, part := range strings.Split(text, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), "x")
		n, err1 := strconv.Atoi(a)
		j, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || j < 1 {
			return nil, fmt.Errorf("--sizes: %q is not NODESxJOBS with positive numbers", part)
		}
		out = append(out, experiments.ScaleSize{Nodes: n, Jobs: j})
	}
	return out, nil
}

func writeScaleTable(w io.Writer, res []experiments.ScaleResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "nodes\tGPUs\tjobs\tmax active\trounds\tround p50\tround p99\tpolicy total\twall\tpeak RSS\tavg JCT\tquality (ours/10x)")
	for _, r := range res {
		q := "-"
		if r.QualityRounds > 0 {
			q = fmt.Sprintf("mean %.4f min %.4f (%d rounds)", r.QualityMean, r.QualityMin, r.QualityRounds)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.3f s\t%.3f s\t%.1f s\t%.1f s\t%.0f MB\t%.0f s\t%s\n",
			r.Nodes, r.GPUs, r.Jobs, r.MaxActive, r.Rounds, r.RoundP50, r.RoundP99, r.PolicyTotal, r.Wall, r.PeakRSSMB, r.AvgJCT, q)
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
		fmt.Fprintf(w, "  %d nodes: %s\n", r.Nodes, strings.Join(parts, "; "))
	}
	return nil
}
