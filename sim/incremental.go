package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/polluxsim/polluxsim/policies"
)

// Incremental reports whether a run of policy p under cfg decides its rounds
// incrementally: p implements policies.Incremental, cfg does not ask for
// full rounds (Config.FullRounds) or a record of every job every round
// (RoundsAll), and the cluster is fixed and has no node pools (a cluster
// given as pools, even of one GPU type, is presented in full). Such a run
// visits, each round, only the jobs holding GPUs and those that arrived,
// finished or changed, so waiting jobs cost nothing until they start; its
// results are those of full rounds (the tests compare both).
func Incremental(cfg Config, p policies.Policy) bool {
	_, ok := p.(policies.Incremental)
	return ok && !cfg.FullRounds && cfg.Rounds != RoundsAll && cfg.Elastic == nil && !cfg.typed() && cfg.Failures == nil
}

// incrementalHint is advice for a run stopped or refused for its work, to
// follow sep: "" unless the policy would decide incrementally were the run to
// record fewer rounds.
func incrementalHint(cfg Config, p policies.Policy, sep string) string {
	c := cfg
	c.Rounds = RoundsNone
	if cfg.Rounds != RoundsAll || !Incremental(c, p) {
		return ""
	}
	return fmt.Sprintf("%srecord --rounds changes or none, with which %s skips waiting jobs", sep, p.Name())
}

// incremental is the engine's book of a run decided incrementally.
type incremental struct {
	inc policies.Incremental
	// holding are the jobs holding GPUs, in workload order.
	holding []*job
	// used is the GPUs held on each node.
	used []int
	// added and removed are the jobs activated and finished since the
	// last round.
	added   []*job
	removed []int64
	// gone are the finished jobs whose views the policy may read until
	// its next round.
	gone []*job
	// scratch
	tracked []policies.Tracked
	touched []*job
	list    []*job
}

func newIncremental(cfg Config, p policies.Policy) *incremental {
	if !Incremental(cfg, p) {
		return nil
	}
	return &incremental{inc: p.(policies.Incremental), used: make([]int, cfg.Cluster.Nodes)}
}

// activate notes that j became active.
func (sp *incremental) activate(j *job) { sp.added = append(sp.added, j) }

// deactivate notes that j finished, while it still holds its GPUs.
func (sp *incremental) deactivate(j *job) {
	if i := slices.Index(sp.added, j); i >= 0 {
		sp.added = slices.Delete(sp.added, i, i+1) // never shown to the policy
	} else {
		sp.removed = append(sp.removed, int64(j.idx))
		sp.gone = append(sp.gone, j)
	}
	sp.move(j, j.alloc, nil, false)
}

// hold updates the book for j, which held old and now holds j.alloc.
func (sp *incremental) hold(j *job, old []int) { sp.move(j, old, j.alloc, j.gpus > 0) }

// move takes old off the per-node counts and puts cur on, and keeps j in
// the holding list or out of it.
func (sp *incremental) move(j *job, old, cur []int, holding bool) {
	for n, v := range old {
		sp.used[n] -= v
	}
	for n, v := range cur {
		sp.used[n] += v
	}
	i, found := slices.BinarySearchFunc(sp.holding, j.idx, byIdx)
	switch {
	case holding && !found:
		sp.holding = slices.Insert(sp.holding, i, j)
	case !holding && found:
		sp.holding = slices.Delete(sp.holding, i, i+1)
	}
}

func byIdx(j *job, idx int) int { return cmp.Compare(j.idx, idx) }

// decide is schedule for a run decided incrementally: the policy is told
// what changed and returns the allocations that change, which are checked
// and applied in workload order.
func (e *engine) decide() error {
	sp := e.incremental
	for _, j := range sp.holding {
		j.view(&j.pv, e.now, e.traits.NeedsOracle)
	}
	slices.SortFunc(sp.added, func(a, b *job) int { return cmp.Compare(a.idx, b.idx) })
	sp.tracked = sp.tracked[:0]
	for _, j := range sp.added {
		j.view(&j.pv, e.now, e.traits.NeedsOracle)
		sp.tracked = append(sp.tracked, policies.Tracked{Key: int64(j.idx), Job: &j.pv})
	}
	start := time.Now()
	changes := sp.inc.ScheduleIncremental(e.now, e.cfg.Cluster, policies.IncrementalRound{Added: sp.tracked, Removed: sp.removed})
	wall := time.Since(start).Seconds()
	if err := policyErr(e.policy); err != nil {
		return err
	}
	clear(sp.tracked)
	for _, j := range sp.gone {
		j.pv = policies.Job{} // the policy has let go: drop what it referred to
	}
	clear(sp.gone)
	sp.gone = sp.gone[:0]
	touched := append(sp.touched[:0], sp.added...) // each needs its first record
	sp.added, sp.removed = sp.added[:0], sp.removed[:0]
	slices.SortFunc(changes, func(a, b policies.Change) int { return cmp.Compare(a.Key, b.Key) })
	for i, ch := range changes {
		if ch.Key < 0 || ch.Key >= int64(len(e.jobs)) || !e.jobs[ch.Key].isActive() {
			return fmt.Errorf("policy %s changed the allocation of job key %d, which is not active (t=%v)", e.policy.Name(), ch.Key, e.now)
		}
		if i > 0 && changes[i-1].Key == ch.Key {
			return fmt.Errorf("policy %s changed the allocation of job %s twice in one round (t=%v)", e.policy.Name(), e.jobs[ch.Key].spec.Name, e.now)
		}
		j := e.jobs[ch.Key]
		if ch.Alloc != nil {
			if err := e.checkAlloc(j, ch.Alloc); err != nil {
				return err
			}
			if err := e.checkCap(&j.pv, ch.Alloc); err != nil {
				return err
			}
		}
	}
	for _, ch := range changes {
		j := e.jobs[ch.Key]
		j.advanceTo(e.now) // a waiting job was last brought up to date when it stopped
		old := j.alloc
		changed, err := e.apply(j, ch.Alloc)
		if err != nil {
			return err
		}
		if changed {
			sp.hold(j, old)
			j.view(&j.pv, e.now, e.traits.NeedsOracle)
			touched = append(touched, j)
		}
	}
	if err := e.checkUsed(sp.used); err != nil {
		return err
	}
	sp.touched = touched
	e.applyInterference(sp.holding)
	for _, j := range sp.holding {
		if j.phase == phaseRunning {
			if err := e.startSegment(j); err != nil {
				return err
			}
		}
	}
	list := sp.holding
	if e.cfg.Rounds == RoundsChanges && len(touched) > 0 {
		// The waiting jobs' records change only when they arrive or lose
		// their GPUs: record the holding and touched jobs in workload
		// order.
		slices.SortFunc(touched, func(a, b *job) int { return cmp.Compare(a.idx, b.idx) })
		list = sp.list[:0]
		h, t := sp.holding, slices.Compact(touched)
		for len(h) > 0 || len(t) > 0 {
			switch {
			case len(t) == 0 || len(h) > 0 && h[0].idx < t[0].idx:
				list, h = append(list, h[0]), h[1:]
			case len(h) == 0 || t[0].idx < h[0].idx:
				list, t = append(list, t[0]), t[1:]
			default:
				list, h, t = append(list, h[0]), h[1:], t[1:]
			}
		}
		sp.list = list
	}
	return e.rec.record(e.res, e.now, wall, list, len(e.active))
}

// isActive reports whether the job is submitted and unfinished.
func (j *job) isActive() bool {
	return j.phase != phaseFuture && j.phase != phaseDone && j.phase != phaseDeclined
}
