package app

import (
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// completion offers the values of one enumerable flag or argument: the
// words, and whether a file or folder may be given instead; list flags
// complete their last comma-separated item. A word ending in ":" or "="
// (a reference's or an option's head) leaves the cursor after it.
type completion struct {
	words func() []string
	// wordsFor, when set, replaces words with the words for what the
	// command line holds so far and the word being typed.
	wordsFor func(cmd *cobra.Command, typed string) []string
	files    bool // a file may be given instead (or a folder, with dirs)
	dirs     bool // only folders
	list     bool // a comma-separated list
}

// flagCompletions are the completions of the enumerable flags, by flag
// name, wherever a command has that flag; the values come from the
// registries, so a policy, autoscaler or workload source of one's own
// completes too.
func flagCompletions(ext *extensions.Extensions) map[string]completion {
	profileSets := func() []string {
		var n []string
		for _, s := range profiles.NamedSets() {
			n = append(n, s.Name)
		}
		return n
	}
	configs := func() []string { return []string{traces.ConfigTuned, traces.ConfigRealistic} }
	return map[string]completion{
		"policy":      {words: ext.PolicyRegistry().Names},
		"autoscaler":  {words: ext.AutoscalerRegistry().Names},
		"calibration": {words: calibrationList},
		"config":      {words: configs},
		"rounds":      {words: sim.RoundsModes},
		"profiles":    {words: profileSets, files: true},
		"experiment":  {words: experiments.ExperimentNames, files: true},
		"workload":    {words: func() []string { return workloadRefs(ext) }, files: true},
		"workloads":   {words: func() []string { return []string{"generated"} }, dirs: true},
		"trace":       {words: func() []string { return traceRefs(ext) }, files: true},
		"cluster":     {words: poolPrefixes, files: true, list: true},
		"types":       {words: profiles.TypeNames, list: true},
		"format":      {words: func() []string { return figures.FigureFormats }, list: true},
		"size":        {words: func() []string { return []string{string(figures.SizeWide), string(figures.SizeColumn)} }},
		outputFlag:    {words: func() []string { return outputFormats }},
		"policy-opt":  {wordsFor: func(cmd *cobra.Command, typed string) []string { return policyOptWords(ext, cmd, typed) }},
	}
}

// policyOptWords complete --policy-opt: "key=" for each option the
// command's --policy (given or default) declares, as polluxsim policies
// lists them; after "key=" of a bool option, its two values.
func policyOptWords(ext *extensions.Extensions, cmd *cobra.Command, typed string) []string {
	f := cmd.Flags().Lookup("policy")
	if f == nil {
		return nil
	}
	docs, err := ext.PolicyRegistry().Describe(f.Value.String())
	if err != nil {
		return nil
	}
	key, _, value := strings.Cut(typed, "=")
	var out []string
	for _, d := range docs {
		switch {
		case !value:
			out = append(out, d.Key+"=")
		case d.Key == key && d.Type == "bool":
			out = append(out, key+"=true", key+"=false")
		}
	}
	return out
}

// calibrationList names the calibrations.
func calibrationList() []string {
	var names []string
	for _, c := range runspec.Calibrations() {
		names = append(names, c.Name)
	}
	return names
}

// workloadRefs are the workload references: every source's "NAME:" (the
// paper's workloads numbered), and every trace format's "NAME:".
func workloadRefs(ext *extensions.Extensions) []string {
	var out []string
	for _, s := range ext.SourceRegistry().Sources() {
		if s.Name == workloads.TraceSource {
			continue
		}
		out = append(out, s.Name+":")
		if traces.IsPaperName(s.Name + ":") {
			for n := 1; n <= traces.PaperWorkloads; n++ {
				out = append(out, s.Name+":"+strconv.Itoa(n))
			}
		}
	}
	return append(out, traceRefs(ext)...)
}

// traceRefs are the trace formats' "NAME:".
func traceRefs(ext *extensions.Extensions) []string {
	var out []string
	for _, n := range ext.Traces().Names() {
		out = append(out, n+":")
	}
	return out
}

// poolPrefixes start a node pool of --cluster: "TYPE:".
func poolPrefixes() []string {
	var out []string
	for _, t := range profiles.TypeNames() {
		out = append(out, t+":")
	}
	return out
}

// complete is c as cobra's completion function.
func (c completion) complete(cmd *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if c.wordsFor != nil {
		c.words = func() []string { return c.wordsFor(cmd, typed) }
	}
	head := ""
	if c.list {
		if i := strings.LastIndex(typed, ","); i >= 0 {
			head, typed = typed[:i+1], typed[i+1:]
		}
	}
	var out []cobra.Completion
	noSpace := false
	for _, w := range c.words() {
		if strings.HasPrefix(w, typed) {
			out = append(out, head+w)
			noSpace = noSpace || strings.HasSuffix(w, ":") || strings.HasSuffix(w, "=")
		}
	}
	d := cobra.ShellCompDirectiveNoFileComp
	switch {
	case c.dirs:
		d = cobra.ShellCompDirectiveFilterDirs
	case c.files:
		d = cobra.ShellCompDirectiveDefault
	}
	if noSpace || c.list {
		d |= cobra.ShellCompDirectiveNoSpace
	}
	return out, d
}

// registerCompletions gives every flag of the tree under root that
// flagCompletions knows its completion.
func registerCompletions(root *cobra.Command, ext *extensions.Extensions) {
	comps := flagCompletions(ext)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if comp, ok := comps[f.Name]; ok {
				// Registering twice is the only error: a flag shared by
				// commands (persistent) is already done.
				_ = c.RegisterFlagCompletionFunc(f.Name, comp.complete)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// appCompletion completes an application's name (of the embedded
// profiles) as a command's first argument.
func appCompletion(_ *cobra.Command, args []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completion{words: profiles.Embedded().Names}.complete(nil, nil, typed)
}

// policyArgCompletion completes ext's policy names as arguments.
func policyArgCompletion(ext *extensions.Extensions) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return completion{words: ext.PolicyRegistry().Names}.complete(nil, nil, typed)
	}
}
