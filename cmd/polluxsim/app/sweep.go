package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
	"github.com/polluxsim/polluxsim/version"
)

type sweepFlags struct {
	ext        *extensions.Extensions
	experiment string
	profiles   string
	workloads  string
	shard      string
	only       string
	out        string
	parallel   int
	noTiming   bool
	jobRounds  bool
	// replaceProfiles redoes stored runs made with other profiles.
	replaceProfiles bool
	quiet           bool
	list            bool
	output          output
}

func newSweepCmd(ext *extensions.Extensions) *cobra.Command {
	sf := sweepFlags{ext: ext}
	cmd := &cobra.Command{
		Use:   "sweep --experiment NAME --out DIR",
		Short: "Run a named experiment (the paper's Table 2, Fig 7, Fig 8a/b/c, ...) over its workloads",
		Long: `sweep runs every cell of an experiment — a policy with its settings and a kind of
workload — on each of the experiment's workloads (1..8 for the paper's), --parallel
runs at a time, and writes:

  DIR/cells/<cell>.w<i>.json  one file per run, written atomically when it finishes
  DIR/results.parquet         one row per run with all its settings and metrics
  DIR/summary.json            per cell: mean and 95% confidence interval over the
                              workloads, the paper's numbers beside; paired ratios
  DIR/experiment.json         the experiment spec, for merge, plot and regress

An interrupted sweep (Ctrl-C, a crash, a killed job) loses no finished run: run the
same command again and it skips every run already stored with the same inputs.

Workloads: by default, cells at 1.0x load (160 jobs, workloads 1..8) run the Pollux
artifact's reference workloads, embedded (workloads/ for TunedJobs,
workloads-realistic/); the others are generated (the Philly-derived generator,
workload i with seed i, the cell's load and configuration). --workloads generated
generates all; --workloads DIR reads a folder laid out like the reference data:
workloads/ (tuned, 1.0x), workloads-realistic/, workloads-0.5/, ... each holding
workload-1.csv ... workload-8.csv. Loads whose folder is missing are generated,
from the folder's traces/philly.csv when it has one. An experiment may instead name
workload sets, sub-folders of --workloads read as they are and never generated
(sia: philly/, saturn/, newtrace/ of the Sia artifact's workloads/ folder); it
refuses to start when one of their files is missing.

--shard i/n runs every n-th run starting at i, so that independent processes can
share a sweep (see experiments/k8s/); join their folders with "polluxsim merge".
--workloads-only 1,3 runs only those workloads of every cell (a quick look before
the whole sweep; run again without it to complete the folder). A folder missing
runs has tables and a summary of the runs present; its report leads with
"incomplete: N of M runs".

Experiments: ` + strings.Join(experiments.ExperimentNames(), ", ") + ` (see --list), or a spec file.`,
		Example: `  polluxsim sweep --experiment fig8a --out out/fig8a
  polluxsim sweep --experiment table2 --out out/table2
  polluxsim sweep --experiment table2 --profiles ref/ --workloads ref/ --out out/table2-ref
  polluxsim sweep --experiment fig8a --shard 1/3 --out out/fig8a-1
  polluxsim sweep --experiment table2 --workloads-only 1,3 --out out/table2
  polluxsim sweep --experiment sia --profiles SIA --workloads SIA/workloads --out out/sia
  polluxsim sweep --list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := sf.output.check(); err != nil {
				return err
			}
			if sf.list {
				return listExperiments(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.Root().Name(), sf.output.json(), ext)
			}
			if cmd.Flags().Changed(outputFlag) {
				return errors.New("-o/--output formats --list; the sweep's output folder is --out")
			}
			return runSweep(cmd, &sf)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sf.experiment, "experiment", "", "experiment name or spec file (see --list)")
	f.StringVar(&sf.profiles, "profiles", "", runner.ProfilesHelp)
	f.StringVar(&sf.workloads, "workloads", "", `folder of workload files (reference layout), or "generated"; default: the embedded reference workloads at 1.0x load, generated otherwise`)
	f.StringVar(&sf.shard, "shard", "", "run only shard i of n (i/n, 0-based), e.g. 0/3")
	f.StringVar(&sf.only, "workloads-only", "", "run only these of the experiment's workloads, numbers and ranges: 1,3 or 2-5 (the report then says which runs are missing)")
	f.StringVar(&sf.out, "out", "", "output folder (required)")
	f.Var(flagvalue.NewInt(&sf.parallel, runtime.GOMAXPROCS(0)), "parallel", "runs simulated at once, at least 1")
	f.BoolVar(&sf.noTiming, "no-timing", false, "record no wall-clock times (zeros in summary.json, nulls in the tables) so that reruns give identical files")
	f.BoolVar(&sf.jobRounds, "job-rounds", false, "also write rounds.parquet, one row per job per scheduling round of every run (large: about 100,000 rows per 160-job run)")
	f.BoolVar(&sf.replaceProfiles, "replace-other-profiles", false, "redo, and so replace, the stored runs in --out made with other profiles (without it they are an error)")
	f.BoolVar(&sf.quiet, "quiet", false, "print no progress")
	f.BoolVar(&sf.list, "list", false, "list the named experiments and exit (-o json: [{name, version, cells, runs, description}])")
	sf.output.register(f)
	return cmd
}

// experimentEntry is one named experiment of sweep --list.
type experimentEntry struct {
	Name        string `json:"name"`
	Version     int    `json:"version"`
	Cells       int    `json:"cells"`
	Runs        int    `json:"runs"`
	Description string `json:"description"`
}

// listExperiments lists the named experiments: as a table with the first
// sentence of each description, or as JSON with the whole description.
// One that names what ext lacks (a binary without the built-ins) is not
// listed; a `skipped:` line on errw says which and why, as the read-only
// commands say what they skip.
func listExperiments(w, errw io.Writer, prog string, asJSON bool, ext *extensions.Extensions) error {
	var list []experimentEntry
	for _, n := range experiments.ExperimentNames() {
		e, _, err := experiments.LoadExperiment(n, ext)
		if err != nil {
			fmt.Fprintf(errw, "%s: skipped: %v\n", prog, err)
			continue
		}
		list = append(list, experimentEntry{e.Name, e.Version, len(e.Cells), len(e.Runs()), e.Description})
	}
	if asJSON {
		return writeJSON(w, list)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tversion\tcells\truns\tdescription")
	for _, e := range list {
		d := e.Description
		if i := strings.Index(d, ". "); i > 0 {
			d = d[:i+1]
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", e.Name, e.Version, e.Cells, e.Runs, d)
	}
	return tw.Flush()
}

func runSweep(cmd *cobra.Command, sf *sweepFlags) error {
	// Every check before anything is written.
	if sf.experiment == "" {
		return errors.New("--experiment NAME is required (known: " + strings.Join(experiments.ExperimentNames(), ", ") + ")")
	}
	if sf.out == "" {
		return errors.New("--out DIR is required")
	}
	if sf.parallel < 1 {
		return fmt.Errorf("--parallel must be at least 1, got %d", sf.parallel)
	}
	var shard sweep.Shard
	if sf.shard != "" {
		var err error
		if shard, err = sweep.ParseShard(sf.shard); err != nil {
			return err
		}
	}
	var only []int
	if sf.only != "" {
		var err error
		if only, err = sweep.ParseWorkloadNumbers(sf.only); err != nil {
			return err
		}
	}
	exp, spec, err := experiments.LoadExperiment(sf.experiment, sf.ext)
	if err != nil {
		return err
	}
	if err := sweep.CheckSweepOut(sf.out, exp); err != nil {
		return err
	}
	// An output inside an input: --out inside --profiles hashed its own
	// outputs into the profiles' digest and reran for ever.
	// (The library's guard; sweep.Sweep checks it again.)
	if err := sweep.CheckOutsideInputs(sf.out, sf.profiles, sf.workloads); err != nil {
		return err
	}
	// A table or the summary that is (or links to) an input would replace
	// it (experiment.json is written with the spec's own bytes). A
	// registered experiment's name is no input file, whatever the working
	// folder holds of that name (--out deadlines was "inside --experiment
	// deadlines" once that folder existed).
	specFile := ""
	if experiments.IsSpecFile(sf.experiment) {
		specFile = sf.experiment
	}
	for _, name := range sweep.OutputNames() {
		if err := checkNotInput(sf.out, filepath.Join(sf.out, name), nil, inputFile{"--experiment", specFile},
			inputFile{"--profiles", sf.profiles}, inputFile{"--workloads", sf.workloads}); err != nil {
			return err
		}
	}
	if sf.workloads != "" && sf.workloads != sweep.GeneratedWorkloads {
		if st, err := os.Stat(sf.workloads); err != nil || !st.IsDir() {
			return fmt.Errorf("--workloads %s: not a folder", sf.workloads)
		}
	}
	set, err := runner.LoadProfiles(sf.profiles)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	var prog *progress
	opt := sweep.SweepOptions{
		Profiles: set, ProfilesID: set.Digest, ProfilesPath: sf.profiles, Workloads: sf.workloads, Out: sf.out,
		Parallel: sf.parallel, Shard: shard, WorkloadsOnly: only, NoTiming: sf.noTiming, JobRounds: sf.jobRounds, Version: version.Code(), Spec: spec,
		ReplaceOtherProfiles: sf.replaceProfiles,
		Note: func(msg string) {
			if !sf.quiet {
				fmt.Fprintln(stderr, msg)
			}
		},
		Planned: func(todo, skipped int) {
			if !sf.quiet {
				of := ""
				if shard.Count > 1 {
					of = " shard " + shard.String()
				}
				if sf.only != "" {
					of += " workloads " + sf.only
				}
				fmt.Fprintf(stderr, "sweep %s%s: %d runs, %d already done, %d to run, %d at a time\n",
					exp.Name, of, todo+skipped, skipped, todo, sf.parallel)
			}
			prog = newProgress(stderr, todo, "sweep "+exp.Name, sf.quiet)
		},
		Progress: func(done, _ int) { prog.set(done) },
	}
	ctx, stop := interruptContext(stderr)
	defer stop()
	rep, err := sweep.Sweep(ctx, exp, opt)
	if prog != nil {
		prog.finish()
	}
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "experiment %s: %d runs (%d run now, %d already done) in %s\n",
		exp.Name, rep.Runs, rep.Ran, rep.Skipped, rep.Wall.Round(1e7))
	if err := writeSweepTables(out, rep.Summary); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "wrote %s\n", strings.Join(sweep.SweepOutputs(sf.out), ", "))
	return err
}

// interruptContext is cancelled by the first SIGINT or SIGTERM: the sweep
// then starts no new run and stops once the runs in progress are stored.
// A second signal exits at once (finished runs are on disk already).
func interruptContext(w io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case _, ok := <-sig:
			if !ok {
				return // stopped: no signal came
			}
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(w, "\ninterrupted: finishing the runs in progress (interrupt again to quit now; finished runs are kept)")
		cancel()
		if _, ok := <-sig; ok {
			os.Exit(130)
		}
	}()
	return ctx, func() {
		cancel()
		signal.Stop(sig)
		close(sig)
	}
}

// writeSweepTables prints each cell's mean ± 95% CI of the main metrics
// with the reference numbers, then the paired ratios.
func writeSweepTables(w io.Writer, s *sweep.SweepSummary) error {
	if s.Runs < s.ExpectedRuns {
		fmt.Fprintf(w, "%d of %d runs present (missing runs of other shards? merge them with \"polluxsim merge\")\n", s.Runs, s.ExpectedRuns)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\truns\tavg JCT (h)\tp99 JCT (h)\tmakespan (h)\tavg rho\treference avg JCT (h)")
	for _, c := range s.Cells {
		jct, ok := c.Metrics["avg_jct_s"]
		if !ok {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t%s\n", c.Label, refText(c.Reference, "avg_jct_s"))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", c.Label, jct.N, hours(jct), hours(c.Metrics["p99_jct_s"]),
			hours(c.Metrics["makespan_s"]), plain(c.Metrics["avg_fairness_rho"]), refText(c.Reference, "avg_jct_s"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Ratios) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "paired ratio (mean of per-workload ratios)\tn\tours (95% CI)\treference")
	for _, r := range s.Ratios {
		ref := "-"
		if len(r.Reference) > 0 {
			var parts []string
			for _, src := range keysOf(r.Reference) {
				parts = append(parts, fmt.Sprintf("%s %.3g", src, r.Reference[src]))
			}
			ref = strings.Join(parts, ", ")
		}
		ours := "-"
		if r.Stat.N > 0 {
			ours = fmt.Sprintf("%.3f", r.Stat.Mean)
			if r.Stat.CI95 != nil {
				ours += fmt.Sprintf(" [%.3f, %.3f]", r.Stat.CI95[0], r.Stat.CI95[1])
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", r.Name, r.Stat.N, ours, ref)
	}
	return tw.Flush()
}

// hours formats a seconds statistic as "mean ± half-width" in hours.
func hours(st results.Stat) string {
	if st.N == 0 {
		return "-"
	}
	if st.HalfWidth == nil {
		return fmt.Sprintf("%.2f", st.Mean/3600)
	}
	return fmt.Sprintf("%.2f ± %.2f", st.Mean/3600, *st.HalfWidth/3600)
}

func plain(st results.Stat) string {
	if st.N == 0 {
		return "-"
	}
	if st.HalfWidth == nil {
		return fmt.Sprintf("%.2f", st.Mean)
	}
	return fmt.Sprintf("%.2f ± %.2f", st.Mean, *st.HalfWidth)
}

// refText lists a cell's reference values of metric (seconds → hours).
func refText(ref map[string]map[string]float64, metric string) string {
	var parts []string
	for _, src := range keysOf(ref) {
		if v, ok := ref[src][metric]; ok {
			parts = append(parts, fmt.Sprintf("%s %.2f", src, v/3600))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func keysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
