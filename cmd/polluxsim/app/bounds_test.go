package app

// Every numeric option of a policy or autoscaler and every numeric flag
// documents its bounds, and a value outside them is refused at parse time
// in one line naming the option or flag. The bounds are read from the
// documentation itself (an option's doc, a flag's usage), so that the
// documentation and the checks cannot drift apart.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// TestOptionBounds walks the policy and autoscaler registries.
func TestOptionBounds(t *testing.T) {
	for _, reg := range []struct {
		kind     string
		names    func() []string
		describe func(string) ([]policies.OptionDoc, error)
		resolve  func(string, policies.OptionSet, ...any) (policies.OptionSet, error)
	}{
		{"policy", testExt.Policies.Names, testExt.Policies.Describe, testExt.Policies.Resolve},
		{"autoscaler", testExt.Autoscalers.Names, testExt.Autoscalers.Describe, testExt.Autoscalers.Resolve},
	} {
		for _, name := range reg.names() {
			docs, err := reg.describe(name)
			if err != nil {
				t.Fatal(err)
			}
			conformance.CheckOptionBounds(t, reg.kind+" "+name, docs, func(layer any) error {
				_, err := reg.resolve(name, "", layer)
				return err
			})
		}
	}
}

// flagBases is, per command with numeric flags, a command line that is
// valid but for the flag probed, so that the flag's own check is the one
// that answers. A command that gains a numeric flag needs a line here.
func flagBases(dir string) map[string][]string {
	philly := filepath.Join(dir, "philly.csv") // never read: the flags are checked first
	return map[string][]string{
		"polluxsim bench scale":               {"bench", "scale", "--sizes", "1x1", "--quiet", "--out", filepath.Join(dir, "b.csv")},
		"polluxsim profiles show":             {"profiles", "show", "cifar10"},
		"polluxsim run":                       {"run", "--quiet", "--autoscaler", "goodput", "--out", filepath.Join(dir, "r")},
		"polluxsim serve":                     {"serve", "--addr", "127.0.0.1:0"},
		"polluxsim sweep":                     {"sweep", "--quiet", "--experiment", "ci", "--out", filepath.Join(dir, "s")},
		"polluxsim trace summarize":           {"trace", "summarize", "itp:cluster02"},
		"polluxsim workload generate":         {"workload", "generate", "--out", filepath.Join(dir, "g.csv")},
		"polluxsim workload summarize-philly": {"workload", "summarize-philly", "--philly", philly, "--out", filepath.Join(dir, "s.json")},
	}
}

// TestFlagBounds walks the command tree: every numeric flag (not the
// unsigned seeds) states its bounds in its usage, and each value just
// outside them is refused before anything is read or written, in one line
// naming the flag.
func TestFlagBounds(t *testing.T) {
	dir := t.TempDir()
	bases := flagBases(dir)
	probed := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			numeric, integer := conformance.NumericType(f.Value.Type())
			if !numeric || f.Name == "help" {
				return
			}
			b, ok := conformance.ParseBounds(f.Usage, integer)
			if !ok {
				t.Errorf("%s --%s documents no bounds: %q", c.CommandPath(), f.Name, f.Usage)
				return
			}
			base, ok := bases[c.CommandPath()]
			if !ok {
				t.Errorf("%s has numeric flags but no command line in flagBases", c.CommandPath())
				return
			}
			for _, v := range b.Outside() {
				args := append(append([]string(nil), base...), "--"+f.Name+"="+v)
				printed, err := runCLI(t, args...)
				probed++
				if err == nil || !conformance.NamesOption(err.Error(), "--"+f.Name) {
					t.Errorf("%s --%s=%s (usage %q): %v; want one line naming --%s\n%.300s", c.CommandPath(), f.Name, v, f.Usage, err, f.Name, printed)
				}
			}
			if d, err := strconv.ParseFloat(strings.TrimSuffix(f.DefValue, "s"), 64); err == nil && !b.Holds(d) && f.DefValue != "0" {
				t.Errorf("%s --%s: the default %s is outside its documented bounds %q", c.CommandPath(), f.Name, f.DefValue, f.Usage)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(testExt, intree.DefaultPolicy))
	if probed < 40 { // 23 flags, most bounded on both sides
		t.Errorf("only %d values probed", probed)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused command lines wrote %d files or folders", len(ents))
	}
}
