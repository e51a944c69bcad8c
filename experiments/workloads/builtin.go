package workloads

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/kv"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// Builtin are the built-in workload sources: csv (and any file), paper,
// paper-realistic, generate, llm and trace (every trace format's names).
func Builtin() []Source {
	return []Source{
		{Name: CSVSource, Usage: "csv:FILE, or any FILE", Doc: "a workload CSV (name,time,application,num_replicas,batch_size), the reference simulator's format", Resolve: readCSV},
		{Name: "paper", Usage: "paper:N (N = 1..8)", Doc: "the Pollux artifact's reference workload N, TunedJobs configurations (embedded)", Resolve: paper("paper")},
		{Name: "paper-realistic", Usage: "paper-realistic:N (N = 1..8)", Doc: "the Pollux artifact's reference workload N with its users' configurations (embedded)", Resolve: paper("paper-realistic")},
		{Name: GenerateSource, Usage: "generate:jobs=160,seed=1,config=tuned[,philly=FILE|summary=FILE|trace=NAME[,window=W][,oversize=cap|skip|refuse]][,all=true][,max_replicas=N][,deadlines=elasticflow|tightness[,tightness=F][,deadline_min=F,deadline_max=F][,best_effort=P]]",
			Doc: "the paper's generator: jobs sampled from the embedded Philly summary, a Philly table or any registered trace (see docs/traces.md)", Resolve: generate},
		{Name: LLMGenSource, Usage: "llm:jobs=200,seed=1,hours=8", Doc: "LLM jobs (pre-training, SFT, evaluation, debug) of the llm profile set, generated in a stated mix with Poisson arrivals (--profiles llm; docs/llm.md)", Resolve: llmGen},
		{Name: TraceSource, Usage: "NAME:ARG of any trace format (itp:cluster02, helios:FILE, ...)", Doc: "every job of a trace at its own submission time, applications by the paper's method (seed 1, TunedJobs)", Resolve: replay},
	}
}

// GenerateSource is the generator's source name.
const GenerateSource = "generate"

func readOptions(env Env) traces.ReadOptions {
	var o traces.ReadOptions
	if env.Profiles != nil {
		o.Apps = env.Profiles.Names()
	}
	return o
}

func readCSV(arg string, env Env) (*traces.Workload, []string, error) {
	return traces.ReadFile(arg, readOptions(env))
}

func paper(prefix string) func(string, Env) (*traces.Workload, []string, error) {
	return func(arg string, env Env) (*traces.Workload, []string, error) {
		return traces.ReadPaper(prefix+":"+arg, readOptions(env))
	}
}

// Generate is the generator's description: what a "generate:" reference
// says, key by key.
type Generate struct {
	Jobs        int    // jobs (default 160, the reference's 1.0× load)
	Seed        uint64 // seed (default 1)
	Config      string // config: tuned (default) or realistic
	Philly      string // philly: a reduced Philly table to sample
	Summary     string // summary: a Philly summary file to sample
	Trace       string // trace: any registered trace to sample by the paper's method
	Window      string // window: the trace's window (daily, daily:H1-H2, span:FROM-UNTIL, all)
	All         bool   // all: every job of the table (philly or trace), no sampling
	MaxReplicas int    // max_replicas: cap realistic GPU counts (0: none)
	// Oversize (oversize: cap, skip or refuse; default cap) is what becomes
	// of a trace's jobs larger than the profiles' largest measured
	// placement (see traces.TraceSampleOptions.Oversize).
	Oversize string
	// Deadlines (deadlines, tightness, deadline_min, deadline_max,
	// best_effort) gives the jobs deadlines, by ElasticFlow's rule or a
	// tightness factor over their isolated run times, with the generator's
	// seed (see traces.AssignDeadlines); a zero Rule gives none.
	Deadlines traces.DeadlineOptions
}

// DefaultGenerate is the default generated workload: 160 jobs from the
// embedded Philly summary, seed 1, TunedJobs configurations.
func DefaultGenerate() Generate { return Generate{Jobs: 160, Seed: 1, Config: traces.ConfigTuned} }

// MaxGeneratedJobs bounds a generated workload's jobs.
const MaxGeneratedJobs = 10_000_000

// Ref is the reference of the generator's description g ("generate:..."),
// with the keys that differ from the defaults.
func (g Generate) Ref() string {
	parts := []string{"jobs=" + strconv.Itoa(g.Jobs), "seed=" + strconv.FormatUint(g.Seed, 10), "config=" + g.Config}
	for _, kv := range [][2]string{{"philly", g.Philly}, {"summary", g.Summary}, {"trace", g.Trace}, {"window", g.Window}, {"oversize", g.Oversize}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	if g.All {
		parts = append(parts, "all=true")
	}
	if g.MaxReplicas != 0 {
		parts = append(parts, "max_replicas="+strconv.Itoa(g.MaxReplicas))
	}
	if d := g.Deadlines; d.Rule != "" {
		parts = append(parts, "deadlines="+d.Rule)
		for _, kv := range []struct {
			key string
			v   float64
		}{{"tightness", d.Tightness}, {"deadline_min", d.Min}, {"deadline_max", d.Max}, {"best_effort", d.BestEffort}} {
			if kv.v != 0 {
				parts = append(parts, kv.key+"="+strconv.FormatFloat(kv.v, 'g', -1, 64))
			}
		}
	}
	return GenerateSource + ":" + strings.Join(parts, ",")
}

// Validate checks the description's job count and configurations, in the
// command line's words (the flags --jobs and --config).
func (g Generate) Validate() error {
	if g.Jobs < 1 {
		return fmt.Errorf("--jobs must be at least 1, got %d", g.Jobs)
	}
	if g.Jobs > MaxGeneratedJobs {
		return fmt.Errorf("--jobs must be at most %d, got %d", MaxGeneratedJobs, g.Jobs)
	}
	if g.Config != traces.ConfigTuned && g.Config != traces.ConfigRealistic {
		return fmt.Errorf("--config must be %s or %s, got %q", traces.ConfigTuned, traces.ConfigRealistic, g.Config)
	}
	if err := checkOversize(g.Oversize); err != nil {
		return fmt.Errorf("--oversize %w", err)
	}
	if g.Deadlines.Rule != "" {
		if err := g.Deadlines.Check(); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	return nil
}

// jobsOrSeed reads a generator's "jobs" (a count in [1, most]) or "seed"
// key into jobs or seed.
func jobsOrSeed(k, v string, most int, jobs *int, seed *uint64) error {
	var err error
	if k == "seed" {
		*seed, err = strconv.ParseUint(v, 10, 64)
		return err
	}
	*jobs, err = strconv.Atoi(v)
	if err == nil && (*jobs < 1 || *jobs > most) {
		err = fmt.Errorf("must be in [1, %d]", most)
	}
	return err
}

// checkOversize checks an oversize rule ("" is the default, cap).
func checkOversize(rule string) error {
	switch rule {
	case "", traces.OversizeCap, traces.OversizeSkip, traces.OversizeRefuse:
		return nil
	}
	return fmt.Errorf("must be %s, %s or %s, got %q", traces.OversizeCap, traces.OversizeSkip, traces.OversizeRefuse, rule)
}

// ParseGenerate reads a generator's description (the part after
// "generate:"): comma-separated key=value pairs, every key at most once.
func ParseGenerate(arg string) (Generate, error) {
	g := DefaultGenerate()
	pairs, err := kv.List(arg, true)
	if err != nil {
		return g, fmt.Errorf("generate: %w", err)
	}
	for _, p := range pairs {
		k, v := p.Key, p.Value
		var err error
		switch k {
		case "jobs", "seed":
			err = jobsOrSeed(k, v, MaxGeneratedJobs, &g.Jobs, &g.Seed)
		case "config":
			g.Config = v
			if v != traces.ConfigTuned && v != traces.ConfigRealistic {
				err = fmt.Errorf("must be %s or %s", traces.ConfigTuned, traces.ConfigRealistic)
			}
		case "philly":
			g.Philly = v
		case "summary":
			g.Summary = v
		case "trace":
			g.Trace = v
		case "window":
			g.Window = v
		case "oversize":
			g.Oversize = v
			err = checkOversize(v)
		case "all":
			g.All, err = strconv.ParseBool(v)
		case "max_replicas":
			g.MaxReplicas, err = strconv.Atoi(v)
			if err == nil && g.MaxReplicas < 0 {
				err = fmt.Errorf("must not be negative (0: no cap)")
			}
		case "deadlines":
			g.Deadlines.Rule = v
		case "tightness", "deadline_min", "deadline_max", "best_effort":
			dst := &g.Deadlines.Tightness
			switch k {
			case "deadline_min":
				dst = &g.Deadlines.Min
			case "deadline_max":
				dst = &g.Deadlines.Max
			case "best_effort":
				dst = &g.Deadlines.BestEffort
			}
			*dst, err = strconv.ParseFloat(v, 64)
		default:
			return g, fmt.Errorf("generate: unknown key %q (known: jobs, seed, config, philly, summary, trace, window, oversize, all, max_replicas, deadlines, tightness, deadline_min, deadline_max, best_effort)", k)
		}
		if err != nil {
			return g, fmt.Errorf("generate: %s=%s: %w", k, v, err)
		}
	}
	n := 0
	for _, s := range []string{g.Philly, g.Summary, g.Trace} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return g, fmt.Errorf("generate: give one of philly, summary and trace")
	case g.All && g.Philly == "" && g.Trace == "":
		return g, fmt.Errorf("generate: all=true needs philly=FILE or trace=NAME: it replays every job of a table")
	case g.Window != "" && g.Trace == "":
		return g, fmt.Errorf("generate: window needs trace=NAME")
	case g.Oversize != "" && g.Trace == "":
		return g, fmt.Errorf("generate: oversize needs trace=NAME")
	case g.Deadlines.Rule == "" && g.Deadlines != (traces.DeadlineOptions{}):
		return g, fmt.Errorf("generate: tightness, deadline_min, deadline_max and best_effort need deadlines=%s or %s", traces.DeadlineElasticFlow, traces.DeadlineTightness)
	case g.Deadlines.Rule != "":
		if err := g.Deadlines.Check(); err != nil {
			return g, fmt.Errorf("generate: %w", err)
		}
	}
	return g, nil
}

func generate(arg string, env Env) (*traces.Workload, []string, error) {
	g, err := ParseGenerate(arg)
	if err != nil {
		return nil, nil, err
	}
	return g.Make(env)
}

// Make makes the generator's workload for env, with the warnings reading
// its table gave (and, for a trace, the count of its jobs larger than the
// profiles' largest measured placement).
func (g Generate) Make(env Env) (*traces.Workload, []string, error) {
	if env.Profiles == nil {
		return nil, nil, fmt.Errorf("generate: no profiles to take the applications' configurations from")
	}
	if env.Profiles.Source == profiles.LLMSource {
		// The paper's generator makes the six 2019 applications.
		return nil, nil, fmt.Errorf("generate: the llm profile set has none of the applications the paper's generator makes; " +
			"give --workload llm:jobs=N,seed=S (generated LLM jobs), acme:FILE (an Acme trace, replayed as LLM jobs) or a workload CSV of its applications (polluxsim profiles list --profiles llm)")
	}
	if g.Trace != "" {
		t, err := env.ReadTrace(g.Trace)
		if err != nil {
			return nil, nil, err
		}
		return g.MakeFromTrace(t, env)
	}
	var warnings []string
	var src traces.Source
	switch {
	case g.Philly != "":
		t, w, err := traces.ReadPhilly(g.Philly)
		if err != nil {
			return nil, nil, err
		}
		warnings, src = w, t
	case g.Summary != "":
		s, err := traces.ReadSummary(g.Summary)
		if err != nil {
			return nil, nil, err
		}
		src = s
	default:
		s, err := traces.DefaultSummary()
		if err != nil {
			return nil, nil, err
		}
		src = s
	}
	w, err := g.MakeFrom(src, env)
	return w, warnings, err
}

// MakeFromTrace makes the generator's workload from the trace table t,
// already read (a sweep reads each trace once for all its workloads); g's
// trace key is not read. The jobs larger than the profiles' largest
// measured placement are capped, skipped or refused as g.Oversize says;
// the warnings count them.
func (g Generate) MakeFromTrace(t *traces.TraceTable, env Env) (*traces.Workload, []string, error) {
	opts, err := traceOptions(env, g.Oversize)
	if err != nil {
		return nil, nil, fmt.Errorf("generate: %w", err)
	}
	opts.Jobs, opts.Seed, opts.Config, opts.All = g.Jobs, g.Seed, g.Config, g.All
	if g.Window != "" {
		if err := opts.SetWindow(g.Window); err != nil {
			return nil, nil, fmt.Errorf("generate: window=%s: %w", g.Window, err)
		}
	}
	w, warnings, err := sampleTrace(t, opts)
	if err != nil {
		return nil, nil, err
	}
	return w, warnings, g.assignDeadlines(w, env)
}

// assignDeadlines gives w's jobs the deadlines g asks for (none when
// g.Deadlines.Rule is empty) over their isolated run times on env's
// profiles and nodes, with the generator's seed.
func (g Generate) assignDeadlines(w *traces.Workload, env Env) error {
	if g.Deadlines.Rule == "" {
		return nil
	}
	opts := g.Deadlines
	opts.Seed = g.Seed
	gpn := env.GPUsPerNode
	if gpn < 1 {
		gpn = 4
	}
	if err := traces.AssignDeadlines(w, opts, func(j *traces.Job) float64 {
		app, ok := env.Profiles.Apps[j.App]
		if !ok {
			return 0
		}
		return sim.IsolatedRunTime(app, *j, gpn)
	}); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	w.Source += ", deadlines " + opts.Rule
	return nil
}

// traceOptions are the sampling options every trace workload shares: the
// applications of env's profiles and, as the size limit, their largest
// measured placement, with oversize ("" for cap) for larger jobs.
func traceOptions(env Env, oversize string) (traces.TraceSampleOptions, error) {
	if env.Profiles == nil {
		return traces.TraceSampleOptions{}, fmt.Errorf("no profiles to take the applications' configurations from")
	}
	if err := checkOversize(oversize); err != nil {
		return traces.TraceSampleOptions{}, fmt.Errorf("oversize %w", err)
	}
	gpn := env.GPUsPerNode
	if gpn < 1 {
		gpn = 4
	}
	return traces.TraceSampleOptions{
		Apps:     runspec.AppConfigs(env.Profiles, gpn),
		MaxGPUs:  env.Profiles.LargestMeasuredGPUs(),
		Oversize: oversize,
	}, nil
}

// sampleTrace samples t with opts; the warnings count the trace's jobs
// larger than opts.MaxGPUs and say what became of them.
func sampleTrace(t *traces.TraceTable, opts traces.TraceSampleOptions) (*traces.Workload, []string, error) {
	w, rep, err := traces.SampleTrace(t, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	if rep.Oversize == 0 {
		return w, nil, nil
	}
	what := fmt.Sprintf("%d of the workload's jobs capped to %d GPUs (oversize=cap; tuned configurations are the profiles' own)", rep.Capped, opts.MaxGPUs)
	if opts.Oversize == traces.OversizeSkip {
		what = "left out of the jobs sampled (oversize=skip)"
	}
	return w, []string{fmt.Sprintf("%s: %d jobs ask for more than %d GPUs, the largest placement the profiles measured: %s",
		t.Name, rep.Oversize, opts.MaxGPUs, what)}, nil
}

// MakeFrom makes the generator's workload from src, a Philly table or
// summary already read (a sweep reads its table once for all its
// workloads); g's philly, summary and trace keys are not read.
func (g Generate) MakeFrom(src traces.Source, env Env) (*traces.Workload, error) {
	gpn := env.GPUsPerNode
	if gpn < 1 {
		gpn = 4
	}
	gopt := traces.GenerateOptions{Jobs: g.Jobs, Seed: g.Seed, Config: g.Config, Apps: runspec.AppConfigs(env.Profiles, gpn), MaxReplicas: g.MaxReplicas}
	if g.All {
		t, ok := src.(*traces.PhillyTable)
		if !ok {
			return nil, fmt.Errorf("generate: all=true replays a Philly table, not a summary")
		}
		w, err := traces.GenerateAll(t, gopt)
		if err != nil {
			return nil, err
		}
		return w, g.assignDeadlines(w, env)
	}
	w, err := traces.Generate(src, gopt)
	if err != nil {
		return nil, err
	}
	return w, g.assignDeadlines(w, env)
}

// replay is a trace replayed whole: every job of the trace (KeepAllFilter:
// no duration or GPU-time filter), at its own submission time, seed 1,
// TunedJobs configurations, applications by the paper's method with the
// trace's own GPU-time classes; jobs larger than the profiles' largest
// measured placement are counted in a warning (tuned pairs fit). generate:trace=NAME,all=true,... samples
// the filtered jobs instead, with other seeds and configurations.
func replay(ref string, env Env) (*traces.Workload, []string, error) {
	if env.Profiles != nil && env.Profiles.Source == profiles.LLMSource {
		t, err := env.ReadTrace(ref)
		if err != nil {
			return nil, nil, err
		}
		return llmReplay(t, env.Profiles)
	}
	opts, err := traceOptions(env, "")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ref, err)
	}
	opts.All, opts.Filter, opts.Seed, opts.Config = true, traces.KeepAllFilter(), 1, traces.ConfigTuned
	t, err := env.ReadTrace(ref)
	if err != nil {
		return nil, nil, err
	}
	return sampleTrace(t, opts)
}
