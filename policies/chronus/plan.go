package chronus

import (
	"math"
	"slices"
)

// The artifact's constants (ElasticFlow/chronus-scheduler/alg/scheduler/
// time_aware_with_lease.py): the checkpoint and resume overheads per
// preemption, in seconds, scaled by 1 + log2(GPUs), and the safety margin
// on every estimate.
const (
	checkpointOverhead = 0.1
	resumeOverhead     = 0.4
	margin             = 1.1
)

// Estimate is the run time Chronus reserves leases for, for a job running
// dur seconds alone on its g GPUs with leases of lease seconds:
// ⌊dur · (1 + (1 + log2 g) · (0.4 + 0.1) / lease) · 1.1⌋ (the artifact's
// estimate_duration: a preemption's overhead per lease, and 10 %).
func Estimate(dur float64, g int, lease float64) float64 {
	coef := 1 + (1+math.Log2(float64(max(g, 1))))*(resumeOverhead+checkpointOverhead)/lease
	return math.Floor(dur * coef * margin)
}

// Leases is the number of leases a job needs for est seconds of run time,
// ⌈est / lease⌉ (still_required_lease_count), at most MaxLeases (an
// estimate that is not finite counts as MaxLeases leases: never planned).
func Leases(est, lease float64) int {
	n := math.Ceil(est/lease - 1e-9)
	if !(n < MaxLeases) {
		return MaxLeases
	}
	return int(n)
}

// MaxLeases bounds lease counts: a deadline further than MaxLeases leases
// away counts as MaxLeases leases away (2^40 leases of at least a second
// are over 34,000 years, beyond any plan), and a job that needs more than
// MaxPlan leases is not planned (LeasesFor). Plans are kept sparse (Pack,
// Usage), so a far deadline costs nothing.
const MaxLeases = 1 << 40

// MaxPlan is the most leases one plan holds: 2^20, eight years of 240-s
// leases. A job needing more is never admitted (it runs as an unaccepted
// SLO job): its plan's memory is bounded by this, not by its run time.
const MaxPlan = 1 << 20

// LastLease is the number of leases from lease index cur on that end by
// the absolute deadline: ⌊deadline / lease⌋ − cur (compute_maximum_lease),
// leases i with (i+1)·lease ≤ deadline; ⌊deadline / lease⌋ is at most
// MaxLeases (a deadline of 1e308 s is MaxLeases leases away).
func LastLease(deadline, lease float64, cur int64) int {
	last := math.Floor(deadline / lease)
	if !(last < MaxLeases) { // +Inf and NaN too
		last = MaxLeases
	}
	return int(int64(last) - cur)
}

// Bin is the GPUs a job of g GPUs is planned with: 3 and 4 as 4, 5 to 8 as
// 8, others as they are (the artifact's convert_to_bin).
func Bin(g int) int {
	switch {
	case g == 3 || g == 4:
		return 4
	case g >= 5 && g <= 8:
		return 8
	}
	return g
}

// Demand is one job's lease request for a plan: GPUs (Bin), the leases it
// needs and the number of leases, from the first planned one, that end
// by its deadline.
type Demand struct {
	GPUs, Need, Max int
}

// Usage is the GPUs the plans already made take in each lease, by lease
// offset (0 is the first lease planned); a lease not in it has all its
// GPUs. It is sparse: plans near a far deadline cost what their leases
// number, not what the deadline is.
type Usage map[int]int

// Pack plans demands into leases 0, 1, … given the GPUs the plans already
// made take in each (used; the others are free) as the artifact's
// batch_fast_check_if_packable does: the demands by most GPUs first, then
// least slack (Max − Need), then latest last lease; each takes, from its
// last lease backward, every lease with its GPUs free until it has its
// Need. It returns each demand's planned leases (ascending; nil for a
// demand that could not be planned, whose leases go back to the others, as
// in the artifact's fallback batch_fast_job_selection) and whether all
// were planned (the admission test). A demand of more GPUs than total, or
// of more than MaxPlan leases, is not planned. Its work is bounded by the
// leases planned and used, whatever the demands' Max: leases past those
// in use all have total GPUs free, so a demand's backward walk passes at
// most its Need plus the leases in use.
func Pack(used Usage, total int, demands []Demand) (plans [][]int, ok bool) {
	order := make([]int, len(demands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := demands[a], demands[b]
		if x.GPUs != y.GPUs {
			return y.GPUs - x.GPUs
		}
		if sx, sy := x.Max-x.Need, y.Max-y.Need; sx != sy {
			return sx - sy
		}
		return y.Max - x.Max
	})
	taken := Usage{} // this call's plans, over used
	plans = make([][]int, len(demands))
	ok = true
	for _, d := range order {
		x := demands[d]
		if x.GPUs > total || x.Need > MaxPlan || x.Need > x.Max {
			ok = false
			continue
		}
		var got []int
		for i := x.Max - 1; i >= 0 && len(got) < x.Need; i-- {
			if total-used[i]-taken[i] >= x.GPUs {
				got = append(got, i)
			}
		}
		if len(got) < x.Need {
			ok = false
			continue
		}
		for _, i := range got {
			taken[i] += x.GPUs
		}
		slices.Sort(got)
		plans[d] = got
	}
	return plans, ok
}

// PullForward is the artifact's "maximize" objective (used while no
// unaccepted job waits: the artifact then re-plans every admitted job at
// every lease to put as many GPUs as it can in the current one) as a
// local move on the plans: in the plans' order, a job not planned in
// lease cur whose GPUs lease cur still has gives up its last planned
// lease for cur. No lease moves later, so every plan stays within its
// deadline; repeated at every lease, a job whose GPUs stay free runs in
// every lease from its admission on. plans are absolute lease indices,
// ascending, none before cur; gpus[d] is plan d's GPUs and total the
// cluster's. Plans are modified in place.
func PullForward(cur int64, total int, gpus []int, plans [][]int64) {
	free := total
	for d, pl := range plans {
		if len(pl) > 0 && pl[0] == cur {
			free -= gpus[d]
		}
	}
	for d, pl := range plans {
		if len(pl) == 0 || pl[0] == cur || gpus[d] > free {
			continue
		}
		free -= gpus[d]
		copy(pl[1:], pl[:len(pl)-1])
		pl[0] = cur
	}
}
