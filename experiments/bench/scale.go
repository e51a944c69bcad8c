package bench

import (
	"fmt"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// ScaleSize is one point of the scaling benchmark: a cluster of Nodes
// nodes and a generated workload of Jobs jobs.
type ScaleSize struct {
	Nodes int `json:"nodes"`
	Jobs  int `json:"jobs"`
	// Policy, when set, replaces the options' policy (with its defaults).
	Policy string `json:"policy,omitempty"`
	// Workload, when set, is simulated instead of a generated one (Jobs
	// is then its job count); WorkloadName names it.
	Workload     *traces.Workload `json:"-"`
	WorkloadName string           `json:"workload,omitempty"`
}

// ActiveBucket is the policy's round latency over rounds with a range of
// active jobs.
type ActiveBucket struct {
	MinActive int     `json:"min_active"`
	MaxActive int     `json:"max_active"`
	Rounds    int     `json:"rounds"`
	P50       float64 `json:"round_p50_s"`
	P99       float64 `json:"round_p99_s"`
}

// ScaleResult is what the scaling benchmark measured at one size.
type ScaleResult struct {
	ScaleSize
	GPUs        int     `json:"gpus"`
	MaxActive   int     `json:"max_active_jobs"`
	MaxPending  int     `json:"max_pending_jobs"`
	MaxRunning  int     `json:"max_running_jobs"`
	Rounds      int     `json:"rounds"`
	RoundP50    float64 `json:"policy_round_p50_s"`
	RoundP99    float64 `json:"policy_round_p99_s"`
	PolicyTotal float64 `json:"policy_total_s"`
	Wall        float64 `json:"wall_s"`
	// CPU is the process's CPU time (user + system) during the run: the
	// wall time an otherwise idle machine would need, or less with
	// parallel search workers.
	CPU       float64        `json:"cpu_s"`
	PeakRSSMB float64        `json:"peak_rss_mb"`
	HeapMB    float64        `json:"peak_heap_mb"`
	AvgJCT    float64        `json:"avg_jct_s"`
	AgentFits int            `json:"agent_fits"`
	ByActive  []ActiveBucket `json:"by_active_jobs"`
	// Quality compares, on sampled rounds, the fitness of the run's search
	// with a search of ten times the generations (no work cap) on the
	// same round: mean and minimum of ours / longer.
	QualityRounds   int     `json:"quality_rounds,omitempty"`
	QualityMean     float64 `json:"quality_mean_ratio,omitempty"`
	QualityMin      float64 `json:"quality_min_ratio,omitempty"`
	QualityLongSecs float64 `json:"quality_long_round_s,omitempty"`
}

// ScaleOptions configure RunScale.
type ScaleOptions struct {
	// Ext are the policies the sizes name (the binary's extensions).
	Ext     runspec.Registries
	Spec    runspec.RunSpec // policy settings; Nodes and the workload vary per size
	Seed    uint64          // workload seed
	Quality int             // compare with a 10× longer search every Quality-th round (0: no)
	// Progress, if set, is told about each size as it starts.
	Progress func(s ScaleSize)
	// Observer, if set, is the engine's observer during each run (see
	// sim.Config.Observer), e.g. for a progress bar.
	Observer func(now float64, finished, total int)
	// Done, if set, is told when each size's run has ended.
	Done func()
	// Result, if set, receives each size's result as soon as it is
	// measured.
	Result func(r ScaleResult)
}

// RunScale runs one simulation per size, on a workload of the size's job
// count generated from the embedded Philly summary (load = jobs/160 over
// nodes/16 of the reference cluster), and measures the policy's round
// latency by number of active jobs, memory and wall time.
func RunScale(set *profiles.Set, sizes []ScaleSize, opt ScaleOptions) ([]ScaleResult, error) {
	var out []ScaleResult
	for _, sz := range sizes {
		if opt.Progress != nil {
			opt.Progress(sz)
		}
		spec := opt.Spec
		if sz.Policy != "" && sz.Policy != spec.Policy {
			perNode := spec.GPUsPerNode
			spec = runspec.DefaultSpec(sz.Policy)
			spec.GPUsPerNode, spec.Seed = perNode, opt.Spec.Seed
		}
		spec.Nodes = sz.Nodes
		spec.Rounds = "none" // round statistics suffice; memory follows the active jobs
		spec, err := spec.WithOptions(opt.Ext)
		if err != nil {
			return nil, err
		}
		if err := spec.Validate(opt.Ext); err != nil {
			return nil, err
		}
		w := sz.Workload
		if w == nil {
			var err error
			if w, err = runspec.GenerateWorkload(nil, set, sz.Jobs, opt.Seed, "tuned", spec.GPUsPerNode); err != nil {
				return nil, err
			}
		}
		sz.Jobs, sz.Policy = len(w.Jobs), spec.Policy
		runtime.GC()
		pol, err := runspec.NewPolicy(opt.Ext, spec)
		if err != nil {
			return nil, err
		}
		cfg := spec.SimConfig()
		if err := sim.CheckFeasible(cfg, set, w, pol); err != nil {
			return nil, fmt.Errorf("%d nodes, %d jobs: %w", sz.Nodes, sz.Jobs, err)
		}
		cfg.Observer = opt.Observer
		cpu0 := cpuSeconds()
		start := time.Now()
		res, err := sim.Run(cfg, set, w, pol)
		if opt.Done != nil {
			opt.Done()
		}
		if err != nil {
			return nil, fmt.Errorf("%d nodes, %d jobs: %w", sz.Nodes, sz.Jobs, err)
		}
		wall := time.Since(start).Seconds()
		cpu := cpuSeconds() - cpu0
		// Search quality in a second run, so that the shadow searches do
		// not count in the latency figures.
		var rq []RoundQuality
		if opt.Quality > 0 {
			if rq, err = longSearchQuality(opt.Ext, spec, set, w, opt.Quality); err != nil {
				return nil, fmt.Errorf("%d nodes, %d jobs: %w", sz.Nodes, sz.Jobs, err)
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		r := ScaleResult{
			ScaleSize: sz, GPUs: sz.Nodes * spec.GPUsPerNode,
			Rounds: res.Summary.Rounds, RoundP50: res.Summary.PolicyRoundP50, RoundP99: res.Summary.PolicyRoundP99,
			PolicyTotal: res.Summary.PolicyRoundTotal, Wall: wall, CPU: cpu,
			PeakRSSMB: outputs.PeakRSSMB(), HeapMB: float64(ms.HeapSys) / (1 << 20),
			AvgJCT: res.Summary.AvgJCT, AgentFits: res.Summary.AgentFits,
		}
		for _, rs := range res.RoundStats {
			r.MaxActive = max(r.MaxActive, rs.Active)
			r.MaxPending = max(r.MaxPending, rs.Active-rs.Running)
			r.MaxRunning = max(r.MaxRunning, rs.Running)
		}
		r.ByActive = bucketByActive(res.RoundStats)
		if len(rq) > 0 {
			r.QualityMin = 1
			for _, q := range rq {
				ratio := q.Fitness[0] / q.Fitness[1]
				r.QualityMean += ratio
				r.QualityMin = min(r.QualityMin, ratio)
				r.QualityLongSecs += q.Seconds[1]
			}
			r.QualityRounds = len(rq)
			r.QualityMean /= float64(len(rq))
			r.QualityLongSecs /= float64(len(rq))
		}
		if opt.Result != nil {
			opt.Result(r)
		}
		out = append(out, r)
	}
	return out, nil
}

// cpuSeconds is the process's CPU time so far (0 where unknown).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// bucketByActive groups rounds by active jobs in power-of-two ranges.
func bucketByActive(stats []sim.RoundStat) []ActiveBucket {
	groups := map[int][]float64{}
	for _, rs := range stats {
		b := 0
		for 1<<(b+1) <= rs.Active {
			b++
		}
		groups[b] = append(groups[b], rs.PolicySeconds)
	}
	var keys []int
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var out []ActiveBucket
	for _, k := range keys {
		g := groups[k]
		out = append(out, ActiveBucket{MinActive: 1 << k, MaxActive: 1<<(k+1) - 1, Rounds: len(g),
			P50: sim.Percentile(g, 50), P99: sim.Percentile(g, 99)})
	}
	return out
}

// longSearchQuality compares the spec's search with one of ten times its
// generations, without early stop or work cap, every sample-th round. A
// policy without a generations option, or that does not report its
// fitness, is not compared (nil, nil).
func longSearchQuality(reg runspec.Registries, spec runspec.RunSpec, set *profiles.Set, w *traces.Workload, sample int) ([]RoundQuality, error) {
	gens, ok := spec.Options.Value("generations")
	g, isNum := gens.(float64)
	if !ok || !isNum {
		return nil, nil
	}
	if p, err := runspec.NewPolicy(reg, spec); err != nil {
		return nil, err
	} else if r, ok := p.(policies.StatsReporter); !ok || !r.PolicyStats().HasFitness {
		return nil, nil
	}
	long := SearchSetting{Name: "long", Generations: 10 * int(g), NoCap: true}
	if v, ok := spec.Options.Value("population"); ok {
		if x, ok := v.(float64); ok {
			long.Population = int(x)
		}
	}
	if v, ok := spec.Options.Value("local_search"); ok {
		long.LocalSearch, _ = v.(bool)
	}
	rq, _, err := SearchQuality(reg, spec, set, w, []SearchSetting{long}, sample)
	return rq, err
}
