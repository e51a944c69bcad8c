// Package app is polluxsim's command line as a library: NewCommand builds
// the whole command tree and Main runs it, so that a ten-line main that
// imports its own policy package is a complete polluxsim binary (see
// examples/custompolicy/cmd/polluxsim-custom). cmd/polluxsim is exactly
// that main, with the built-in policies only. The commands parse flags
// and call library functions (experiments/runner, sweep, figures, report).
package app

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/internal/suggest"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/traces"
	"github.com/polluxsim/polluxsim/version"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Option customises the command tree NewCommand builds.
type Option func(*config)

type config struct {
	name     string
	commands []*cobra.Command
	// ext: the extensions the options add (WithPolicy, WithSource, ...),
	// merged with the built-ins unless noBuiltins.
	ext           []extensions.Option
	noBuiltins    bool
	defaultPolicy string
}

// WithPolicy adds policies to the binary (a policy package's
// registration, e.g. smallestfirst.Registration()).
func WithPolicy(rs ...policies.Registration) Option {
	return WithExtensions(extensions.WithPolicy(rs...))
}

// WithSource adds workload sources (run --workload NAME:ARG, a sweep
// spec's workload set "source").
func WithSource(ss ...workloads.Source) Option { return WithExtensions(extensions.WithSource(ss...)) }

// WithKind adds figure kinds (a spec's plot "kind", plot NAME, profiles
// plot --kind).
func WithKind(ks ...figures.Kind) Option { return WithExtensions(figures.WithKind(ks...)) }

// WithAutoscaler adds autoscalers (run --autoscaler).
func WithAutoscaler(rs ...autoscalers.Registration) Option {
	return WithExtensions(extensions.WithAutoscaler(rs...))
}

// WithTraceFormat adds trace formats (FORMAT:ARG names).
func WithTraceFormat(fs ...traces.TraceFormat) Option {
	return WithExtensions(extensions.WithTraceFormat(fs...))
}

// WithMetric adds run-level metrics to the built-in ones: run's
// summary.json, sweep's results.parquet and summary.json, merge, report,
// regress, plot and the spec format's metric names then know them.
func WithMetric(ms ...outputs.Metric) Option { return WithExtensions(extensions.WithMetric(ms...)) }

// WithTable adds output tables of one's own (outputs.NewRunTable): every
// run and sweep writes them beside the built-in tables, and export
// converts them.
func WithTable(ts ...outputs.RunTable) Option { return WithExtensions(extensions.WithTable(ts...)) }

// WithExtensions applies extensions options (extensions.WithPolicy, ...,
// or extensions.WithExtensions to merge a whole value).
func WithExtensions(opts ...extensions.Option) Option {
	return func(c *config) { c.ext = append(c.ext, opts...) }
}

// WithoutBuiltins leaves the built-in policies, autoscalers, trace
// formats, workload sources and figure kinds (intree.Extensions) out: the
// binary knows only what the other options add (the built-in metrics
// stay: they are part of the output format). Its read-only commands
// still open any sweep, skipping what they do not know.
func WithoutBuiltins() Option { return func(c *config) { c.noBuiltins = true } }

// WithDefaultPolicy sets run's default --policy (default: the built-ins'
// intree.DefaultPolicy, or without them the first policy by name).
func WithDefaultPolicy(name string) Option { return func(c *config) { c.defaultPolicy = name } }

// Extensions returns what a command tree built with opts knows: the
// built-ins (unless WithoutBuiltins) and what the options add.
func Extensions(opts ...Option) (*extensions.Extensions, error) {
	c := newConfig(opts)
	return c.extensions()
}

func newConfig(opts []Option) config {
	c := config{name: "polluxsim"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func (c config) extensions() (*extensions.Extensions, error) {
	if c.noBuiltins {
		return extensions.New(c.ext...)
	}
	return intree.With(c.ext...)
}

func (c config) policy(ext *extensions.Extensions) string {
	if c.defaultPolicy != "" {
		return c.defaultPolicy
	}
	return defaultPolicy(ext)
}

// defaultPolicy is the built-ins' default policy when ext has it, else
// ext's first policy by name ("" for none).
func defaultPolicy(ext *extensions.Extensions) string {
	if _, ok := ext.PolicyRegistry().Lookup(intree.DefaultPolicy); ok {
		return intree.DefaultPolicy
	}
	if names := ext.PolicyRegistry().Names(); len(names) > 0 {
		return names[0]
	}
	return ""
}

// WithName names the program in usage and messages (default "polluxsim").
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithCommands adds commands of the caller's to the tree, beside run,
// sweep, plot and the others.
func WithCommands(cmds ...*cobra.Command) Option {
	return func(c *config) { c.commands = append(c.commands, cmds...) }
}

// NewCommand returns polluxsim's whole command tree. Policies, autoscalers,
// workload sources, trace formats and figure kinds come from one
// extensions value: the built-ins (intree.Extensions) merged with what
// the options add (WithPolicy, WithSource, WithKind, ...), so that a
// program calling NewCommand, or Main, with its own policy is a complete
// polluxsim that knows that policy: run, sweep, policies, report and plot
// all find it by name. The Kubernetes scheduler is extended the same way
// (app.NewSchedulerCommand(app.WithPlugin(...))). Options that do not fit
// together (a name given twice) panic: a programming error.
func NewCommand(opts ...Option) *cobra.Command {
	c := newConfig(opts)
	ext, err := c.extensions()
	if err != nil {
		panic(c.name + ": " + err.Error())
	}
	return newTree(c, ext)
}

// New is NewCommand.
func New(opts ...Option) *cobra.Command { return NewCommand(opts...) }

// newTree builds the command tree of a config around its extensions.
func newTree(c config, ext *extensions.Extensions) *cobra.Command {
	root := newRootCmd(ext, c.policy(ext))
	root.Use = c.name
	root.SetVersionTemplate(c.name + " {{.Version}}\n")
	root.AddCommand(c.commands...)
	registerCompletions(root, ext)
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

func newRootCmd(ext *extensions.Extensions, defaultPolicy string) *cobra.Command {
	root := &cobra.Command{
		Use:   "polluxsim",
		Short: "Simulate a GPU cluster scheduling deep-learning jobs under " + strings.Join(ext.PolicyRegistry().Names(), ", "),
		Long: `polluxsim replays a workload of deep-learning training jobs on a simulated GPU
cluster under a scheduling policy and reports job completion times, per-round
allocations and efficiency. It reproduces the simulator of the Pollux paper
(OSDI'21) with exact event times, deterministic seeded search and fast runs.

Policies (polluxsim policies lists their options):
  ` + strings.Join(ext.PolicyRegistry().Names(), ", "),
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagErrorHint)
	root.AddCommand(
		newVersionCmd(),
		newRunCmd(ext, defaultPolicy),
		newPoliciesCmd(ext),
		newConformanceCmd(ext),
		newAutoscalersCmd(ext),
		newBenchCmd(ext),
		newProfilesCmd(ext),
		newWorkloadCmd(ext),
		newTraceCmd(ext),
		newSweepCmd(ext),
		newMergeCmd(ext),
		newPlotCmd(ext),
		newReportCmd(ext),
		newRegressCmd(ext),
		newExportCmd(ext),
		newServeCmd(ext),
	)
	return root
}

func newVersionCmd() *cobra.Command {
	var o output
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of polluxsim",
		Long: `version prints polluxsim's version: the release and, in a build from a git
checkout, "+" and the commit's first 12 hex digits. -o json prints {"version",
"release", "go"}: the same, the release alone, and the Go toolchain that built it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			v := versionInfo{Version: version.String(), Release: version.Release, Go: runtime.Version()}
			return o.print(cmd.OutOrStdout(), v, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, "polluxsim", v.Version)
				return err
			})
		},
	}
	o.register(cmd.Flags())
	return cmd
}

// versionInfo is version's -o json.
type versionInfo struct {
	Version string `json:"version"`
	Release string `json:"release"`
	Go      string `json:"go"`
}

// flagErrorHint adds to an unknown flag's error, on the same line (an
// error is one line), the command's nearest flag names, if any, and where
// its flags are listed: "unknown flag: --polcy (did you mean --policy?
// see polluxsim run --help)". Other flag errors name the flag and what is
// wrong with its value already.
func flagErrorHint(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		if !strings.HasPrefix(err.Error(), "unknown shorthand flag") {
			return err
		}
		name = ""
	}
	hint := "see " + cmd.CommandPath() + " --help"
	if near := suggest.Hint(name, flagNames(cmd), func(n string) string { return "--" + n }); name != "" && near != "" {
		hint = near + " " + hint
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

// flagNames are the command's visible flags' names.
func flagNames(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f.Name)
		}
	})
	return out
}
