package app

import (
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/traces"
)

func newTraceCmd(ext *extensions.Extensions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Read cluster traces (ITP, Philly, Helios, Acme, PAI, a mapped CSV)",
		Long: `A cluster trace is read by name, FORMAT:ARG (itp:cluster02 is embedded; the
others name a file or folder), or as a file or folder whose format its header tells.
Formats: ` + strings.Join(ext.Traces().Names(), ", ") + ` (docs/traces.md).
A trace name is also a --workload: the whole trace replayed by the paper's method.

  summarize   jobs, span, GPU counts, GPU-hours, GPUs busy, states, and the cluster
              size at which the trace has the paper's load per GPU`,
	}
	cmd.AddCommand(newTraceSummarizeCmd(ext))
	return cmd
}

func newTraceSummarizeCmd(ext *extensions.Extensions) *cobra.Command {
	var (
		gpusPerNode int
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "summarize NAME|FILE",
		Short: "Summarise a cluster trace",
		Example: `  polluxsim trace summarize itp:cluster02
  polluxsim trace summarize --json helios:cluster_log.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkGPUsPerNode(gpusPerNode); err != nil {
				return err
			}
			t, err := ext.Traces().Open(args[0])
			if err != nil {
				return err
			}
			s, err := traces.SummarizeTrace(t, gpusPerNode)
			if err != nil {
				return err
			}
			if asJSON {
				return s.WriteJSON(cmd.OutOrStdout())
			}
			return s.WriteText(cmd.OutOrStdout())
		},
	}
	gpusPerNodeFlag(cmd.Flags(), &gpusPerNode, "GPUs per node of the suggested cluster")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}
