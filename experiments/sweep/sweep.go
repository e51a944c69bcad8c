package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/dirlock"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
)

// Shard selects every Count-th run of an experiment starting at Index, so
// that independent processes (a Kubernetes Indexed Job, a Slurm array) can
// share a sweep; the zero value is the whole sweep.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" (0 ≤ i < n).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want i/n, e.g. 0/3", s)
	}
	if n < 1 {
		return Shard{}, fmt.Errorf("--shard %q: the number of shards must be at least 1", s)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: the shard index must be in 0..%d", s, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) String() string {
	if s.Count <= 1 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// owns reports whether the run at position i of Experiment.Runs belongs
// to the shard (round robin, which mixes expensive and cheap cells).
func (s Shard) owns(i int) bool { return s.Count <= 1 || i%s.Count == s.Index }

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Profiles are shared by every run (they are immutable); ProfilesID
	// identifies them (a digest of their files, or the name of a built-in
	// set: "embedded", "compact").
	Profiles   *profiles.Set
	ProfilesID string
	// Workloads is a folder of workload files (see WorkloadFolder); runs
	// whose folder it lacks use generated workloads. "" reads the embedded
	// reference workloads (the Pollux artifact's workloads/ and
	// workloads-realistic/, 8 × 160 jobs at 1.0× load) where they fit the
	// cell and generates the others; GeneratedWorkloads generates all.
	Workloads string
	// Out is the output folder.
	Out string
	// Parallel is the number of runs simulated at once (default
	// GOMAXPROCS).
	Parallel int
	// PolicyWorkers is the number of search goroutines of each Pollux
	// policy (0: GOMAXPROCS / Parallel, at least 1). Decisions do not
	// depend on it.
	PolicyWorkers int
	Shard         Shard
	// WorkloadsOnly, when set, runs only the runs of these workload
	// numbers (ParseWorkloadNumbers; with Shard, the shard's runs among
	// them); the sweep's tables and summary cover every run stored, and
	// name the missing ones.
	WorkloadsOnly []int
	// NoTiming stores zeros for wall-clock fields, so that the same sweep
	// gives identical files.
	NoTiming bool
	// JobRounds also keeps every run's rounds table
	// (cells/<run>.rounds.parquet) and writes the sweep's rounds.parquet;
	// off by default, as it is large (about 100,000 rows per 160-job run).
	JobRounds bool
	// ReplaceOtherProfiles lets the sweep redo, and so replace, stored runs
	// made with other profiles than ProfilesID; without it such runs are
	// an error (re-sweeping with other profiles replaced every cell
	// silently).
	ReplaceOtherProfiles bool
	// Version identifies the code (polluxsim's version; the CLI adds a
	// digest of its binary), recorded with every run and part of its hash:
	// runs stored by other code are redone.
	Version string
	// Spec is the experiment's spec file as read; it is stored as
	// DIR/experiment.json for merge, plot and regress (default: exp as
	// JSON).
	Spec []byte
	// Planned, if set, is called once the runs are planned, before any
	// runs: how many are to do and how many were already done.
	Planned func(todo, skipped int)
	// Progress, if set, is called (from one goroutine) after each run with
	// the runs done and to do in this invocation.
	Progress func(done, total int)
	// Note, if set, receives informational messages (e.g. which workloads
	// are generated).
	Note func(msg string)
	// ProfilesPath is the file or folder Profiles were read from, if any:
	// the sweep refuses an Out inside it, or inside Workloads
	// (CheckOutsideInputs).
	ProfilesPath string
}

// SweepReport tells what a sweep did.
type SweepReport struct {
	Runs    int // runs of this shard
	Skipped int // already done by an earlier invocation
	Ran     int
	Wall    time.Duration
	Summary *SweepSummary
}

// ErrInterrupted is returned (wrapped) when the context is cancelled before
// every run is done; the finished runs are kept.
var ErrInterrupted = errors.New("interrupted")

// Output files of a sweep.
const (
	ExperimentFile = "experiment.json"
	ResultsFile    = "results.parquet"
	AppsFile       = "apps.parquet"
	JobsFile       = "jobs.parquet"
	ClusterFile    = "cluster.parquet"
	TypesFile      = "types.parquet"
	RoundsFile     = "rounds.parquet"
	SummaryFile    = "summary.json"
	CellsDir       = "cells"
)

// CheckSweepOut fails if dir already holds the results of another
// experiment, or a run's outputs (a summary.json without an
// experiment.json), which the sweep's files would replace. It creates
// nothing.
func CheckSweepOut(dir string, exp *experiments.Experiment) error {
	data, err := inputfile.ReadFile(filepath.Join(dir, ExperimentFile))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
			return fmt.Errorf("--out %s holds a run's outputs (summary.json), which the sweep's would replace: choose another folder", dir)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	var head struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("--out %s: %s is not an experiment spec (%v): choose another folder", dir, ExperimentFile, err)
	}
	if head.Name != exp.Name {
		return fmt.Errorf("--out %s holds the results of experiment %q, not %q: choose another folder", dir, head.Name, exp.Name)
	}
	return nil
}

// planned is one run to do, with its inputs.
type planned struct {
	run  experiments.Run
	pos  int
	wl   *sweepWorkload
	hash string
}

// Sweep runs the experiment's runs of opt.Shard (and opt.WorkloadsOnly) that are not already done
// in opt.Out, opt.Parallel at a time. Each finished run is written at once,
// atomically, to DIR/cells/<run>.json, so an interrupted sweep (Ctrl-C,
// SIGKILL, a lost node) loses no finished run; run again, it skips every
// run whose file exists with the same inputs hash. At the end the
// sweep's tables (see Rebuild) and DIR/summary.json are rebuilt from all
// the run files present. The sweep holds the folder's lock
// (internal/dirlock) while it writes: a second sweep or merge into it
// fails at once.
func Sweep(ctx context.Context, exp *experiments.Experiment, opt SweepOptions) (*SweepReport, error) {
	start := time.Now()
	if opt.Parallel == 0 {
		opt.Parallel = runtime.GOMAXPROCS(0)
	}
	switch {
	case opt.Parallel < 1:
		return nil, fmt.Errorf("--parallel must be at least 1, got %d", opt.Parallel)
	case opt.Out == "":
		return nil, errors.New("--out DIR is required")
	case opt.Profiles == nil:
		return nil, errors.New("sweep: no profiles")
	case opt.Shard.Count > 1 && (opt.Shard.Index < 0 || opt.Shard.Index >= opt.Shard.Count):
		return nil, fmt.Errorf("bad shard %d/%d", opt.Shard.Index, opt.Shard.Count)
	}
	if opt.PolicyWorkers <= 0 {
		opt.PolicyWorkers = max(1, runtime.GOMAXPROCS(0)/opt.Parallel)
	}
	if err := checkWorkloadNumbers(exp, opt.WorkloadsOnly); err != nil {
		return nil, err
	}
	if err := CheckSweepOut(opt.Out, exp); err != nil {
		return nil, err
	}
	if err := CheckOutsideInputs(opt.Out, opt.ProfilesPath, opt.Workloads); err != nil {
		return nil, err
	}
	if err := checkSetFiles(exp, opt.Workloads); err != nil {
		return nil, err
	}
	if err := checkClusterTables(exp, opt.Profiles); err != nil {
		return nil, err
	}
	store := newWorkloadStore(exp.Extensions(), exp.Workloads.Sets, opt.Workloads, opt.Profiles)
	var plan []planned
	codes := policyCodes{reg: exp.Extensions().PolicyRegistry()}
	for i, r := range exp.Runs() {
		if !opt.selected(i, r) {
			continue
		}
		wl, err := store.get(r.Cell, r.Workload)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID(), err)
		}
		if err := runner.CheckWorkload(r.Cell.Spec(), opt.Profiles, wl.w); err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID(), err)
		}
		code, err := codes.get(r.Cell.Spec())
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID(), err)
		}
		plan = append(plan, planned{run: r, pos: i, wl: wl, hash: runHash(exp, r, wl, code, opt)})
	}
	if opt.Note != nil {
		for _, n := range store.noteLog {
			opt.Note(n)
		}
	}
	cells := filepath.Join(opt.Out, CellsDir)
	if err := os.MkdirAll(cells, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", opt.Out, fserr.Cause(err))
	}
	release, err := lockOut(opt.Out, "sweep "+exp.Name+" shard "+opt.Shard.String())
	if err != nil {
		return nil, err
	}
	defer release()
	if err := CheckSweepOut(opt.Out, exp); err != nil { // again, under the lock
		return nil, err
	}
	removeStaleTemps(cells)
	spec := opt.Spec
	if len(spec) == 0 {
		data, err := json.MarshalIndent(exp, "", "  ")
		if err != nil {
			return nil, err
		}
		spec = append(data, '\n')
	}
	if err := atomicfile.WriteBytes(filepath.Join(opt.Out, ExperimentFile), spec); err != nil {
		return nil, err
	}
	// The fault logs the spec names, beside it as beside the spec.
	if err := exp.WriteFaultLogs(opt.Out); err != nil {
		return nil, err
	}
	rep := &SweepReport{Runs: len(plan)}
	var todo []planned
	other, otherID := 0, ""
	for _, p := range plan {
		r, err := results.ReadRunResult(RunPath(opt.Out, p.run.ID()))
		if errors.Is(err, results.ErrCorrupt) {
			return nil, err
		}
		if err == nil && r.Hash == p.hash && r.JobResults != nil && (!opt.JobRounds || hasRounds(opt.Out, r)) {
			rep.Skipped++
			continue
		}
		if err == nil && r.ProfilesID != opt.ProfilesID {
			other, otherID = other+1, r.ProfilesID
		}
		todo = append(todo, p)
	}
	if other > 0 && !opt.ReplaceOtherProfiles {
		return nil, fmt.Errorf("--out %s holds %d runs made with other profiles (%s, these are %s): sweeping would replace them; sweep into another folder, or replace them with --replace-other-profiles",
			opt.Out, other, otherID, opt.ProfilesID)
	}
	// Expensive runs first, so that the last ones to finish are short.
	cost := make(map[string]float64, len(todo)) // one policy built per run, not per comparison
	for _, p := range todo {
		cost[p.run.ID()] = runCost(exp, p.run)
	}
	sort.SliceStable(todo, func(a, b int) bool { return cost[todo[a].run.ID()] > cost[todo[b].run.ID()] })
	if opt.Planned != nil {
		opt.Planned(len(todo), rep.Skipped)
	}

	r := &pool{opt: opt, exp: exp}
	ran, err := r.runAll(ctx, todo)
	rep.Ran = ran
	if err != nil {
		return rep, err
	}
	sum, err := Rebuild(opt.Out, exp, exp.MetricSet())
	if err != nil {
		return rep, err
	}
	rep.Summary = sum
	rep.Wall = time.Since(start)
	return rep, nil
}

// runCost is a rough relative cost of a run, for ordering.
func runCost(exp *experiments.Experiment, r experiments.Run) float64 {
	c := float64(r.Cell.Jobs()) * 60 / r.Cell.Spec().Interval
	if reg, ok := exp.Extensions().PolicyRegistry().Lookup(r.Cell.Spec().Policy); ok {
		c *= reg.RelativeCost()
	}
	return c
}

// runHash is the stored run's identity (outputs.SweepRunIdentity); code
// is the digest of its policy's code outside the binary (policyCodes).
func runHash(exp *experiments.Experiment, r experiments.Run, wl *sweepWorkload, code string, opt SweepOptions) string {
	return outputs.RunHash(outputs.SweepRunIdentity, outputs.Identity{
		Experiment: exp.Name, ExperimentVersion: exp.Version, Run: r.ID(), Settings: r.Cell.Spec(),
		Config: r.Cell.Config(), Load: r.Cell.Load(), Jobs: r.Cell.Jobs(), Workload: wl.csv,
		ProfilesID: opt.ProfilesID, Code: opt.Version, PolicyCode: code, FaultLog: r.Cell.Spec().FaultLog(),
	})
}

// policyCodes computes the digest of a policy's code outside the binary
// (policies.Registry.CodeDigest: an external policy's script) once per
// policy and options, when a sweep is planned.
type policyCodes struct {
	reg  *policies.Registry
	memo map[string]string
}

func (c *policyCodes) get(spec runspec.RunSpec) (string, error) {
	key := spec.Policy + "\x00" + string(spec.Options)
	if d, ok := c.memo[key]; ok {
		return d, nil
	}
	d, err := c.reg.CodeDigest(spec.Policy, spec.Options)
	if err != nil {
		return "", err
	}
	if c.memo == nil {
		c.memo = map[string]string{}
	}
	c.memo[key] = d
	return d, nil
}

// RunPath is where a sweep in dir stores run id.
func RunPath(dir, id string) string { return filepath.Join(dir, CellsDir, id+".json") }

// pool simulates planned runs on a pool of goroutines.
type pool struct {
	opt SweepOptions
	exp *experiments.Experiment
	// priors caches the offline θ_sys the runs share.
	priors runner.Priors
}

type runDone struct {
	id  string
	err error
}

func (rn *pool) runAll(ctx context.Context, todo []planned) (int, error) {
	if len(todo) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan planned)
	done := make(chan runDone)
	var wg sync.WaitGroup
	for w := 0; w < min(rn.opt.Parallel, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if ctx.Err() != nil {
					continue // cancelled: start nothing new
				}
				done <- runDone{p.run.ID(), rn.runOne(p)}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, p := range todo {
			select {
			case work <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	n := 0
	var firstErr error
	for d := range done {
		if d.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("run %s: %w", d.id, d.err)
				cancel()
			}
			continue
		}
		n++
		if rn.opt.Progress != nil {
			rn.opt.Progress(n, len(todo))
		}
	}
	if firstErr != nil {
		return n, firstErr
	}
	if n < len(todo) {
		return n, fmt.Errorf("%w after %d of %d runs (the finished ones are kept; run the same command again to go on)", ErrInterrupted, n, len(todo))
	}
	return n, nil
}

// runOne simulates one run through the run pipeline and stores its
// result.
func (rn *pool) runOne(p planned) error {
	spec := p.run.Cell.Spec()
	// As run does: a workload that cannot finish within the engine's
	// limits is refused before it is simulated (runner.Prepare).
	run, err := runner.Run(context.Background(), spec, runner.Inputs{Profiles: rn.opt.Profiles, Workload: p.wl.w},
		runner.Options{Ext: rn.exp.Extensions(), NoTiming: rn.opt.NoTiming, PolicyWorkers: rn.opt.PolicyWorkers, DropRounds: !rn.opt.JobRounds,
			Version: rn.opt.Version, Priors: &rn.priors})
	if err != nil {
		return err
	}
	res := run.Sim
	rr := results.NewRunResult(res, rn.opt.NoTiming)
	rr.Experiment, rr.ExperimentVersion = rn.exp.Name, rn.exp.Version
	rr.Run, rr.Cell, rr.Workload = p.run.ID(), p.run.Cell.Name, p.run.Workload
	rr.Hash, rr.PolluxsimVersion = p.hash, rn.opt.Version
	rr.Settings = spec
	rr.Load, rr.Config, rr.Jobs = p.run.Cell.Load(), p.run.Cell.Config(), len(p.wl.w.Jobs)
	rr.WorkloadSource, rr.WorkloadDigest = p.wl.desc, run.Meta.WorkloadDigest
	rr.Profiles, rr.ProfilesID = rn.opt.Profiles.Source, rn.opt.ProfilesID
	if run.Meta.PolicyName != spec.Policy {
		rr.PolicyName = run.Meta.PolicyName
	}
	if rn.opt.JobRounds {
		key := results.SweepRunKey(rr)
		kv, order := sweepMeta(rn.exp)
		kv["polluxsim.run_id"] = key.ID
		order = append(order, "polluxsim.run_id")
		if err := outputs.WriteRounds(RunRoundsPath(rn.opt.Out, rr.Run), &key, res, kv, order); err != nil {
			return err
		}
	}
	return results.WriteRunResult(RunPath(rn.opt.Out, rr.Run), rr)
}

// hasRounds reports whether the run's rounds table is stored.
func hasRounds(dir string, r *results.RunResult) bool {
	id, err := parquetMetaValue(RunRoundsPath(dir, r.Run), "polluxsim.run_id")
	return err == nil && id == results.SweepRunKey(r).ID
}

// SweepOutputs lists the files a sweep's tables and summary are in dir
// (rounds.parquet when present).
func SweepOutputs(dir string) []string {
	var files []string
	for _, f := range OutputNames() {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			files = append(files, filepath.Join(dir, f))
		}
	}
	return files
}

// OutputNames are the names of a sweep's tables and summary in its folder
// (rounds.parquet only with SweepOptions.JobRounds).
func OutputNames() []string {
	return []string{ResultsFile, AppsFile, JobsFile, ClusterFile, TypesFile, RoundsFile, SummaryFile}
}

// runRoundsPath is where a sweep keeps a run's rounds table (JobRounds).
// RunRoundsPath is where a sweep in dir stores the rounds of run id.
func RunRoundsPath(dir, id string) string { return filepath.Join(dir, CellsDir, id+".rounds.parquet") }

// removeStaleTemps deletes temporary files that a killed process left in
// dir (atomic writes name them .<file>.tmp-*); recent ones may belong to a
// process still running and are kept.
func removeStaleTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") || !strings.Contains(e.Name(), ".tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// lockOut takes the lock of an output folder (see internal/dirlock), so
// that two sweeps or merges never write one folder at once; a second one
// fails at once naming the holder.
func lockOut(dir, what string) (func(), error) {
	release, err := dirlock.Acquire(dir, what)
	var held *dirlock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("--out %s is in use by %s (wait for it to end, or choose another folder)", dir, held.Holder)
	}
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, fserr.Cause(err))
	}
	return release, nil
}
