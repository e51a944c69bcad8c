package app

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/policies"
)

func newPoliciesCmd(ext *extensions.Extensions) *cobra.Command {
	var o output
	cmd := &cobra.Command{
		Use:   "policies [NAME...]",
		Short: "List the scheduling policies with their options, defaults and docs",
		Long: `policies lists every registered scheduling policy (or the ones named) with a
one-line description and each option's key, type, default and meaning. Set
options with run --policy-opt key=value, or in a sweep spec's cell "options".
-o json prints [{"name", "doc", "options": [{"key", "type", "default", "doc"}]}].`,
		ValidArgsFunction: policyArgCompletion(ext),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				names = ext.PolicyRegistry().Names()
			}
			list, err := registeredList(names, func(n string) (string, []policies.OptionDoc, error) {
				r, ok := ext.PolicyRegistry().Lookup(n)
				if !ok {
					return "", nil, fmt.Errorf("unknown policy %q (%s)", n, reg.Known(n, ext.PolicyRegistry().Names()))
				}
				docs, err := ext.PolicyRegistry().Describe(n)
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

// registered is a policy or an autoscaler as the listings show it.
type registered struct {
	Name    string      `json:"name"`
	Doc     string      `json:"doc"`
	Options []optionDoc `json:"options"`
}

// optionDoc is one option of a listing.
type optionDoc struct {
	Key     string `json:"key"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
	// ServeMax is the most a caller of polluxsim serve may set (empty:
	// no bound beyond the option's own).
	ServeMax string `json:"serve_max,omitempty"`
}

// registeredList describes each of names (a policy's or an autoscaler's)
// through describe: its one-line doc and its options.
func registeredList(names []string, describe func(name string) (string, []policies.OptionDoc, error)) ([]registered, error) {
	var list []registered
	for _, n := range names {
		doc, docs, err := describe(n)
		if err != nil {
			return nil, err
		}
		r := registered{Name: n, Doc: doc, Options: []optionDoc{}}
		for _, d := range docs {
			r.Options = append(r.Options, optionDoc(d))
		}
		list = append(list, r)
	}
	return list, nil
}

// writeRegistered lists registrations for people: name, doc, and a table
// of options (key, type, default, doc).
func writeRegistered(w io.Writer, list []registered) error {
	for i, r := range list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n  %s\n", r.Name, r.Doc)
		if len(r.Options) == 0 {
			fmt.Fprintln(w, "  (no options)")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  option\ttype\tdefault\tmeaning")
		for _, d := range r.Options {
			doc := d.Doc
			if d.ServeMax != "" {
				doc += " (polluxsim serve: at most " + d.ServeMax + " unless --allow-costly-options)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", d.Key, d.Type, d.Default, doc)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
