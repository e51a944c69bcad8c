package conformance

import (
	"fmt"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// checkIncremental plays sc through ScheduleIncremental on a fresh instance of
// a policy that implements policies.Incremental and returns the first round
// whose allocations differ from full's (the rounds played through Schedule), or
// where ScheduleIncremental broke its contract (a change for a job not active
// or listed twice, a panic).
func checkIncremental(sc Scenario, p policies.Incremental, full []record) *Violation {
	if sc.Down != nil {
		return nil // under failures the engine decides every round in full
	}
	name := p.Name()
	traits := p.Traits()
	states := newStates(sc)
	views := make([]policies.Job, len(sc.Jobs))
	for r := 0; r < sc.Rounds && r < len(full); r++ {
		now := float64(r+1) * sc.Interval
		fail := func(rule Rule, format string, args ...any) *Violation {
			return &Violation{Policy: name, Scenario: sc.Name, Round: r, Time: now, Rule: rule, Detail: fmt.Sprintf(format, args...)}
		}
		var round policies.IncrementalRound
		var active []int
		for i, st := range states {
			switch {
			case st.spec.Arrive > r:
			case st.spec.Finish != 0 && r >= st.spec.Finish:
				if r == st.spec.Finish {
					round.Removed = append(round.Removed, int64(i))
				}
			default:
				active = append(active, i)
				if st.spec.Arrive == r || r == 0 {
					views[i] = st.view(now, traits.NeedsOracle)
					round.Added = append(round.Added, policies.Tracked{Key: int64(i), Job: &views[i]})
				} else if st.alloc != nil {
					views[i] = st.view(now, traits.NeedsOracle) // a job holding GPUs is kept up to date
				}
			}
		}
		changes, panicked := decide(p, now, sc.Cluster, round)
		if panicked != nil {
			return fail(RulePanic, "ScheduleIncremental panicked with %d jobs: %v", len(active), panicked)
		}
		if err := fault(p); err != nil {
			return fail(RuleFault, "%v", err)
		}
		alloc := map[int][]int{}
		for _, ch := range changes {
			i := int(ch.Key)
			if !slices.Contains(active, i) {
				return fail(RuleIncremental, "ScheduleIncremental changed the allocation of key %d, not an active job", ch.Key)
			}
			if _, twice := alloc[i]; twice {
				return fail(RuleIncremental, "ScheduleIncremental changed the allocation of job %s twice", sc.Jobs[i].Name)
			}
			alloc[i] = slices.Clone(ch.Alloc)
		}
		for k, i := range active {
			a, changed := alloc[i]
			if !changed {
				a = states[i].alloc
			}
			if k >= len(full[r].alloc) || !policies.Equal(a, full[r].alloc[k]) {
				want := "nothing"
				if k < len(full[r].alloc) {
					want = fmt.Sprint(full[r].alloc[k])
				}
				return fail(RuleIncremental, "after ScheduleIncremental job %s holds %v, Schedule gave it %v", sc.Jobs[i].Name, a, want)
			}
			held := states[i].alloc
			states[i].apply(a, sc.Interval)
			if !policies.Equal(held, states[i].alloc) {
				views[i] = states[i].view(now, traits.NeedsOracle) // a change is shown at once
			}
		}
	}
	return nil
}

// decide calls p.ScheduleIncremental, turning a panic into a value.
func decide(p policies.Incremental, now float64, c policies.Cluster, r policies.IncrementalRound) (ch []policies.Change, panicked any) {
	defer func() { panicked = recover() }()
	return p.ScheduleIncremental(now, c, r), nil
}
