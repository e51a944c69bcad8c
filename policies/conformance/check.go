package conformance

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/polluxsim/polluxsim/policies"
)

// Rule names one part of the policy contract the suite checks.
type Rule string

// The rules.
const (
	RuleShape       Rule = "shape"       // one allocation per job, each nil or one entry per node, none negative
	RuleCapacity    Rule = "capacity"    // no node over its GPUs
	RuleUserGPUs    Rule = "user-gpus"   // exactly the requested GPUs, under Traits.UserGPUs
	RuleCap         Rule = "cap"         // within policies.GPUCap, otherwise
	RuleOneType     Rule = "one-type"    // GPUs of one type the job may use (Job.Types)
	RuleDeterminism Rule = "determinism" // same options and seed, same decisions
	RuleMutation    Rule = "mutation"    // Schedule leaves its input alone
	RulePanic       Rule = "panic"       // Schedule returns
	RuleTraits      Rule = "traits"      // Traits do not change
	RuleBuild       Rule = "build"       // the factory builds the policy
	RuleIncremental Rule = "incremental" // ScheduleIncremental makes Schedule's decisions (policies.Incremental)
	RuleFault       Rule = "fault"       // no fault reported (policies.Fallible)
)

// Violation is one broken rule, found in one round of one scenario.
type Violation struct {
	Policy   string
	Scenario string
	Round    int     // −1 when not tied to a round
	Time     float64 // the round's time
	Rule     Rule
	Detail   string
}

func (v *Violation) Error() string {
	where := ""
	if v.Round >= 0 {
		where = fmt.Sprintf(", round %d (t=%v)", v.Round, v.Time)
	}
	return fmt.Sprintf("policy %s, scenario %s%s: %s: %s", v.Policy, v.Scenario, where, v.Rule, v.Detail)
}

// Factory builds a new instance of the policy under test for a run's
// environment. Instances built for the same Seed must decide alike,
// whatever their Workers.
type Factory func(env policies.Env) (policies.Policy, error)

// Seed is the seed of the instances the suite builds.
const Seed = 42

// Check plays scenario sc against two instances from newPolicy, built with
// the same seed and 1 and 2 workers, and returns every violation found:
// those of each instance's rounds (a run stops after its first round with
// a violation, whose state would not be meaningful input) and the first
// round at which the two instances decide differently.
func Check(sc Scenario, newPolicy Factory) []*Violation {
	var out []*Violation
	var runs [2][]record
	seen := map[string]bool{}
	for k := range runs {
		env := policies.Env{Seed: Seed, RestartDelay: 30, Workers: k + 1}
		p, err := newPolicy(env)
		if err != nil || p == nil {
			return []*Violation{{Policy: "?", Scenario: sc.Name, Round: -1, Rule: RuleBuild, Detail: fmt.Sprint("cannot build the policy: ", err)}}
		}
		recs, vs := play(sc, p)
		_ = policies.Close(p)
		runs[k] = recs
		for _, v := range vs {
			if s := v.Error(); !seen[s] {
				seen[s] = true
				out = append(out, v)
			}
		}
	}
	if v := compare(sc, runs[0], runs[1]); v != nil {
		out = append(out, v)
	}
	if p, err := newPolicy(policies.Env{Seed: Seed, RestartDelay: 30, Workers: 1}); err == nil {
		if inc, ok := p.(policies.Incremental); ok {
			if v := checkIncremental(sc, inc, runs[0]); v != nil {
				out = append(out, v)
			}
		}
		_ = policies.Close(p)
	}
	return out
}

// record is one round's decision as a run saw it.
type record struct {
	policy string
	time   float64
	names  []string
	alloc  [][]int
}

// compare returns the first round where two runs of a scenario decided
// differently, or nil.
func compare(sc Scenario, a, b []record) *Violation {
	for r := 0; r < len(a) && r < len(b); r++ {
		ra, rb := a[r], b[r]
		if !slices.Equal(ra.names, rb.names) || len(ra.alloc) != len(rb.alloc) {
			return &Violation{Policy: ra.policy, Scenario: sc.Name, Round: r, Time: ra.time, Rule: RuleDeterminism,
				Detail: "two instances saw different jobs after deciding alike until now (internal error)"}
		}
		for i := range ra.alloc {
			if !policies.Equal(ra.alloc[i], rb.alloc[i]) {
				return &Violation{Policy: ra.policy, Scenario: sc.Name, Round: r, Time: ra.time, Rule: RuleDeterminism,
					Detail: fmt.Sprintf("two instances with the same options and seed gave job %s %v and %v", ra.names[i], ra.alloc[i], rb.alloc[i])}
			}
		}
	}
	return nil
}

// jobState is the suite's view of one job as rounds pass, kept as the
// simulator keeps it.
type jobState struct {
	spec     *JobSpec
	submit   float64
	alloc    []int
	restarts int // re-allocations; −1 before the first start
	attained float64
	maxSeen  int
	done     float64 // steps done at the requested batch
	ran      bool
}

// play runs the scenario's rounds against p, feeding each decision back,
// and returns the decisions and the violations found.
func play(sc Scenario, p policies.Policy) (recs []record, vs []*Violation) {
	name := p.Name()
	traits := p.Traits()
	states := newStates(sc)
	for r := 0; r < sc.Rounds; r++ {
		now := float64(r+1) * sc.Interval
		fail := func(rule Rule, format string, args ...any) {
			vs = append(vs, &Violation{Policy: name, Scenario: sc.Name, Round: r, Time: now, Rule: rule, Detail: fmt.Sprintf(format, args...)})
		}
		var active []*jobState
		for _, st := range states {
			if st.spec.Arrive <= r && (st.spec.Finish == 0 || r < st.spec.Finish) {
				active = append(active, st)
			}
		}
		up, cluster := sc.up(r)
		jobs := make([]policies.Job, len(active))
		for i, st := range active {
			st.fail(sc.Down[r])
			jobs[i] = st.view(now, traits.NeedsOracle)
			jobs[i].Alloc = project(jobs[i].Alloc, up)
		}
		before := deepCopy(jobs)
		dec, panicked := schedule(p, now, cluster, jobs)
		if panicked != nil {
			fail(RulePanic, "Schedule panicked with %d jobs: %v", len(jobs), panicked)
			return recs, vs
		}
		if err := fault(p); err != nil {
			fail(RuleFault, "%v", err)
			return recs, vs
		}
		rec := record{policy: name, time: now, alloc: make([][]int, len(dec.Alloc))}
		for i, a := range dec.Alloc {
			rec.alloc[i] = slices.Clone(a)
		}
		for _, st := range active {
			rec.names = append(rec.names, st.spec.Name)
		}
		recs = append(recs, rec)
		if d := diff(before, jobs); d != "" {
			fail(RuleMutation, "Schedule modified its input: %s", d)
		}
		if t := p.Traits(); t != traits {
			fail(RuleTraits, "Traits changed from %+v to %+v", traits, t)
		}
		checkDecision(cluster, traits, before, rec.alloc, fail)
		if len(vs) > 0 {
			return recs, vs
		}
		for i, st := range active {
			st.apply(lift(rec.alloc[i], up, sc.Cluster.Nodes), sc.Interval)
		}
	}
	return recs, vs
}

// newStates is the scenario's jobs before its first round.
func newStates(sc Scenario) []*jobState {
	states := make([]*jobState, len(sc.Jobs))
	for i := range sc.Jobs {
		s := &sc.Jobs[i]
		st := &jobState{spec: s, submit: float64(s.Arrive)*sc.Interval + float64(i+1), restarts: -1}
		if s.Alloc != nil {
			st.alloc = slices.Clone(s.Alloc)
			st.restarts, st.ran, st.maxSeen = 0, true, policies.Sum(s.Alloc)
		}
		states[i] = st
	}
	return states
}

// schedule calls p.Schedule, turning a panic into a value.
func schedule(p policies.Policy, now float64, c policies.Cluster, jobs []policies.Job) (dec policies.Decision, panicked any) {
	defer func() { panicked = recover() }()
	return p.Schedule(now, c, jobs), nil
}

// fault is the fault a policy whose rounds can fail reports, or nil.
func fault(p policies.Policy) error {
	if f, ok := p.(policies.Fallible); ok {
		return f.Err()
	}
	return nil
}

// checkDecision checks one round's decision for jobs against the cluster
// and the policy's traits, calling fail for each broken rule.
func checkDecision(c policies.Cluster, t policies.Traits, jobs []policies.Job, alloc [][]int, fail func(Rule, string, ...any)) {
	if len(alloc) != len(jobs) {
		fail(RuleShape, "%d allocations for %d jobs", len(alloc), len(jobs))
		return
	}
	used := make([]int, c.Nodes)
	shapeOK := true
	for i, a := range alloc {
		j := &jobs[i]
		if a == nil {
			continue
		}
		if len(a) != c.Nodes {
			fail(RuleShape, "job %s: allocation %v over %d nodes, the cluster has %d", j.Name, a, len(a), c.Nodes)
			shapeOK = false
			continue
		}
		negative := false
		for n, v := range a {
			if v < 0 {
				fail(RuleShape, "job %s: %d GPUs on node %d", j.Name, v, n)
				negative = true
			}
			used[n] += v
		}
		if negative {
			shapeOK = false
			continue
		}
		k := policies.Sum(a)
		if k > 0 && len(c.Pools) > 0 {
			if typ := c.AllocType(a); typ == "" {
				fail(RuleOneType, "job %s: allocation %v spans GPU types", j.Name, a)
			} else if !j.Offers(typ) {
				fail(RuleOneType, "job %s: GPUs of type %s, it may use only %v", j.Name, typ, j.Types)
			}
		}
		if t.UserGPUs {
			if k != 0 && k != j.Request.GPUs {
				fail(RuleUserGPUs, "job %s: %d GPUs, it asked for exactly %d", j.Name, k, j.Request.GPUs)
			}
		} else if limit := policies.GPUCap(j, t); limit > 0 && k > limit {
			fail(RuleCap, "job %s: %d GPUs, its cap is %d (application cap %d, batch limits %+v, requested batch %d)",
				j.Name, k, limit, j.MaxGPUs, j.Limits, j.Request.Batch)
		}
	}
	if !shapeOK {
		return
	}
	for n, u := range used {
		if u > c.NodeGPUs(n) {
			fail(RuleCapacity, "node %d holds %d GPUs, it has %d", n, u, c.NodeGPUs(n))
		}
	}
}

// view is the job as a policy sees it at time now.
func (st *jobState) view(now float64, oracle bool) policies.Job {
	s, app := st.spec, st.spec.App
	j := policies.Job{
		Name: s.Name, App: app.Name, Submit: st.submit, Age: now - st.submit,
		Restarts: max(st.restarts, 0), Attained: st.attained, Alloc: slices.Clone(st.alloc),
		Request: policies.Request{GPUs: s.GPUs, Batch: s.Batch},
		Limits:  app.Limits, FixedBatch: app.FixedBatch, MaxGPUs: app.MaxGPUs, MaxSeenGPUs: st.maxSeen,
		Grad: app.Grad,
	}
	if st.ran {
		p := app.Params
		j.Params = &p
	}
	if len(s.Types) > 0 {
		j.Types = slices.Clone(s.Types)
		j.TypeModels = map[string]policies.TypeModel{}
		for _, t := range s.Types {
			p := app.Params
			p.AlphaC /= typeSpeed(t)
			p.BetaC /= typeSpeed(t)
			j.TypeModels[t] = policies.TypeModel{Params: p, Limits: app.Limits}
		}
	}
	left := max(app.Iterations-st.done, 1)
	if app.Epochs > 0 {
		j.Epoch = min(int(st.done/(app.Iterations/float64(app.Epochs))), app.Epochs-1)
	}
	if oracle {
		j.Oracle = Oracle{Remaining: left, Batch: s.Batch, Step: app.Step}
	}
	return j
}

// fail takes the job's GPUs if it holds any on a node that is down.
func (st *jobState) fail(down []int) {
	for _, n := range down {
		if n < len(st.alloc) && st.alloc[n] > 0 {
			st.alloc = nil
			return
		}
	}
}

// apply makes a decision the job's allocation for the next interval and
// accounts the service and progress it brings, as the simulator would.
func (st *jobState) apply(alloc []int, interval float64) {
	if policies.Sum(alloc) == 0 {
		alloc = nil
	}
	if !policies.Equal(alloc, st.alloc) {
		st.alloc = slices.Clone(alloc)
		if alloc != nil {
			st.restarts++
		}
	}
	k := policies.Sum(st.alloc)
	if k == 0 {
		return
	}
	st.ran = true
	st.maxSeen = max(st.maxSeen, k)
	st.attained += float64(k) * interval
	step, _ := st.spec.App.Step.Time(st.alloc, float64(st.spec.Batch)/float64(k))
	st.done += interval / step
}

// deepCopy copies jobs with their allocations and fitted parameters.
func deepCopy(jobs []policies.Job) []policies.Job {
	out := slices.Clone(jobs)
	for i := range out {
		out[i].Alloc = slices.Clone(jobs[i].Alloc)
		if jobs[i].Params != nil {
			p := *jobs[i].Params
			out[i].Params = &p
		}
		out[i].Types = slices.Clone(jobs[i].Types)
		if jobs[i].TypeModels != nil {
			out[i].TypeModels = maps.Clone(jobs[i].TypeModels)
		}
	}
	return out
}

// diff describes the first difference between the jobs before and after a
// call, or returns "".
func diff(before, after []policies.Job) string {
	if len(before) != len(after) {
		return fmt.Sprintf("%d jobs became %d", len(before), len(after))
	}
	for i := range before {
		b, a := reflect.ValueOf(before[i]), reflect.ValueOf(after[i])
		var fields []string
		for f := 0; f < b.NumField(); f++ {
			if !reflect.DeepEqual(b.Field(f).Interface(), a.Field(f).Interface()) {
				fields = append(fields, b.Type().Field(f).Name)
			}
		}
		if len(fields) > 0 {
			return fmt.Sprintf("job %d (%s before the call) changed its %s", i, before[i].Name, strings.Join(fields, ", "))
		}
	}
	return ""
}
