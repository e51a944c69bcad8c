package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/policies"
)

func newPoliciesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "policies [NAME...]",
		Short: "List the scheduling policies with their options, defaults and docs",
		Long: `policies lists every registered scheduling policy (or the ones named) with a
one-line description and each option's key, type, default and meaning. Set
options with run --policy-opt key=value, or in a sweep spec's cell "options".`,
		RunE: func(cmd *cobra.Command, args []string) error {
			names := args
			if len(names) == 0 {
				names = policies.Names()
			}
			for _, n := range names {
				if _, ok := policies.Lookup(n); !ok {
					return fmt.Errorf("unknown policy %q (known: %s)", n, strings.Join(policies.Names(), ", "))
				}
			}
			return writePolicies(cmd.OutOrStdout(), names)
		},
	}
}

func writePolicies(w io.Writer, names []string) error {
	for i, n := range names {
		r, _ := policies.Lookup(n)
		docs, err := policies.Describe(n)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n  %s\n", n, r.Doc)
		if len(docs) == 0 {
			fmt.Fprintln(w, "  (no options)")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  option\ttype\tdefault\tmeaning")
		for _, d := range docs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", d.Key, d.Type, d.Default, d.Doc)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
