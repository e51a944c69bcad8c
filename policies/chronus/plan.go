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
// ⌈est / lease⌉ (still_required_lease_count).
func Leases(est, lease float64) int {
	return int(math.Ceil(est/lease - 1e-9))
}

// LastLease is the number of leases from lease index cur on that end by
// the absolute deadline: ⌊deadline / lease⌋ − cur (compute_maximum_lease),
// leases i with (i+1)·lease ≤ deadline.
func LastLease(deadline, lease float64, cur int64) int {
	return int(int64(math.Floor(deadline/lease)) - cur)
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

// Pack plans demands into leases 0, 1, … given the GPUs free in each
// (free[i], the cluster's GPUs less those of jobs already planned; leases
// past the end of free have total GPUs free) as the artifact's
// batch_fast_check_if_packable does: the demands by most GPUs first, then
// least slack (Max − Need), then latest last lease; each takes, from its
// last lease backward, every lease with its GPUs free until it has its
// Need. It returns each demand's planned leases (ascending; nil for a
// demand that could not be planned, whose leases go back to the others, as
// in the artifact's fallback batch_fast_job_selection) and whether all
// were planned (the admission test).
func Pack(free []int, total int, demands []Demand) (plans [][]int, ok bool) {
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
	left := slices.Clone(free)
	plans = make([][]int, len(demands))
	ok = true
	for _, d := range order {
		x := demands[d]
		var got []int
		for i := x.Max - 1; i >= 0 && len(got) < x.Need; i-- {
			for len(left) <= i {
				left = append(left, total)
			}
			if left[i] >= x.GPUs {
				got = append(got, i)
			}
		}
		if len(got) < x.Need {
			ok = false
			continue
		}
		for _, i := range got {
			left[i] -= x.GPUs
		}
		slices.Sort(got)
		plans[d] = got
	}
	return plans, ok
}

// PullForward is the artifact's "maximize" objective (used while no
// unaccepted job waits) as a local move on a plan: in the demands' order,
// a job not planned in lease 0 whose GPUs lease 0 still has gives up its
// last planned lease for lease 0, using the current lease as fully as it
// can without moving any lease past a deadline. free[0] is lease 0's GPUs
// left by the plans. Plans are modified in place.
func PullForward(free0 int, demands []Demand, plans [][]int) {
	for d, pl := range plans {
		if len(pl) == 0 || pl[0] == 0 || demands[d].GPUs > free0 {
			continue
		}
		free0 -= demands[d].GPUs
		plans[d] = append([]int{0}, pl[:len(pl)-1]...)
	}
}
