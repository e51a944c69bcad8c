// Package app is polluxsim's command line as a library: NewCommand builds
// the whole command tree and Main runs it, so that a ten-line main that
// imports its own policy package is a complete polluxsim binary (see
// examples/custompolicy/cmd/polluxsim-custom). cmd/polluxsim is exactly
// that main, with the built-in policies only. The commands parse flags
// and call library functions (experiments/runner, sweep, figures, report).
package app

import (
	"fmt"
	"os"

	"github.com/polluxsim/polluxsim/version"
	"github.com/spf13/cobra"
)

// Option customises the command tree NewCommand builds.
type Option func(*config)

type config struct {
	name     string
	commands []*cobra.Command
}

// WithName names the program in usage and messages (default "polluxsim").
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithCommands adds commands of the caller's to the tree, beside run,
// sweep, plot and the others.
func WithCommands(cmds ...*cobra.Command) Option {
	return func(c *config) { c.commands = append(c.commands, cmds...) }
}

// NewCommand returns polluxsim's whole command tree. Policies, autoscalers,
// workload sources and figure kinds come from their registries, so a
// program that imports its own policy package (which registers the policy
// in its init, see docs/writing-a-policy.md) and calls NewCommand, or
// Main, is a complete polluxsim that knows that policy: run, sweep,
// policies, report and plot all find it by name. The Kubernetes scheduler
// is extended the same way (app.NewSchedulerCommand(app.WithPlugin(...))).
func NewCommand(opts ...Option) *cobra.Command {
	c := config{name: "polluxsim"}
	for _, o := range opts {
		o(&c)
	}
	root := newRootCmd()
	root.Use = c.name
	root.AddCommand(c.commands...)
	return root
}

// Main runs the command tree on os.Args with SIGINT and SIGTERM handled by
// the commands themselves, prints an error as one line "NAME: message" on
// standard error and returns the process's exit status (0 or 1).
func Main(opts ...Option) int {
	root := NewCommand(opts...)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, root.Name()+":", err)
		return 1
	}
	return 0
}

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
		newTraceCmd(),
		newSweepCmd(),
		newMergeCmd(),
		newPlotCmd(),
		newReportCmd(),
		newRegressCmd(),
		newServeCmd(),
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
