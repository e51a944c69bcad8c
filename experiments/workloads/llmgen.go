package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/polluxsim/polluxsim/internal/kv"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// LLMGenSource is the LLM workload generator's source name.
const LLMGenSource = "llm"

// LLMGen describes a generated LLM workload, "llm:jobs=N,seed=S,hours=H"
// (docs/llm.md, "The LLM workload generator"): Jobs jobs of the llm
// profile set's kinds in the shares of LLMMix, arriving as a Poisson
// process over about Hours hours, drawn from Seed.
type LLMGen struct {
	Jobs  int     // jobs (default 200)
	Seed  uint64  // seed (default 1)
	Hours float64 // hours: the arrival window's expected length (default 8)
}

// DefaultLLMGen is the default LLM workload: 200 jobs over 8 hours, seed 1.
func DefaultLLMGen() LLMGen { return LLMGen{Jobs: 200, Seed: 1, Hours: 8} }

// Bounds of the generator's parameters.
const (
	maxLLMGenJobs  = 1_000_000
	maxLLMGenHours = 24 * 366
)

// LLMClass is one kind of job the generator makes: a model size of the
// llm profile set, a kind (profiles.LLMPretrain, ...) and the GPUs it asks
// for.
type LLMClass struct {
	Size, Kind string
	GPUs       int
}

// LLMKindShare is a job kind's share of a generated workload's jobs and
// the classes its jobs are drawn from, each equally likely.
type LLMKindShare struct {
	Kind    string
	Share   float64
	Classes []LLMClass
}

// LLMMix is the generator's mix (docs/llm.md gives its sources and its
// assumptions): the share of jobs of each kind, summing to 1 (evaluation
// and SFT from Acme's Seren job counts, AcmeTrace
// figure/treemap_job_dist.pdf (a), over the jobs of an LLM kind; debug
// and pre-training split the rest, an assumption), and the
// model sizes and GPU counts of each kind. Every class fits in memory on
// every GPU type of the llm profile set at its GPU count.
func LLMMix() []LLMKindShare {
	c := func(kind, size string, gpus int) LLMClass { return LLMClass{Size: size, Kind: kind, GPUs: gpus} }
	ev, db, ft, pt := profiles.LLMEval, profiles.LLMDebug, profiles.LLMSFT, profiles.LLMPretrain
	return []LLMKindShare{
		{Kind: ev, Share: 0.76, Classes: []LLMClass{c(ev, "1b", 1), c(ev, "1b", 8), c(ev, "7b", 8), c(ev, "13b", 8), c(ev, "70b", 32)}},
		{Kind: db, Share: 0.04, Classes: []LLMClass{c(db, "1b", 8), c(db, "7b", 8), c(db, "7b", 32), c(db, "13b", 32)}},
		{Kind: ft, Share: 0.175, Classes: []LLMClass{c(ft, "1b", 8), c(ft, "7b", 8), c(ft, "7b", 32), c(ft, "13b", 32), c(ft, "30b", 64), c(ft, "70b", 64)}},
		{Kind: pt, Share: 0.025, Classes: []LLMClass{c(pt, "1b", 32), c(pt, "1b", 64), c(pt, "1b", 128)}},
	}
}

// ParseLLMGen reads an LLM workload's description (the part after
// "llm:"): comma-separated key=value pairs (jobs, seed, hours), each at
// most once; an empty description is the default. Errors name the key.
func ParseLLMGen(arg string) (LLMGen, error) {
	g := DefaultLLMGen()
	if arg == "" {
		return g, nil
	}
	pairs, err := kv.List(arg, true)
	if err != nil {
		return g, fmt.Errorf("llm: %w", err)
	}
	for _, p := range pairs {
		k, v := p.Key, p.Value
		var err error
		switch k {
		case "jobs", "seed":
			err = jobsOrSeed(k, v, maxLLMGenJobs, &g.Jobs, &g.Seed)
		case "hours":
			g.Hours, err = strconv.ParseFloat(v, 64)
			if err == nil && !(g.Hours > 0 && g.Hours <= maxLLMGenHours) {
				err = fmt.Errorf("must be in (0, %d]", maxLLMGenHours)
			}
		default:
			return g, fmt.Errorf("llm: unknown key %q (known: jobs, seed, hours)", k)
		}
		if err != nil {
			return g, fmt.Errorf("llm: %s=%s: %w", k, v, err)
		}
	}
	return g, nil
}

// Ref is the reference of the description g ("llm:jobs=...,seed=...,hours=...").
func (g LLMGen) Ref() string {
	return fmt.Sprintf("%s:jobs=%d,seed=%d,hours=%s", LLMGenSource, g.Jobs, g.Seed, strconv.FormatFloat(g.Hours, 'g', -1, 64))
}

// Random streams of the generator (one per draw, so that adding a draw
// never moves the others).
const (
	llmStreamArrivals = 1
	llmStreamClasses  = 2
)

// Make makes g's workload of set's applications (the llm profile set):
// arrivals from the seed's first stream (exponential gaps of mean
// Hours/Jobs hours, the first job at 0), each job's kind by LLMMix's
// shares and its class uniformly within the kind from the second, its
// batch by the kind as the Acme replay's (llmBatch).
func (g LLMGen) Make(set *profiles.Set) (*traces.Workload, error) {
	if set == nil || set.Source != profiles.LLMSource {
		return nil, fmt.Errorf("llm: the LLM workload is of the llm profile set's applications; give --profiles llm")
	}
	mix := LLMMix()
	arrive := rand.New(rand.NewPCG(g.Seed, llmStreamArrivals))
	pick := rand.New(rand.NewPCG(g.Seed, llmStreamClasses))
	mean := g.Hours * 3600 / float64(g.Jobs)
	w := &traces.Workload{Source: g.Ref()}
	t := 0.0
	for i := range g.Jobs {
		if i > 0 {
			t += arrive.ExpFloat64() * mean
		}
		cls := pickClass(mix, pick)
		app, err := set.App(profiles.LLMAppName(cls.Size, cls.Kind))
		if err != nil {
			return nil, fmt.Errorf("llm: %w", err)
		}
		w.Jobs = append(w.Jobs, traces.Job{
			Name: app.Name + "-" + strconv.Itoa(i), Time: math.Round(t),
			App: app.Name, Replicas: cls.GPUs, Batch: llmBatch(app, cls.Kind, cls.GPUs),
		})
	}
	return w, nil
}

// pickClass draws a kind by its share, then one of its classes uniformly.
func pickClass(mix []LLMKindShare, rng *rand.Rand) LLMClass {
	u := rng.Float64()
	k := mix[len(mix)-1]
	acc := 0.0
	for _, m := range mix {
		acc += m.Share
		if u < acc {
			k = m
			break
		}
	}
	return k.Classes[rng.IntN(len(k.Classes))]
}

func llmGen(arg string, env Env) (*traces.Workload, []string, error) {
	g, err := ParseLLMGen(arg)
	if err != nil {
		return nil, nil, err
	}
	w, err := g.Make(env.Profiles)
	return w, nil, err
}
