package app

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
)

// optionAliases are shorthand flags for policy options (Pollux's, from
// before the registry). Each sets option keys when given; a policy without
// those options rejects it, naming the flag.
type optionAliases struct {
	p                       float64
	population, generations int
	noLocalSearch           bool
	fullSearch              bool
	noInterferenceAvoidance bool
}

// optionBounds is the bounds the doc of option key states ("in [1,
// 100000]"), of the first policy of ext that has the option, as a
// flag's usage gives them; "" when none has it.
func optionBounds(ext *extensions.Extensions, key string) string {
	for _, name := range ext.PolicyRegistry().Names() {
		docs, _ := ext.PolicyRegistry().Describe(name)
		for _, d := range docs {
			if d.Key == key {
				if m := boundsRe.FindString(d.Doc); m != "" {
					return ", " + m
				}
				return ""
			}
		}
	}
	return ""
}

var boundsRe = regexp.MustCompile(`in [\[(][^\])]*[\])]`)

func (a *optionAliases) register(f *pflag.FlagSet, ext *extensions.Extensions) {
	f.Var(flagvalue.NewFloat(&a.p, -1), "p", "Pollux: power-mean exponent of the fitness (1 = throughput, -1 default, more negative = fairer), any finite number; = --policy-opt p=X")
	f.BoolVar(&a.noInterferenceAvoidance, "no-interference-avoidance", false, "Pollux: allow several multi-node jobs per node; = --policy-opt no_interference_avoidance=true")
	f.Var(flagvalue.NewInt(&a.population, 64), "population", "Pollux: genetic algorithm population"+optionBounds(ext, "population")+"; = --policy-opt population=N")
	f.Var(flagvalue.NewInt(&a.generations, 40), "generations", "Pollux: genetic algorithm generations"+optionBounds(ext, "generations")+"; = --policy-opt generations=N")
	f.BoolVar(&a.noLocalSearch, "no-local-search", false, "Pollux: skip the local search after the genetic algorithm; = --policy-opt local_search=false")
	f.BoolVar(&a.fullSearch, "full-search", false, "Pollux: run every generation every round over every job (no early stop, no work cap, no skipped rounds, no window on the waiting jobs); = --policy-opt stall=0 --policy-opt max_rows_per_round=0 --policy-opt max_local_rows=0 --policy-opt skip_unchanged=false --policy-opt quick_stall=0 --policy-opt skip_settled=false --policy-opt waiting_per_gpu=0")
}

// options returns, per alias flag the user gave, the option settings it
// stands for, in flag order.
func (a *optionAliases) options(f *pflag.FlagSet) [][2]any {
	var out [][2]any
	add := func(flag string, kvs ...string) {
		if f.Changed(flag) {
			out = append(out, [2]any{flag, kvs})
		}
	}
	add("p", "p="+strconv.FormatFloat(a.p, 'g', -1, 64))
	add("no-interference-avoidance", "no_interference_avoidance="+strconv.FormatBool(a.noInterferenceAvoidance))
	add("population", "population="+strconv.Itoa(a.population))
	add("generations", "generations="+strconv.Itoa(a.generations))
	add("no-local-search", "local_search="+strconv.FormatBool(!a.noLocalSearch))
	if a.fullSearch {
		add("full-search", "stall=0", "max_rows_per_round=0", "max_local_rows=0", "skip_unchanged=false", "quick_stall=0", "skip_settled=false", "waiting_per_gpu=0")
	}
	return out
}

// resolveOptions sets the spec's policy options: the policy's defaults,
// then the alias flags, then --policy-opt (so an explicit option wins).
func (rf *runFlags) resolveOptions(cmd *cobra.Command) error {
	f := cmd.Flags()
	spec := rf.spec
	spec.Options = ""
	var err error
	if spec, err = spec.WithOptions(rf.ext); err != nil {
		return err
	}
	for _, a := range rf.aliases.options(f) {
		if spec, err = spec.WithOptions(rf.ext, a[1].([]string)); err != nil {
			return fmt.Errorf("--%s: %w", a[0], err)
		}
	}
	if len(rf.policyOpts) > 0 {
		if spec, err = spec.WithOptions(rf.ext, rf.policyOpts); err != nil {
			return fmt.Errorf("--policy-opt: %w", err)
		}
	}
	rf.spec = spec
	return nil
}

// noArgsAfterPolicyOpt is the Args of a command with --policy-opt (run,
// conformance), whose values opts holds: it takes no arguments. A stray
// argument after a --policy-opt is most likely the rest of its value, split
// by the shell at a space (--policy-opt command=python3 x.py), so the error
// says how to quote it: the last --policy-opt's value and the stray
// arguments, in single quotes, one line.
func noArgsAfterPolicyOpt(opts *[]string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 || len(*opts) == 0 {
			return cobra.NoArgs(cmd, args)
		}
		last := (*opts)[len(*opts)-1]
		whole := last + " " + strings.Join(args, " ")
		return fmt.Errorf("unexpected argument %q: if it is the rest of --policy-opt %s, split by the shell at a space, quote the whole value: --policy-opt %s",
			args[0], last, shellQuote(whole))
	}
}

// shellQuote quotes s for a POSIX shell: in single quotes, each single
// quote inside ending the quotes, escaped with a backslash, then reopening
// them.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
