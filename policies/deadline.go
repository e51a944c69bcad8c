package policies

import (
	"cmp"
	"slices"
)

// DeadlineBefore reports whether job a comes before job b in earliest-
// deadline-first order: a job with a deadline before one without; two
// with deadlines by deadline; then by submission. Jobs equal in all of
// these keep their order (DeadlineOrder sorts stably). EDF ranks jobs by
// it, and ElasticFlow plans and scales them in it.
func DeadlineBefore(a, b *Job) bool { return compareDeadline(a, b) < 0 }

func compareDeadline(a, b *Job) int {
	da, db := a.Deadline > 0, b.Deadline > 0
	switch {
	case da && !db:
		return -1
	case !da && db:
		return 1
	case da && db:
		if d := cmp.Compare(a.Deadline, b.Deadline); d != 0 {
			return d
		}
	}
	return cmp.Compare(a.Submit, b.Submit)
}

// DeadlineOrder is the jobs' indices in earliest-deadline-first order
// (DeadlineBefore; stable: ties keep the input order, which is submission
// order).
func DeadlineOrder(jobs []Job) []int {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareDeadline(&jobs[a], &jobs[b]) })
	return order
}
