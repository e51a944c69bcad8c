package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/sim"
)

// elasticFlags are the run command's elastic-cluster and closed-loop
// flags; they fill the run's spec.
type elasticFlags struct {
	opts  []string
	flags *pflag.FlagSet
}

func (ef *elasticFlags) register(f *pflag.FlagSet, rf *runFlags) {
	e := &rf.spec.ElasticSpec
	ef.flags = f
	f.StringVar(&e.Autoscaler, "autoscaler", "", "make the cluster elastic, resized every round by this autoscaler: "+strings.Join(rf.ext.AutoscalerRegistry().Names(), ", ")+" ('polluxsim autoscalers' lists their options); --nodes is the initial size")
	f.StringArrayVar(&ef.opts, "autoscaler-opt", nil, "autoscaler option key=value (repeatable)")
	f.Var(flagvalue.NewInt(&e.MinNodes, 0), "min-nodes", "fewest nodes of the elastic cluster, "+inRange(1, runspec.MaxNodes)+" (default 1)")
	f.Var(flagvalue.NewInt(&e.MaxNodes, 0), "max-nodes", "most nodes of the elastic cluster, "+inRange(1, runspec.MaxNodes)+" (default --nodes)")
	f.Var(flagvalue.NewSeconds(&e.ProvisionDelay, 0, false), "provision-delay", "time from ordering a node to its being ready (seconds or duration), "+inRange(0, runspec.MaxSeconds))
	f.Var(flagvalue.NewFloat(&e.NodePrice, 0), "node-price", "price of one node-hour, "+inRange(0, runspec.MaxPrice)+"; cost = node-hours x price")
	f.Var(flagvalue.NewInt(&rf.spec.ClosedLoop, 0), "closed-loop", "submit the workload's jobs N at a time, the next when one finishes, 0 or more (0: at their submission times)")
}

// resolve makes the autoscaler's options canonical with --autoscaler-opt
// on top of its defaults.
func (ef *elasticFlags) resolve(rf *runFlags) error {
	// 0 is the specs' "default" for both; given on the command line it
	// was silently that default.
	for _, f := range []struct {
		name string
		v    int
	}{{"min-nodes", rf.spec.MinNodes}, {"max-nodes", rf.spec.MaxNodes}} {
		if ef.flags != nil && ef.flags.Changed(f.name) && f.v < 1 {
			return fmt.Errorf("--%s must be at least 1, got %d", f.name, f.v)
		}
	}
	var layers []any
	if len(ef.opts) > 0 {
		layers = append(layers, ef.opts)
	}
	if name := rf.spec.Autoscaler; name != "" {
		if _, ok := rf.ext.AutoscalerRegistry().Lookup(name); !ok {
			return fmt.Errorf("--autoscaler: unknown autoscaler %q (%s)", name, reg.Known(name, rf.ext.AutoscalerRegistry().Names()))
		}
	}
	spec, err := rf.spec.WithAutoscalerOptions(rf.ext, layers...)
	if err != nil {
		return fmt.Errorf("--autoscaler-opt: %w", err)
	}
	rf.spec = spec
	return nil
}

// printElastic adds the elastic cluster's bill to the run's summary.
func printElastic(w io.Writer, res *sim.Result) error {
	if res.Config.Elastic == nil {
		return nil
	}
	_, err := fmt.Fprintf(w, "  elastic cluster (%s): %.1f node-hours, cost %.2f\n",
		res.Config.Elastic.Autoscaler.Name(), res.Summary.NodeHours, res.Summary.Cost)
	return err
}

func newAutoscalersCmd(ext *extensions.Extensions) *cobra.Command {
	var o output
	cmd := &cobra.Command{
		Use:   "autoscalers",
		Short: "List the autoscalers of elastic clusters and their options",
		Long: `autoscalers lists every registered autoscaler with a one-line description and
each option's key, type, default and meaning (set with run --autoscaler-opt
key=value). -o json prints [{"name", "doc", "options": [{"key", "type",
"default", "doc"}]}], as policies -o json does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			reg := ext.AutoscalerRegistry()
			list, err := registeredList(reg.Names(), func(n string) (string, []policies.OptionDoc, error) {
				r, _ := reg.Lookup(n)
				docs, err := reg.Describe(n)
				return r.Doc, docs, err
			})
			if err != nil {
				return err
			}
			return o.print(cmd.OutOrStdout(), list, func(w io.Writer) error { return writeRegistered(w, list) })
		},
	}
	o.register(cmd.Flags())
	return cmd
}
