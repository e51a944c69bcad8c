package app

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/internal/flagvalue"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// runFlags are the settings of `polluxsim run`.
type runFlags struct {
	ext          *extensions.Extensions
	spec         runspec.RunSpec
	workload     string
	profiles     string
	config       string
	jobs         int
	workloadSeed uint64
	out          string
	noTiming     bool
	quiet        bool
	policyOpts   []string
	cluster      string
	aliases      optionAliases
	elastic      elasticFlags
	output       output
}

func newRunCmd(ext *extensions.Extensions, defaultPolicy string) *cobra.Command {
	return newRunCmdFor(&runFlags{ext: ext, spec: runspec.DefaultSpec(defaultPolicy)})
}

// newRunCmdFor builds the run command around rf, which its flags fill.
func newRunCmdFor(rf *runFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Simulate one workload under one scheduling policy",
		Long: `run replays a workload on the simulated cluster under one policy, prints a short
summary and writes DIR/summary.json, DIR/jobs.parquet, DIR/rounds.parquet and
DIR/cluster.parquet, and on an elastic cluster DIR/nodes.parquet (the tables
are documented in docs/outputs.md). DIR is --out, replaced by this run's
outputs; without --out it is out/runs/RUN_ID, a folder per run named by its
run_id: runs of other settings never replace each other, and the same run
made again replaces its own folder.

Without --workload it generates the default workload: 160 jobs sampled from the
embedded summary of the Philly trace (--jobs, --workload-seed, --config choose
others); --workload paper:N and paper-realistic:N (N = 1..8) are the Pollux
artifact's reference workloads, embedded. Without --profiles it uses the
measured tables embedded in the binary ("embedded"); --profiles compact selects
the embedded compact model, --profiles llm LLM-era transformer jobs (with
--cluster h100:64x8 and --workload acme:FILE or a CSV of llm-* jobs; see
docs/llm.md).

Policy options: --policy-opt key=value, repeatable; ` + "`polluxsim policies`" + ` lists
every policy's options with defaults. --p, --population, --generations,
--no-local-search, --full-search and --no-interference-avoidance are
shorthands for Pollux's options.`,
		Example: `  polluxsim run --out out/pollux
  polluxsim run --policy tiresias --workload paper:1 --step --out out/t1
  polluxsim run --policy pollux --p -10 --interference 0.5 --no-interference-avoidance --out out/p
  polluxsim run --policy tiresias --policy-opt demote_gpu_hours=8 --out out/t8`,
		Args: noArgsAfterPolicyOpt(&rf.policyOpts),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOnce(cmd, rf)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rf.spec.Policy, "policy", rf.spec.Policy, "scheduling policy: "+strings.Join(rf.ext.PolicyRegistry().Names(), ", "))
	f.StringVar(&rf.workload, "workload", "", "workload: a CSV file, paper:N / paper-realistic:N (N = 1..8) for the embedded reference workloads, generate:KEY=VALUE,..., a trace name such as itp:cluster02, or any registered source (see polluxsim workload sources; default: generated from the embedded Philly summary)")
	f.StringVar(&rf.profiles, "profiles", "", runner.ProfilesHelp)
	f.StringVar(&rf.config, "config", traces.ConfigTuned, "job configurations of the generated workload: tuned or realistic")
	f.Var(flagvalue.NewInt(&rf.jobs, 160), "jobs", "jobs in the generated workload, "+inRange(1, workloads.MaxGeneratedJobs)+" (160 = 1.0x load)")
	f.Var(flagvalue.NewUint(&rf.workloadSeed, 1), "workload-seed", "seed of the generated workload")
	f.Var(flagvalue.NewInt(&rf.spec.Nodes, 16), "nodes", "nodes in the cluster, "+inRange(1, runspec.MaxNodes))
	gpusPerNodeFlag(f, &rf.spec.GPUsPerNode, "GPUs per node")
	f.StringVar(&rf.cluster, "cluster", "", "node pools TYPE:NODESxGPUS[@PRICE],... (types t4, v100, a100, rtx6000, rtx2080ti or Sia suffixes), or a cluster file (NAME TYPE NODES GPUS_PER_NODE [PRICE] per line); replaces --nodes/--gpus-per-node")
	f.Var(flagvalue.NewSeconds(&rf.spec.Interval, 60, true), "interval", "scheduling interval (seconds, or e.g. 60s, 2m), in (0, "+fmt.Sprint(runspec.MaxSeconds)+"]")
	f.Var(flagvalue.NewSeconds(&rf.spec.RestartDelay, 30, false), "realloc-delay", "restart delay after any re-allocation (seconds or duration), "+inRange(0, runspec.MaxSeconds))
	f.Var(flagvalue.NewFloat(&rf.spec.Interference, 0), "interference", "slowdown in [0,1) of multi-node jobs sharing a node")
	f.StringArrayVar(&rf.policyOpts, "policy-opt", nil, "policy option key=value (repeatable; 'polluxsim policies' lists each policy's options)")
	rf.aliases.register(f, rf.ext)
	rf.elastic.register(f, rf)
	f.Var(flagvalue.NewUint(&rf.spec.Seed, 1), "seed", "seed of the policy's search")
	f.StringVar(&rf.spec.Calibration, "calibration", "", "calibrate the simulated cluster to a physical one: "+calibrationNames()+" (default none)")
	f.StringVar(&rf.spec.Failures, "failures", "", "fault model: none (default), a preset ("+strings.Join(faults.Presets(), ", ")+"), a fault log (CSV time,node,domain,duration), or key=value settings rate=PER_NODE_DAY, repair=exp:SECONDS, domain=K:RATE, job_fail=PER_JOB_DAY, file=PATH, ckpt=SECONDS|young|daly|none, ckpt_cost=SECONDS, replan=now|round, spares=K (see docs/failures.md)")
	f.BoolVar(&rf.spec.Step, "step", false, "step like the reference simulator (fixed intervals, whole-second epoch crossings)")
	f.StringVar(&rf.out, "out", "", "output folder, replaced by the run's outputs (default "+runsDir+"/RUN_ID: a folder per run, named by its run_id, so that runs of different settings never replace each other)")
	f.BoolVar(&rf.noTiming, "no-timing", false, "do not record wall-clock times (zeros in summary.json, nulls in the tables) so that reruns are byte-identical")
	f.BoolVar(&rf.quiet, "quiet", false, "print no progress")
	rf.output.register(f)
	f.StringVar(&rf.spec.Rounds, "rounds", "", "per-job round records in rounds.parquet: all (default), changes (a row when a job's phase, GPUs or batch changes) or none (no rounds.parquet); rows are streamed to the file as the run goes. With changes or none, a policy that can decide from what changed (tiresias, optimus, fifo, pollux) is told only that, so waiting jobs cost nothing: the same results, much faster on an overloaded cluster")
	return cmd
}

// check validates the flags that need no file: every problem names its
// flag.
func (rf *runFlags) check(cmd *cobra.Command) error {
	if err := rf.output.check(); err != nil {
		return err
	}
	if err := rf.resolveOptions(cmd); err != nil {
		return err
	}
	if rf.cluster != "" {
		if cmd.Flags().Changed("nodes") || cmd.Flags().Changed("gpus-per-node") {
			return errors.New("--cluster replaces --nodes and --gpus-per-node; give one or the other")
		}
		c, err := runspec.LoadCluster(rf.cluster)
		if err != nil {
			return err
		}
		rf.spec.SetCluster(c)
	}
	if err := rf.elastic.resolve(rf); err != nil {
		return err
	}
	if err := rf.spec.Validate(rf.ext); err != nil {
		return err
	}
	if rf.workload != "" && (cmd.Flags().Changed("jobs") || cmd.Flags().Changed("workload-seed") || cmd.Flags().Changed("config")) {
		return errors.New("--jobs, --workload-seed and --config describe the generated workload; they cannot be used with --workload")
	}
	if rf.workload == "" {
		if err := rf.generate().Validate(); err != nil {
			return err
		}
	}
	if !cmd.Flags().Changed("out") {
		return nil // a folder of its run_id's, checked once it is known (runOnce)
	}
	if strings.TrimSpace(rf.out) == "" {
		return errors.New("--out must name a folder")
	}
	return rf.checkOut(rf.out)
}

// runsDir is the folder under which `run` without --out writes each run
// to a folder named by its run_id (docs/running.md): a loop of runs of
// different settings keeps every one, the same run made again replaces
// its own folder.
const runsDir = "out/runs"

// checkOut refuses an output folder where a file of the run's is (or
// links to) an input, or lies inside an input folder: it would replace
// it.
func (rf *runFlags) checkOut(dir string) error {
	for _, name := range outputs.RunOutputs() {
		if err := checkNotInput(dir, filepath.Join(dir, name), nil,
			refInput(rf.ext.Traces(), "--workload", rf.workload), inputFile{"--cluster", rf.cluster}, inputFile{"--profiles", rf.profiles}); err != nil {
			return err
		}
	}
	return nil
}

func runOnce(cmd *cobra.Command, rf *runFlags) error {
	// The handler is installed before anything is created: a signal from
	// here on cancels the run, which removes what it made (see
	// runner.Prepared.Execute); an earlier run in --out stays whole.
	ctx, sig, stop := interruptible(cmd.Context())
	defer stop()
	if err := rf.check(cmd); err != nil {
		return err
	}
	var prog *progress
	opt := runner.Options{Ext: rf.ext, Out: rf.out, NoTiming: rf.noTiming, Observer: func(_ float64, finished, _ int) { prog.set(finished) }}
	if !cmd.Flags().Changed("out") {
		opt.OutParent = runsDir
	}
	p, err := runner.Prepare(rf.spec, runner.Inputs{
		ProfilesRef: rf.profiles, WorkloadRef: rf.workload,
		Generate: rf.generate(),
	}, opt)
	if err != nil {
		return err
	}
	if opt.Out == "" {
		if err := rf.checkOut(p.Out); err != nil {
			p.Close()
			return err
		}
	}
	printWarnings(cmd.ErrOrStderr(), p.Warnings)
	printWarnings(cmd.ErrOrStderr(), p.BatchWarnings)
	prog = newProgress(cmd.ErrOrStderr(), len(p.Workload.Jobs), "simulating "+rf.spec.Policy, rf.quiet)
	res, err := p.Execute(ctx)
	prog.finish()
	if err != nil {
		if s := sig(); s != nil {
			if !rf.quiet {
				fmt.Fprintln(cmd.ErrOrStderr()) // end the progress line
			}
			return fmt.Errorf("interrupted (%v): the run was not written to %s", s, p.Out)
		}
		return err
	}
	if rf.output.json() {
		return printSummaryJSON(cmd.OutOrStdout(), res)
	}
	if err := printSummary(cmd.OutOrStdout(), res); err != nil {
		return err
	}
	return printElastic(cmd.OutOrStdout(), res.Sim)
}

// printSummaryJSON prints the run's summary.json as written (-o json),
// its one home: the run's identity, the engine's summary, its metadata
// and settings (docs/outputs.md).
func printSummaryJSON(w io.Writer, run *runner.Result) error {
	if len(run.Files) == 0 {
		return errors.New("-o json: the run wrote no summary.json")
	}
	data, err := inputfile.ReadFileLimit(run.Files[0], inputfile.MaxStoredSize)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// rhoText is the average ρ for people, "-" when no job has one (it
// printed 0.00).
func rhoText(s sim.Summary) string {
	if s.NoFairness {
		return "-"
	}
	return fmt.Sprintf("%.2f", s.AvgFairness)
}

// deadlineText is the run's deadline metrics for people, one line; ""
// for a run without deadlines (docs/deadlines.md).
func deadlineText(res *sim.Result) string {
	d := outputs.NewRunData(res, true)
	get := func(name string) (float64, bool) {
		m, _ := outputs.LookupMetric(name)
		return m.Of(d)
	}
	n, ok := get("jobs_with_deadline")
	if !ok {
		return ""
	}
	declined, _ := get("jobs_declined")
	late, _ := get("late_jobs")
	ratio := "-"
	if r, ok := get("deadline_satisfactory_ratio"); ok {
		ratio = fmt.Sprintf("%.1f%%", 100*r)
	}
	return fmt.Sprintf("  deadlines met %s of %.0f   declined %.0f   late %.0f\n", ratio, n, declined, late)
}

func printSummary(w io.Writer, run *runner.Result) error {
	s, files := run.Sim.Summary, run.Files
	policy := s.Policy
	if n := run.Meta.PolicyName; n != "" && n != policy {
		policy += " (policy_name " + n + ")" // the name an external policy reported
	}
	_, err := fmt.Fprintf(w, `policy %s: %d jobs on %s
  avg JCT %.0f s (%.2f h)   p50 %.0f s   p99 %.0f s
  makespan %.0f s   restarts %d   GPU-hours %.1f   utilisation %.1f%%
  avg finish-time fairness rho %s   agent fits %d
%s  wall %.2f s (policy %.2f s over %d rounds)
wrote %s
`, policy, s.Jobs, run.Spec.ClusterText(),
		s.AvgJCT, s.AvgJCT/3600, s.P50JCT, s.P99JCT,
		s.Makespan, s.Restarts, s.GPUHours, 100*s.Utilisation,
		rhoText(s), s.AgentFits, deadlineText(run.Sim),
		s.Wall, s.PolicyRoundTotal, s.Rounds,
		strings.Join(files, ", "))
	return err
}

// calibrationNames lists the named calibrations for --calibration's help.
func calibrationNames() string {
	var names []string
	for _, c := range runspec.Calibrations() {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// generate is the generated workload the flags describe (when --workload
// is not given).
func (rf *runFlags) generate() workloads.Generate {
	return workloads.Generate{Jobs: rf.jobs, Seed: rf.workloadSeed, Config: rf.config}
}
