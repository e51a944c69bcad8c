package app

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/version"
)

// execute runs the command tree in-process on args and returns what it
// printed and its error.
func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := NewCommand()
	var o, e bytes.Buffer
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetArgs(args)
	err = root.Execute()
	return o.String(), e.String(), err
}

// TestVersionFlag: --version prints what the version command prints.
func TestVersionFlag(t *testing.T) {
	out, _, err := execute(t, "--version")
	want := "polluxsim " + version.String() + "\n"
	if err != nil || out != want {
		t.Errorf("--version: %q, %v; want %q", out, err, want)
	}
	if cmdOut, _, _ := execute(t, "version"); cmdOut != want {
		t.Errorf("version: %q, want %q", cmdOut, want)
	}
}

// TestVersionJSON: version -o json gives the version the text prints, its
// release and the Go toolchain; an unknown format is refused.
func TestVersionJSON(t *testing.T) {
	var v struct{ Version, Release, Go string }
	decode(t, &v, "version", "-o", "json")
	if v.Version != version.String() || v.Release != version.Release || !strings.HasPrefix(v.Version, v.Release) || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version -o json: %+v", v)
	}
	if _, _, err := execute(t, "version", "-o", "yaml"); err == nil || !strings.Contains(err.Error(), "-o/--output") {
		t.Errorf("version -o yaml: %v", err)
	}
}

// TestWroteJSON: report and export -o json name the files they wrote
// (which exist), report also the experiment and how many of its runs the
// page was made of and lacks (one shard of two, then both).
func TestWroteJSON(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "sw")
	if _, _, err := execute(t, "sweep", "--experiment", tinySpecPath(t), "--shard", "0/2", "--quiet", "--no-timing", "--out", sw); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Wrote      []string
		Experiment string
		Runs       int
		Missing    int
	}
	page := filepath.Join(dir, "r.html")
	decode(t, &rep, "report", "--in", sw, "--out", page, "-o", "json")
	stored, _ := filepath.Glob(filepath.Join(sw, "cells", "*.json"))
	if len(rep.Wrote) != 1 || rep.Wrote[0] != page || rep.Experiment != "tiny" || rep.Runs != len(stored) || rep.Missing == 0 {
		t.Errorf("report -o json: %+v (%d stored runs)", rep, len(stored))
	}
	// The other shard completes the sweep: no run missing.
	if _, _, err := execute(t, "sweep", "--experiment", tinySpecPath(t), "--shard", "1/2", "--quiet", "--no-timing", "--out", sw); err != nil {
		t.Fatal(err)
	}
	part := rep
	decode(t, &rep, "report", "--in", sw, "--out", page, "-o", "json")
	if rep.Runs != part.Runs+part.Missing || rep.Missing != 0 {
		t.Errorf("report -o json of the whole sweep: %+v, of half: %+v", rep, part)
	}
	var exp struct{ Wrote []string }
	decode(t, &exp, "export", "--in", sw, "--format", "csv", "--out", filepath.Join(dir, "csv"), "-o", "json")
	if len(exp.Wrote) < 2 {
		t.Errorf("export -o json: %+v", exp)
	}
	for _, f := range append(rep.Wrote, exp.Wrote...) {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("-o json names %s: %v", f, err)
		}
	}
}

// complete asks cobra's hidden __complete command for the completions of
// the last word of args; it returns them and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, _, err := execute(t, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if err != nil {
		t.Fatalf("__complete %v: %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var words []string
	for _, l := range lines[:len(lines)-1] {
		w, _, _ := strings.Cut(l, "\t")
		words = append(words, w)
	}
	return words, lines[len(lines)-1]
}

// TestFlagCompletion: every enumerable flag completes its values, from
// the registries, and the value lists complete their last item.
func TestFlagCompletion(t *testing.T) {
	suffix := func(words []string, s string) []string {
		var out []string
		for _, w := range words {
			out = append(out, w+s)
		}
		return out
	}
	var paper, formats []string
	for n := 1; n <= 8; n++ {
		paper = append(paper, "paper:"+strconv.Itoa(n))
	}
	for _, f := range figures.FigureFormats {
		formats = append(formats, "png,"+f)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--policy", ""}, testExt.Policies.Names()},
		{[]string{"run", "--policy", "gavel-"}, []string{"gavel-ftf", "gavel-las", "gavel-throughput"}},
		{[]string{"run", "--autoscaler", ""}, testExt.Autoscalers.Names()},
		{[]string{"run", "--rounds", ""}, sim.RoundsModes()},
		{[]string{"run", "--config", ""}, []string{"tuned", "realistic"}},
		{[]string{"run", "--calibration", ""}, calibrationList()},
		{[]string{"run", "--workload", "paper:"}, append([]string{"paper:"}, paper...)},
		{[]string{"run", "--cluster", ""}, suffix(profiles.TypeNames(), ":")},
		{[]string{"run", "--cluster", "t4:2x4,a"}, []string{"t4:2x4,a100:", "t4:2x4,a100-40gb:", "t4:2x4,a100-80gb:"}},
		{[]string{"run", "--profiles", ""}, []string{"embedded", "compact", "llm"}},
		{[]string{"run", "-o", ""}, []string{"text", "json"}},
		{[]string{"sweep", "--experiment", ""}, experiments.ExperimentNames()},
		{[]string{"sweep", "--workloads", ""}, []string{"generated"}},
		{[]string{"plot", "--format", "png,"}, formats},
		{[]string{"plot", "--size", ""}, []string{"wide", "column"}},
		{[]string{"plot", "fig6", "--size", "c"}, []string{"column"}},
		{[]string{"profiles", "derive", "--types", "v100,a"}, []string{"v100,a100", "v100,a100-40gb", "v100,a100-80gb"}},
		{[]string{"profiles", "plot", ""}, profiles.Embedded().Names()},
		{[]string{"profiles", "show", "ima"}, []string{"imagenet"}},
		{[]string{"policies", "ti"}, []string{"tiresias"}},
		{[]string{"conformance", "--policy", "ti"}, []string{"tiresias"}},
		{[]string{"conformance", "-o", "j"}, []string{"json"}},
		{[]string{"conf"}, []string{"conformance"}},
		{[]string{"workload", "generate", "--config", "r"}, []string{"realistic"}},
		{[]string{"sweep", "-o", "j"}, []string{"json"}},
	} {
		if got, _ := complete(t, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("%v: completes %q, want %q", c.args, got, c.want)
		}
	}
	// A "NAME:" completion leaves the cursor after the colon; a policy
	// is a whole word, and no file.
	for _, c := range []struct {
		args []string
		want cobra.ShellCompDirective
	}{
		{[]string{"run", "--workload", "paper-r"}, cobra.ShellCompDirectiveNoSpace},
		{[]string{"run", "--policy", "p"}, cobra.ShellCompDirectiveNoFileComp},
	} {
		_, line := complete(t, c.args...)
		if d, err := strconv.Atoi(strings.TrimPrefix(line, ":")); err != nil || cobra.ShellCompDirective(d) != c.want {
			t.Errorf("%v: directive %s, want %d", c.args, line, c.want)
		}
	}
}

// TestPolicyOptCompletion: --policy-opt completes "key=" from the options
// the selected policy declares (as polluxsim policies lists them; the
// default policy when none is given), leaving the cursor after "=", and a
// bool option's two values after its "key=".
func TestPolicyOptCompletion(t *testing.T) {
	keys := func(policy string) []string {
		docs, err := testExt.Policies.Describe(policy)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range docs {
			out = append(out, d.Key+"=")
		}
		return out
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--policy", "tiresias", "--policy-opt", ""}, keys("tiresias")},
		{[]string{"run", "--policy", "gavel-ftf", "--policy-opt", ""}, keys("gavel-ftf")},
		{[]string{"run", "--policy", "gavel-throughput", "--policy-opt", "l"}, []string{"lp="}},
		{[]string{"run", "--policy", "gavel-ftf", "--policy-opt", "l"}, nil}, // lp is gavel-throughput's
		{[]string{"run", "--policy-opt", "pop"}, []string{"population="}},    // the default policy, pollux
		{[]string{"run", "--policy-opt", "local_search="}, []string{"local_search=true", "local_search=false"}},
		{[]string{"run", "--policy-opt", "local_search=f"}, []string{"local_search=false"}},
		{[]string{"run", "--policy-opt", "population=1"}, nil},
		{[]string{"run", "--policy", "nosuch", "--policy-opt", ""}, nil},
	} {
		if got, _ := complete(t, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("%v: completes %q, want %q", c.args, got, c.want)
		}
	}
	if len(keys("tiresias")) == 0 || slices.Equal(keys("tiresias"), keys("pollux")) {
		t.Fatal("the policies' options do not tell the cases apart")
	}
	_, line := complete(t, "run", "--policy-opt", "po")
	want := cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	if d, err := strconv.Atoi(strings.TrimPrefix(line, ":")); err != nil || cobra.ShellCompDirective(d) != want {
		t.Errorf("--policy-opt po: directive %s, want %d", line, want)
	}
}

// TestListingsJSON: -o json on every listing parses and says what the
// registries and the embedded data hold; an unknown format is refused,
// naming the flag.
func TestListingsJSON(t *testing.T) {
	var pols []registered
	decode(t, &pols, "policies", "-o", "json")
	if len(pols) != len(testExt.Policies.Names()) {
		t.Fatalf("%d policies, want %d", len(pols), len(testExt.Policies.Names()))
	}
	keys := map[string][]string{}
	for _, p := range pols {
		for _, o := range p.Options {
			keys[p.Name] = append(keys[p.Name], o.Key)
		}
	}
	if !slices.Contains(keys["pollux"], "p") || !slices.Contains(keys["gavel-las"], "weights") || slices.Contains(keys["gavel-las"], "ftf_tol") ||
		slices.Contains(keys["gavel-throughput"], "weights") || !slices.Contains(keys["gavel-ftf"], "ftf_tol") {
		t.Errorf("options per policy: %v", keys)
	}
	var one []registered
	if decode(t, &one, "policies", "tiresias", "-o", "json"); len(one) != 1 || one[0].Name != "tiresias" || one[0].Doc == "" {
		t.Errorf("policies tiresias -o json: %+v", one)
	}
	var scalers []registered
	if decode(t, &scalers, "autoscalers", "-o", "json"); len(scalers) != len(testExt.Autoscalers.Names()) || len(scalers[0].Options) == 0 {
		t.Errorf("autoscalers -o json: %+v", scalers)
	}
	var exps []experimentEntry
	decode(t, &exps, "sweep", "--list", "-o", "json")
	for i, e := range exps {
		x, _, err := experiments.LoadExperiment(e.Name, testExt)
		if err != nil || e.Name != experiments.ExperimentNames()[i] || e.Runs != len(x.Runs()) || e.Cells != len(x.Cells) || e.Description != x.Description {
			t.Errorf("sweep --list -o json: %+v (%v)", e, err)
		}
	}
	var srcs []sourceEntry
	decode(t, &srcs, "workload", "sources", "-o", "json")
	if len(srcs) != len(testExt.Sources.Sources()) || srcs[0].Usage == "" {
		t.Errorf("workload sources -o json: %+v", srcs)
	}
	var pl profileListing
	decode(t, &pl, "profiles", "list", "-o", "json")
	emb := profiles.Embedded()
	if pl.Profiles != emb.Source || len(pl.Applications) != len(emb.Names()) || !pl.Sets[0].Current {
		t.Errorf("profiles list -o json: %s, %d applications, sets %+v", pl.Profiles, len(pl.Applications), pl.Sets)
	}
	for _, a := range pl.Applications {
		l := emb.Apps[a.Name].Limits
		if a.InitBatch != l.InitBatch || a.MaxBatch != l.MaxBatch || a.Epochs != emb.Apps[a.Name].Epochs {
			t.Errorf("profiles list -o json: %+v, limits %+v", a, l)
		}
	}
	for _, args := range [][]string{{"policies", "-o", "yaml"}, {"run", "-o", "xml"}, {"sweep", "--list", "--output", "csv"}} {
		if _, _, err := execute(t, args...); err == nil || !strings.Contains(err.Error(), "-o/--output") {
			t.Errorf("%v: %v, want an error naming -o/--output", args, err)
		}
	}
	if _, _, err := execute(t, "sweep", "--experiment", "ci", "-o", "json"); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("sweep -o json without --list: %v, want a pointer to --out", err)
	}
}

// TestRunSummaryJSON: run -o json prints the run's summary.json, byte for
// byte, and nothing else on standard output.
func TestRunSummaryJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	out, _, err := execute(t, "run", "--policy", "fifo", "--jobs", "8", "--quiet", "--no-timing", "--out", dir, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || out != string(file) {
		t.Fatalf("stdout is not summary.json (%v):\n%s", err, out)
	}
	var s struct {
		RunID  string `json:"run_id"`
		Policy string `json:"policy"`
		Jobs   int    `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Policy != "fifo" || s.Jobs != 8 || s.RunID == "" {
		t.Errorf("summary %+v, %v", s, err)
	}
}

// decode runs a listing and parses its JSON into v.
func decode(t *testing.T, v any, args ...string) {
	t.Helper()
	out, _, err := execute(t, args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
	}
}

// TestDidYouMean: a near-miss policy, experiment or workload name is
// answered with the name probably meant (internal/suggest's one rule, as
// for flags), on the error's one line.
func TestDidYouMean(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--policy", "polux", "--out", out}, `unknown policy "polux" (did you mean pollux? known: `},
		{[]string{"policies", "tiresia"}, `unknown policy "tiresia" (did you mean tiresias? known: `},
		{[]string{"sweep", "--experiment", "tabel2", "--out", out}, `unknown experiment "tabel2" (did you mean table2? known: `},
		{[]string{"run", "--workload", "paper1", "--out", out}, `paper1: no such file or directory (did you mean paper:1?)`},
	} {
		_, _, err := execute(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestPolicyOptQuoteHint: a --policy-opt value the shell split at a space
// leaves a stray argument; the error says how to quote the whole value,
// on one line, for run and conformance. Without --policy-opt a stray
// argument is cobra's error.
func TestPolicyOptQuoteHint(t *testing.T) {
	_, _, err := execute(t, "run", "--policy", "external", "--policy-opt", "command=python3", "x.py", "--out", t.TempDir())
	want := `unexpected argument "x.py": if it is the rest of --policy-opt command=python3, split by the shell at a space, quote the whole value: --policy-opt 'command=python3 x.py'`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, _, err = execute(t, "conformance", "--policy", "external", "--policy-opt", "command=python3", "x.py")
	if err == nil || !strings.Contains(err.Error(), "quote the whole value: --policy-opt 'command=python3 x.py'") {
		t.Errorf("conformance: %v", err)
	}
	if _, _, err := execute(t, "run", "x.py"); err == nil || !strings.Contains(err.Error(), `unknown command "x.py"`) {
		t.Errorf("stray argument without --policy-opt: %v", err)
	}
}

// TestShellQuote: the shell reads a quoted value back as it was, spaces,
// quotes and dollars included (skipped without sh).
func TestShellQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"command=python3 x.py", "it's", "a''b", `$HOME "x" \n`, ""} {
		out, err := exec.Command(sh, "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("%q quoted as %s reads back %q (%v)", s, shellQuote(s), out, err)
		}
	}
}

// TestUnknownFlagHint: an unknown flag's error names the nearest flags and
// where the command's flags are listed, on its one line; a bad value's
// error is left as it is.
func TestUnknownFlagHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--polcy", "fifo"}, "unknown flag: --polcy (did you mean --policy? see polluxsim run --help)"},
		{[]string{"run", "--workloads", "x"}, "unknown flag: --workloads (did you mean --workload? see polluxsim run --help)"},
		{[]string{"sweep", "--zzz"}, "unknown flag: --zzz (see polluxsim sweep --help)"},
		{[]string{"plot", "-q"}, "unknown shorthand flag: 'q' in -q (see polluxsim plot --help)"},
		{[]string{"run", "--nodes", "many"}, `invalid argument "many" for "--nodes" flag: not a whole number`},
	} {
		_, _, err := execute(t, c.args...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestFlagPlaceholders: no flag's help has backticks, which pflag takes
// for the value's placeholder (--policy-opt showed "polluxsim policies").
func TestFlagPlaceholders(t *testing.T) {
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			n++
			if name, _ := pflag.UnquoteUsage(f); strings.Contains(f.Usage, "`") || strings.Contains(name, " ") {
				t.Errorf("%s --%s: placeholder %q from %q", c.CommandPath(), f.Name, name, f.Usage)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(NewCommand())
	if n < 50 {
		t.Errorf("only %d flags visited", n)
	}
}

// TestRootNamesEveryPolicy: the root's help names every registered policy.
func TestRootNamesEveryPolicy(t *testing.T) {
	root := NewCommand()
	for _, p := range testExt.Policies.Names() {
		if !strings.Contains(root.Short, p) || !strings.Contains(root.Long, p) {
			t.Errorf("root help does not name %s", p)
		}
	}
}

// TestWrongFolderKind: plot, report and regress given a run's folder, and
// plot fig6 given a sweep's, say which command fits.
func TestWrongFolderKind(t *testing.T) {
	tmp := t.TempDir()
	run, sw := filepath.Join(tmp, "run"), filepath.Join(tmp, "sweep")
	for dir, files := range map[string][]string{run: {"summary.json", "jobs.parquet"}, sw: {"experiment.json", "summary.json"}} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "--in", run, "--out", tmp}, "is a run's output folder (polluxsim run), not a sweep's: plot reads a sweep's folder"},
		{[]string{"report", "--in", run, "--out", filepath.Join(tmp, "r.html")}, "report reads a sweep's folder (polluxsim sweep --out DIR); for a run, polluxsim plot fig6 --in " + run},
		{[]string{"regress", "--in", run, "--baseline", "x.json"}, "regress reads a sweep's folder"},
		{[]string{"plot", "fig6", "--in", sw, "--out", tmp}, "is a sweep's output folder, not a run's: plot fig6 draws one run's tables (polluxsim run --out DIR); for a sweep, polluxsim plot --in " + sw},
	} {
		_, _, err := execute(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant %q", c.args, err, c.want)
		}
	}
}
