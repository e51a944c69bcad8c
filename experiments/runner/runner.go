package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
	"github.com/polluxsim/polluxsim/version"
)

// Options tune how a run is executed; none of them changes its results
// (Ext says what the binary knows: a run of a policy it lacks fails).
type Options struct {
	// Ext are the binary's extensions: the policies, autoscalers,
	// workload sources and trace formats the run is resolved against
	// (intree.Extensions for the built-ins; nil knows none).
	Ext *extensions.Extensions
	// Out is the folder the run's outputs are written to (see
	// outputs.RunFolder); "" writes nothing (a sweep stores the result
	// itself).
	Out string
	// OutParent, when Out is empty, is the folder under which the run's
	// outputs go to a folder named by its run_id (OutParent/<run_id>,
	// see Prepared.Out): runs of different identities never share a
	// folder, and the same run made again replaces its own.
	OutParent string
	// NoTiming records no wall-clock times (zeros in summary.json, nulls
	// in the tables), so that outputs of the same inputs are
	// byte-identical.
	NoTiming bool
	// PolicyWorkers is the number of goroutines the policy may use for
	// its own work (0: its default); decisions do not depend on it.
	PolicyWorkers int
	// DropRounds records no per-job rounds whatever the spec says (a sweep
	// that keeps only the cluster rows).
	DropRounds bool
	// Observer, if set, is called after every scheduling round.
	Observer func(now float64, finished, total int)
	// Version is what outputs record as the version of polluxsim (""
	// means version.String()). The run's identity uses version.Release.
	Version string
	// Priors caches the offline-fitted θ_sys between runs (nil: fitted
	// for this run; see runspec.OfflineParams).
	Priors *Priors
}

// Prepared is a run whose inputs are resolved and checked, whose policy
// is built and whose identity is known, ready to simulate.
type Prepared struct {
	Spec     runspec.RunSpec
	Profiles *profiles.Set
	Workload *traces.Workload
	// Warnings are what reading the workload warned of (an ignored
	// column, say) and BatchWarnings the jobs whose batch sizes are far
	// outside their profile's (runspec.BatchWarnings), for the caller to
	// show.
	Warnings, BatchWarnings []string
	// Meta is the run's identity; ID its run_id.
	Meta outputs.RunMeta
	ID   string
	// Out is the folder the run's outputs are written to (Options.Out, or
	// Options.OutParent/<run_id>); "" writes none.
	Out string

	policy policies.Policy
	cfg    sim.Config
	opt    Options
}

// Result is a finished run.
type Result struct {
	*Prepared
	// Sim is the simulation's result.
	Sim *sim.Result
	// Files are the output files written, summary.json first (none when
	// Options.Out is empty).
	Files []string
}

// Run prepares and executes one run (Prepare, then Prepared.Execute).
func Run(ctx context.Context, spec runspec.RunSpec, in Inputs, opt Options) (*Result, error) {
	p, err := Prepare(spec, in, opt)
	if err != nil {
		return nil, err
	}
	return p.Execute(ctx)
}

// Prepare resolves and checks the run's inputs and settings, builds its
// policy, checks that the run can finish within the engine's limits, and
// computes the run's identity. It touches no output: a bad input leaves
// nothing behind. An output folder that cannot take a run's outputs (a
// sweep's folder, a folder where an output should be) is refused here
// too, before any simulation time is spent.
func Prepare(spec runspec.RunSpec, in Inputs, opt Options) (_ *Prepared, err error) {
	if spec, err = spec.WithOptions(opt.Ext); err != nil { // the options made canonical
		return nil, err
	}
	if spec, err = spec.PinFaults(); err != nil { // the fault log read once
		return nil, err
	}
	if err := spec.Validate(opt.Ext); err != nil {
		return nil, err
	}
	set := in.Profiles
	if set == nil {
		if set, err = LoadProfiles(in.ProfilesRef); err != nil {
			return nil, err
		}
	}
	if set.Digest == "" {
		return nil, fmt.Errorf("profiles %s: no Digest identifies their content (load them with LoadProfiles)", set.Source)
	}
	w, warnings, batchWarnings, err := in.workload(opt.Ext, set, spec)
	if err != nil {
		return nil, err
	}
	cfg, err := spec.EngineConfig(opt.Ext)
	if err != nil {
		return nil, err
	}
	if err := CheckWorkload(spec, set, w); err != nil {
		return nil, err
	}
	code, err := opt.Ext.PolicyRegistry().CodeDigest(spec.Policy, spec.Options) // before the policy starts the code
	if err != nil {
		return nil, err
	}
	pol, err := opt.Ext.PolicyRegistry().Build(spec.Policy, spec.Options, spec.Env(opt.PolicyWorkers))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = policies.Close(pol) // a policy with a child process (policies/external)
		}
	}()
	cfg.FitWorkers = opt.PolicyWorkers
	if opt.DropRounds {
		cfg.Rounds = sim.RoundsNone
	}
	if spec.OfflinePriors {
		if cfg.SeedParams, err = opt.Priors.get(set, spec.GPUsPerNode); err != nil {
			return nil, err
		}
		if spec.OfflinePriorsScaleOut {
			cfg.SeedSeenGPUs = runspec.OfflineSeenGPUs(set, spec.GPUsPerNode)
		}
	}
	if err := sim.CheckFeasible(cfg, set, w, pol); err != nil {
		return nil, err
	}
	meta, err := identity(spec, set, w, opt)
	if err != nil {
		return nil, err
	}
	meta.PolicyCode = code
	meta.PolicyName = policies.ReportedName(pol, spec.Policy)
	id := outputs.PlainRunKey(spec, meta).ID
	if opt.Out == "" && opt.OutParent != "" {
		opt.Out = filepath.Join(opt.OutParent, id)
	}
	if opt.Out != "" {
		if err := outputs.CheckRunFolder(opt.Out); err != nil {
			return nil, fmt.Errorf("--out %s: %w", opt.Out, err)
		}
	}
	return &Prepared{Spec: spec, Profiles: set, Workload: w, Warnings: warnings, BatchWarnings: batchWarnings, Meta: meta,
		ID: id, Out: opt.Out, policy: pol, cfg: cfg, opt: opt}, nil
}

// CheckWorkload checks a workload for a run of spec on the profiles set:
// every job's application is known and its request fits the cluster at
// its largest (RunSpec.MaxJobGPUs; traces.Validate). It is the one
// capacity check of a run (Prepare) and of a sweep's plan.
func CheckWorkload(spec runspec.RunSpec, set *profiles.Set, w *traces.Workload) error {
	return traces.Validate(w, set.Names(), spec.MaxJobGPUs())
}

// identity is the run's identity: the inputs' hash over the workload as
// simulated, the profiles' digest and the release, and the version the
// outputs record.
func identity(spec runspec.RunSpec, set *profiles.Set, w *traces.Workload, opt Options) (outputs.RunMeta, error) {
	var wl bytes.Buffer
	if err := traces.Write(&wl, w); err != nil {
		return outputs.RunMeta{}, err
	}
	v := opt.Version
	if v == "" {
		v = version.String()
	}
	return outputs.RunMeta{
		Version:        v,
		Seed:           spec.Seed,
		InputsHash:     outputs.RunHash(outputs.InputsIdentity, outputs.Identity{Workload: wl.Bytes(), ProfilesDigest: set.Digest}),
		Workload:       w.Source,
		WorkloadDigest: outputs.WorkloadDigest(wl.Bytes()),
		Profiles:       set.Source,
	}, nil
}

// Execute simulates the run and, when Options.Out is set, writes its
// outputs: the rounds are streamed to a temporary file as the run goes,
// and every output replaces an earlier run's in one step at the end (see
// outputs.RunFolder). When ctx is cancelled the simulation stops at its
// next round and nothing is written: the temporary files are removed, an
// earlier run in the folder is left whole, and a folder Execute made is
// removed; the error is ctx's. Once the outputs are complete, they are
// committed whatever ctx says.
func (p *Prepared) Execute(ctx context.Context) (*Result, error) {
	defer p.Close()
	if c, ok := p.policy.(io.Closer); ok {
		// Interrupted, the policy's child ends at once, and with it a
		// round it may be in.
		defer context.AfterFunc(ctx, func() { _ = c.Close() })()
	}
	cfg := p.cfg
	cfg.Observer = p.opt.Observer
	var folder *outputs.RunFolder
	opt := outputs.OutputOptions{NoTiming: p.opt.NoTiming, Metrics: p.opt.Ext.MetricSet(), Tables: p.opt.Ext.Tables}
	if p.opt.Out != "" {
		var err error
		if folder, err = outputs.OpenRunFolder(p.opt.Out); err != nil {
			return nil, fmt.Errorf("--out %s: %w", p.opt.Out, err)
		}
		if cfg.Rounds != sim.RoundsNone {
			if opt.Rounds, err = folder.StreamRounds(p.policy.Name(), p.Spec, p.Meta, opt); err != nil {
				folder.Abort()
				return nil, err
			}
			cfg.RoundSink = opt.Rounds
		}
	}
	res, err := sim.RunContext(ctx, cfg, p.Profiles, p.Workload, p.policy)
	if ctx.Err() != nil {
		// Cancelled after the last round, or during one (an external
		// policy's child, ended, fails the round it was in).
		err = ctx.Err()
	}
	if err != nil {
		if folder != nil {
			folder.Abort()
		}
		return nil, err
	}
	out := &Result{Prepared: p, Sim: res}
	if folder == nil {
		return out, nil
	}
	if err := folder.Write(res, p.Spec, p.Meta, opt); err != nil {
		return nil, err
	}
	out.Files = outputs.RunFiles(p.opt.Out, res)
	return out, nil
}

// Close releases what the run's policy holds beyond memory (the child
// process of policies/external; see policies' optional interfaces).
// Execute closes it when the run ends, fails or is interrupted; a caller
// that prepares a run and does not execute it calls Close.
func (p *Prepared) Close() { _ = policies.Close(p.policy) }

// Priors caches the offline-fitted θ_sys of a profile set per node size,
// for the runs of a sweep; safe for concurrent use. The zero value is
// ready.
type Priors struct {
	mu  sync.Mutex
	set *profiles.Set
	by  map[int]map[string]models.Params
}

// get returns the offline θ_sys of set's applications at gpusPerNode
// GPUs per node, fitting them once (a nil Priors fits every time).
func (c *Priors) get(set *profiles.Set, gpusPerNode int) (map[string]models.Params, error) {
	if c == nil {
		return runspec.OfflineParams(set, gpusPerNode)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil && c.set != set {
		return nil, errors.New("runner: one Priors cache serves one profile set")
	}
	c.set = set
	if s, ok := c.by[gpusPerNode]; ok {
		return s, nil
	}
	s, err := runspec.OfflineParams(set, gpusPerNode)
	if err != nil {
		return nil, err
	}
	if c.by == nil {
		c.by = map[int]map[string]models.Params{}
	}
	c.by[gpusPerNode] = s
	return s, nil
}
