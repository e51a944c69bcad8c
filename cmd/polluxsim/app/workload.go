package app

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/traces"
)

// referenceJobs is the number of jobs of the reference's 1.0× load.
const referenceJobs = 160

// maxLoad bounds --load: the load of the most jobs a workload is generated
// with (workloads.MaxGeneratedJobs).
const maxLoad = workloads.MaxGeneratedJobs / referenceJobs

func newWorkloadCmd(ext *extensions.Extensions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Generate workloads from the Philly trace, ingest Philly's job log",
		Long: `Workloads are CSV files (name,time,application,num_replicas,batch_size), one job
per line, in the format of the reference simulator (petuum/adaptdl).

  generate          sample a workload from the Philly trace (or its embedded summary)
  philly            reduce Philly's cluster_job_log to the table generate samples
  summarize-philly  make the compact summary generate uses without --philly
  sources           the workload sources --workload references resolve through`,
	}
	cmd.AddCommand(newWorkloadGenerateCmd(ext), newWorkloadPhillyCmd(ext), newWorkloadSummarizeCmd(ext), newWorkloadSourcesCmd(ext))
	return cmd
}

// sourceEntry is one workload source of workload sources.
type sourceEntry struct {
	Name  string `json:"name"`
	Usage string `json:"usage"`
	Doc   string `json:"doc"`
}

func newWorkloadSourcesCmd(ext *extensions.Extensions) *cobra.Command {
	var o output
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "List the workload sources --workload references resolve through",
		Long: `sources lists every registered workload source: its name, how a reference to it
is written, and where its workloads come from. -o json prints [{name, usage,
doc}].`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			var list []sourceEntry
			for _, s := range ext.SourceRegistry().Sources() {
				list = append(list, sourceEntry{s.Name, s.Usage, s.Doc})
			}
			return o.print(cmd.OutOrStdout(), list, func(w io.Writer) error {
				for _, s := range list {
					if _, err := fmt.Fprintf(w, "%s\n  %s\n  %s\n\n", s.Name, s.Usage, s.Doc); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func newWorkloadGenerateCmd(ext *extensions.Extensions) *cobra.Command {
	var (
		jobs, gpusPerNode, maxReplicas int
		load                           float64
		seed                           uint64
		phillyPath, summaryPath        string
		tracePath, window, oversize    string
		config, profilesDir, out       string
		all                            bool
		deadlines                      traces.DeadlineOptions
	)
	cmd := &cobra.Command{
		Use:   "generate --out FILE",
		Short: "Sample a workload from the Philly trace",
		Long: `generate samples a workload the way the reference generator does: Philly jobs
that ran at least 60 s with less than 1000 GPU-hours, submitted between 02:00
and 10:00 (any day), sampled without replacement; arrival = time since 02:00;
application by GPU time (< 1 GPU-h: cifar10 or ncf; 1-10: deepspeech2 or bert;
10-100: yolov3; >= 100: imagenet). --config tuned gives each job a random tuned
(GPUs, batch) pair of its application (computed from the profiles); realistic
gives it the Philly job's GPU count and batch B0 x GPUs.

Without --philly the embedded summary of the reference's philly.csv is sampled
(same application mix and arrival-time distribution, not the same jobs). The
same seed and inputs always give the same file.

With --all (and --philly), every job the filter keeps by duration and GPU time
becomes a job at its own submission time, counted from the trace's first one:
the whole trace replayed over its months, e.g. 74,428 jobs over 106 days for
the reference's philly.csv (see docs/scale.md for its load).

--deadlines gives the jobs deadlines over each job's isolated run time (alone
on its requested GPUs, from the profiles): elasticflow draws the factor
uniformly in [--deadline-min, --deadline-max] (0.5-1.5, ElasticFlow's), tightness
uses --tightness; --best-effort leaves that fraction of jobs without one
(docs/deadlines.md).`,
		Example: `  polluxsim workload generate --seed 1 --out workload-1.csv
  polluxsim workload generate --jobs 320 --seed 3 --philly traces/philly.csv --out w.csv
  polluxsim workload generate --load 1.5 --config realistic --profiles ref/ --out w.csv
  polluxsim workload generate --all --philly traces/philly.csv --out philly-all.csv
  polluxsim workload generate --trace itp:cluster02 --deadlines elasticflow --out itp-ddl.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return errors.New("--out FILE is required (- for standard output)")
			}
			if out != "-" {
				if err := checkOutFile(out, inputFile{"--philly", phillyPath}, inputFile{"--summary", summaryPath}, inputFile{"--profiles", profilesDir}, refInput(ext.Traces(), "--trace", tracePath)); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("load") {
				if cmd.Flags().Changed("jobs") {
					return errors.New("give --jobs or --load, not both")
				}
				if !(load > 0) || load > maxLoad {
					return fmt.Errorf("--load must be in (0, %v] (a positive multiple of the 160-job load), got %v", maxLoad, load)
				}
				if jobs = int(math.Round(load * referenceJobs)); jobs < 1 {
					return fmt.Errorf("--load %v is less than one job of the 160 of the 1.0x load", load)
				}
			}
			if phillyPath != "" && summaryPath != "" {
				return errors.New("give --philly or --summary, not both")
			}
			if tracePath != "" && (phillyPath != "" || summaryPath != "") {
				return errors.New("give --trace, --philly or --summary, not two of them")
			}
			if window != "" && tracePath == "" {
				return errors.New("--window needs --trace NAME")
			}
			if oversize != "" && tracePath == "" {
				return errors.New("--oversize needs --trace NAME")
			}
			if all && phillyPath == "" && tracePath == "" {
				return errors.New("--all needs --philly FILE or --trace NAME: it replays every job of a table")
			}
			if all && (cmd.Flags().Changed("jobs") || cmd.Flags().Changed("load")) {
				return errors.New("--all takes every job of the trace; it cannot be used with --jobs or --load")
			}
			if err := checkGPUsPerNode(gpusPerNode); err != nil {
				return err
			}
			if maxReplicas < 0 {
				return fmt.Errorf("--max-replicas must not be negative (0 = no cap), got %d", maxReplicas)
			}
			g := workloads.Generate{Jobs: jobs, Seed: seed, Config: config, Philly: phillyPath, Summary: summaryPath,
				Trace: tracePath, Window: window, All: all, MaxReplicas: maxReplicas, Oversize: oversize, Deadlines: deadlines}
			if err := checkDeadlineFlags(cmd.Flags(), deadlines); err != nil {
				return err
			}
			if err := g.Validate(); err != nil { // before reading anything, as run does
				return err
			}
			set, err := runner.LoadProfiles(profilesDir)
			if err != nil {
				return err
			}
			w, warnings, err := g.Make(ext.WorkloadEnv(set, gpusPerNode))
			if err != nil {
				return err
			}
			printWarnings(cmd.ErrOrStderr(), warnings)
			if out == "-" {
				return traces.Write(cmd.OutOrStdout(), w)
			}
			if err := traces.WriteFile(out, w); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s\n  mix: %s\n", out, w.Source, formatMix(w))
			return err
		},
	}
	f := cmd.Flags()
	f.Var(flagvalue.NewInt(&jobs, referenceJobs), "jobs", "number of jobs, "+inRange(1, workloads.MaxGeneratedJobs)+" (160 is the reference's 1.0x load)")
	f.Var(flagvalue.NewFloat(&load, 1), "load", fmt.Sprintf("load multiplier instead of --jobs, in (0, %v]: jobs = 160 x load", maxLoad))
	f.Var(flagvalue.NewUint(&seed, 1), "seed", "random seed")
	f.StringVar(&phillyPath, "philly", "", "reduced Philly table to sample (default: the embedded summary)")
	f.StringVar(&summaryPath, "summary", "", "Philly summary file to sample instead of the embedded one")
	f.StringVar(&tracePath, "trace", "", "any cluster trace to sample by the paper's method, by name (itp:cluster02, helios:FILE, ...; see polluxsim trace), GPU-time classes recomputed per trace (docs/traces.md)")
	f.StringVar(&window, "window", "", "with --trace: the arrival window, daily (02:00-10:00, the paper's), daily:H1-H2, span:FROM-UNTIL or all")
	f.StringVar(&oversize, "oversize", "", "with --trace: jobs larger than the profiles' largest measured placement are capped to it (cap, the default), left out of the sample (skip) or an error for a realistic workload (refuse); counted either way")
	f.StringVar(&config, "config", traces.ConfigTuned, "job configurations: tuned or realistic")
	f.StringVar(&profilesDir, "profiles", "", "profiles the tuned pairs and B0 come from: a reference-format folder or a compact profile file (default: embedded)")
	gpusPerNodeFlag(f, &gpusPerNode, "GPUs per node when computing tuned configurations")
	f.Var(flagvalue.NewInt(&maxReplicas, 0), "max-replicas", "cap realistic GPU counts at this many, 0 or more (0: no cap, like the reference)")
	f.StringVar(&out, "out", "", "output workload CSV (- for standard output)")
	f.StringVar(&deadlines.Rule, "deadlines", "", "give jobs deadlines: elasticflow (a uniform factor in [--deadline-min, --deadline-max] x the isolated run time) or tightness (--tightness x it); default none")
	f.Var(flagvalue.NewFloat(&deadlines.Tightness, 0), "tightness", "with --deadlines tightness: the factor over each job's isolated run time, in (0, 1000]")
	f.Var(flagvalue.NewFloat(&deadlines.Min, 0), "deadline-min", "with --deadlines elasticflow: the factor range's low end, in (0, 1000] (default 0.5 with --deadline-max 1.5)")
	f.Var(flagvalue.NewFloat(&deadlines.Max, 0), "deadline-max", "with --deadlines elasticflow: the factor range's high end, in (0, 1000] (default 1.5)")
	f.Var(flagvalue.NewFloat(&deadlines.BestEffort, 0), "best-effort", "with --deadlines: the fraction of jobs, in [0, 1], left best-effort (no deadline)")
	f.BoolVar(&all, "all", false, "every job of the --philly table the filter keeps, each at its own submission time over the whole trace (no sampling, no time-of-day window)")
	return cmd
}

// checkDeadlineFlags checks the deadline flags of workload generate, each
// against its bounds and in its own name, before anything is read.
func checkDeadlineFlags(f *pflag.FlagSet, d traces.DeadlineOptions) error {
	if d.Rule == traces.DeadlineTightness && !f.Changed("tightness") {
		return fmt.Errorf("--deadlines %s needs --tightness, the factor over each job's isolated run time, in (0, %v]", traces.DeadlineTightness, traces.MaxDeadlineFactor)
	}
	for _, c := range []struct {
		flag   string
		v      float64
		lo, hi float64
		openLo bool
	}{
		{"tightness", d.Tightness, 0, traces.MaxDeadlineFactor, true},
		{"deadline-min", d.Min, 0, traces.MaxDeadlineFactor, true},
		{"deadline-max", d.Max, 0, traces.MaxDeadlineFactor, true},
		{"best-effort", d.BestEffort, 0, 1, false},
	} {
		if !f.Changed(c.flag) {
			continue
		}
		if d.Rule == "" {
			return fmt.Errorf("--%s needs --deadlines %s or %s", c.flag, traces.DeadlineElasticFlow, traces.DeadlineTightness)
		}
		if (c.openLo && !(c.v > c.lo)) || !(c.v >= c.lo) || c.v > c.hi {
			open := "["
			if c.openLo {
				open = "("
			}
			return fmt.Errorf("--%s must be in %s%v, %v], got %v", c.flag, open, c.lo, c.hi, c.v)
		}
	}
	return nil
}

// formatMix lists a workload's jobs per application, by name.
func formatMix(w *traces.Workload) string {
	mix := w.Mix()
	names := make([]string, 0, len(mix))
	for n := range mix {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, mix[n])
	}
	return strings.Join(parts, ", ")
}

func newWorkloadPhillyCmd(ext *extensions.Extensions) *cobra.Command {
	var logPath, out string
	cmd := &cobra.Command{
		Use:   "philly --log cluster_job_log --out FILE",
		Short: "Reduce Philly's cluster_job_log to a table of jobs",
		Long: `philly decodes Philly's cluster_job_log (msr-fiddle/philly-traces; one JSON
array of jobs, several GB) as a stream and writes the reduced table
timestamp,duration,num_gpus,gpu_time,cluster that generate --philly samples:
timestamp = submitted_time, duration = end of the last attempt - start of the
first, num_gpus = GPUs of the first attempt, gpu_time = duration x num_gpus,
cluster = vc. Jobs without attempts, with "None" times, zero GPUs, a negative
duration or one over a year are dropped; the report counts them by reason.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if logPath == "" || out == "" {
				return errors.New("--log FILE and --out FILE are required")
			}
			if err := checkOutFile(out, inputFile{"--log", logPath}); err != nil {
				return err
			}
			rep, err := traces.ConvertPhillyLog(logPath, out)
			if rep != nil {
				fmt.Fprint(cmd.OutOrStdout(), rep.String())
			}
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d jobs\n", out, rep.Kept)
			return err
		},
	}
	cmd.Flags().StringVar(&logPath, "log", "", "Philly cluster_job_log (JSON)")
	cmd.Flags().StringVar(&out, "out", "", "output table (CSV)")
	return cmd
}

func newWorkloadSummarizeCmd(ext *extensions.Extensions) *cobra.Command {
	var phillyPath, out string
	var bucket int
	cmd := &cobra.Command{
		Use:   "summarize-philly --philly FILE --out FILE",
		Short: "Summarise a Philly table into the compact distribution generate samples",
		Long: `summarize-philly reads a reduced Philly table and writes its summary: for the
jobs the generator's filter keeps, per GPU-time class, the job count, the
arrivals per bucket of the 8-hour window, the GPU-count histogram and that of
the jobs that ran at most a day. Counts only, no trace row. The embedded
summary (traces/default/philly-summary.json) is this command's output for the
reference's traces/philly.csv.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if phillyPath == "" || out == "" {
				return errors.New("--philly FILE and --out FILE are required")
			}
			if window := summaryWindowSeconds(); bucket < 1 || bucket > window || window%bucket != 0 {
				// Checked before reading: 0 was the default silently, and
				// a bad bucket was found after the whole table was read.
				return fmt.Errorf("--bucket must be in [1, %d] seconds and divide the %d-s window, got %d", window, window, bucket)
			}
			if err := checkOutFile(out, inputFile{"--philly", phillyPath}); err != nil {
				return err
			}
			if st, err := os.Stat(phillyPath); err == nil && st.IsDir() {
				return fmt.Errorf("%s: is a folder, not a file", phillyPath)
			}
			f, err := inputfile.Open(phillyPath) // not a named pipe or device
			if err != nil {
				return fmt.Errorf("%s: %w", phillyPath, fserr.Cause(err))
			}
			defer f.Close()
			hash := sha256.New() // of the whole file, read once as a stream
			t, warnings, err := traces.ParsePhilly(io.TeeReader(f, hash), phillyPath)
			if err != nil {
				return err
			}
			printWarnings(cmd.ErrOrStderr(), warnings)
			s, err := traces.Summarize(t, traces.PhillyFilter{}, bucket)
			if err != nil {
				return err
			}
			s.SourceFile = filepath.Base(phillyPath)
			s.SourceSHA256 = hex.EncodeToString(hash.Sum(nil))
			if err := traces.WriteSummary(out, s); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d of %d jobs kept, %d-s arrival buckets\n",
				out, s.Kept, s.Rows, s.BucketSeconds)
			return err
		},
	}
	cmd.Flags().StringVar(&phillyPath, "philly", "", "reduced Philly table (CSV)")
	cmd.Flags().StringVar(&out, "out", "", "output summary (JSON)")
	cmd.Flags().Var(flagvalue.NewInt(&bucket, traces.DefaultBucketSeconds), "bucket",
		fmt.Sprintf("arrival histogram bucket in seconds, %s, dividing the %d-s window", inRange(1, summaryWindowSeconds()), summaryWindowSeconds()))
	return cmd
}

// summaryWindowSeconds is the arrival window summarize-philly's buckets
// divide: the generator's filter's.
func summaryWindowSeconds() int { return traces.DefaultPhillyFilter().WindowHours * 3600 }
