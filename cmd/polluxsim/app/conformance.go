package app

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/policies/conformance"
	"github.com/spf13/cobra"
)

// optionBoundsCheck names the conformance command's check of the
// policy's documented option bounds (conformance.Run's subtest of the
// same name).
const optionBoundsCheck = "option-bounds"

func newConformanceCmd(ext *extensions.Extensions) *cobra.Command {
	var (
		o       output
		name    string
		options []string
	)
	cmd := &cobra.Command{
		Use:   "conformance --policy NAME [--policy-opt key=value]...",
		Short: "Check a policy against the conformance suite, scenario by scenario",
		Long: `conformance plays the conformance suite's canned scheduling rounds
(policies/conformance) against a policy, built-in or in another process
(--policy external --policy-opt command='python3 my_policy.py'), and checks
the policy contract: one allocation per job, no node over its GPUs, exactly
the requested GPUs under user_gpus and the caps otherwise, one GPU type per
job, the same decisions from two instances with the same seed, changes-only
rounds equal to full ones, input left alone, no panic or fault. It prints
each check (a scenario, or option-bounds: every numeric option documents its
bounds and values outside them are refused) as ok or FAIL with the
violations, and exits with status 1 naming the rules broken when any check
fails. -o json prints {"policy", "options", "ok", "checks": [{"name", "doc",
"ok", "violations": [{"scenario", "round", "time", "rule", "detail"}]}]}
(round -1 for a violation not tied to a round).`,
		Example: `  polluxsim conformance --policy tiresias
  polluxsim conformance --policy external --policy-opt command='python3 python/examples/fifo.py'`,
		Args: noArgsAfterPolicyOpt(&options),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if name == "" {
				return fmt.Errorf("--policy: name the policy to check (known: %s)", strings.Join(ext.PolicyRegistry().Names(), ", "))
			}
			rep, err := runConformance(ext, name, options, func(c conformanceCheck) {
				if !o.json() {
					writeConformanceCheck(cmd.OutOrStdout(), c)
				}
			})
			if err != nil {
				return err
			}
			switch {
			case o.json():
				if err := writeJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			case rep.OK:
				fmt.Fprintf(cmd.OutOrStdout(), "policy %s passes the conformance suite (%d checks)\n", name, len(rep.Checks))
			}
			return rep.err()
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "policy", "", "the policy to check (required; 'polluxsim policies' lists them)")
	f.StringArrayVar(&options, "policy-opt", nil, "policy option key=value (repeatable), as for run")
	o.register(f)
	return cmd
}

// conformanceReport is what the conformance command found.
type conformanceReport struct {
	Policy  string             `json:"policy"`
	Options []string           `json:"options"`
	OK      bool               `json:"ok"`
	Checks  []conformanceCheck `json:"checks"`
}

// conformanceCheck is one check: a scenario of the suite, or the option
// bounds.
type conformanceCheck struct {
	Name       string                 `json:"name"`
	Doc        string                 `json:"doc"`
	OK         bool                   `json:"ok"`
	Violations []conformanceViolation `json:"violations"`
}

// conformanceViolation is a conformance.Violation as -o json gives it.
type conformanceViolation struct {
	Scenario string  `json:"scenario"`
	Round    int     `json:"round"`
	Time     float64 `json:"time"`
	Rule     string  `json:"rule"`
	Detail   string  `json:"detail"`
	text     string  // the violation's one line
}

// runConformance runs every check of the suite on the policy name of ext
// with options, calling each with every check as it is done; the error is
// for a policy that cannot be checked at all (unknown, bad options, does
// not start).
func runConformance(ext *extensions.Extensions, name string, options []string, each func(conformanceCheck)) (*conformanceReport, error) {
	reg := ext.PolicyRegistry()
	newPolicy, err := conformance.Registered(reg, name, options...)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	rep := &conformanceReport{Policy: name, Options: append([]string{}, options...), OK: true}
	add := func(c conformanceCheck) {
		c.OK = len(c.Violations) == 0
		rep.OK = rep.OK && c.OK
		rep.Checks = append(rep.Checks, c)
		each(c)
	}
	for _, sc := range conformance.Scenarios() {
		c := conformanceCheck{Name: sc.Name, Doc: sc.Doc, Violations: []conformanceViolation{}}
		for _, v := range conformance.Check(sc, newPolicy) {
			c.Violations = append(c.Violations, conformanceViolation{Scenario: v.Scenario, Round: v.Round, Time: v.Time, Rule: string(v.Rule), Detail: v.Detail, text: v.Error()})
		}
		add(c)
	}
	problems, err := conformance.RegisteredOptionBounds(reg, name)
	if err != nil {
		return nil, err
	}
	c := conformanceCheck{Name: optionBoundsCheck, Doc: "every numeric option documents its bounds, holds its default, and refuses values outside them naming the option", Violations: []conformanceViolation{}}
	for _, p := range problems {
		c.Violations = append(c.Violations, conformanceViolation{Scenario: optionBoundsCheck, Round: -1, Rule: optionBoundsCheck, Detail: p, text: p})
	}
	add(c)
	return rep, nil
}

// writeConformanceCheck prints one check for people: "ok   NAME" or
// "FAIL NAME" and its violations, one indented line each.
func writeConformanceCheck(w io.Writer, c conformanceCheck) {
	status := "ok  "
	if !c.OK {
		status = "FAIL"
	}
	fmt.Fprintf(w, "%s %s\n", status, c.Name)
	for _, v := range c.Violations {
		fmt.Fprintf(w, "     %s\n", v.text)
	}
}

// err is nil when every check passed, else one line naming the
// violations' count, rules and checks.
func (r *conformanceReport) err() error {
	var n int
	var rules, failed []string
	for _, c := range r.Checks {
		if c.OK {
			continue
		}
		failed = append(failed, c.Name)
		for _, v := range c.Violations {
			n++
			if !slices.Contains(rules, v.Rule) {
				rules = append(rules, v.Rule)
			}
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("policy %s fails the conformance suite: %d violation(s) of %s in %s (%d of %d checks)",
		r.Policy, n, strings.Join(rules, ", "), strings.Join(failed, ", "), len(failed), len(r.Checks))
}
