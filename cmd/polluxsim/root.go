package main

import (
	"fmt"

	"github.com/polluxsim/polluxsim/version"
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "polluxsim",
		Short: "Simulate a GPU cluster scheduling deep-learning jobs (Pollux, Optimus+Oracle, Tiresias)",
		Long: `polluxsim replays a workload of deep-learning training jobs on a simulated GPU
cluster under a scheduling policy and reports job completion times, per-round
allocations and efficiency. It reproduces the simulator of the Pollux paper
(OSDI'21) with exact event times, deterministic seeded search and fast runs.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newVersionCmd(),
		newRunCmd(),
		newPoliciesCmd(),
		newAutoscalersCmd(),
		newBenchCmd(),
		newProfilesCmd(),
		newWorkloadCmd(),
		newSweepCmd(),
		newMergeCmd(),
		newPlotCmd(),
		newReportCmd(),
		newRegressCmd(),
	)
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of polluxsim",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "polluxsim", version.String())
			return err
		},
	}
}
