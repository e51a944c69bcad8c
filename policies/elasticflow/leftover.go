package elasticflow

import "math"

// The marginal returns Leftover may rank jobs by (option marginal).
const (
	// MarginalGPUTime is the artifact's: the GPU-seconds one more step up
	// the curve adds per added GPU over the next stretch of time, job i
	// going from q to q' GPUs at rates R and R' while its remaining work
	// stays the same: (q' − q·R'/R) / (q' − q); highest first
	// (scheduler.py get_marginal, allocate_free_gpus, which sorts
	// marginal_gputime in reverse). It is 0 for a job that scales
	// linearly and 1 for one that does not speed up at all.
	MarginalGPUTime = "gputime"
	// MarginalRunTime is the paper's diminishing returns read as the run
	// time saved per added GPU: (1/R − 1/R') / (q' − q); highest first.
	MarginalRunTime = "runtime"
)

// Marginal is the marginal return of taking a job from level a to level
// b of its curve (a < b) under rule (MarginalGPUTime or MarginalRunTime).
func Marginal(rule string, a, b Level) float64 {
	dq := float64(b.GPUs - a.GPUs)
	if rule == MarginalRunTime {
		return (1/a.Rate - 1/b.Rate) / dq
	}
	return (float64(b.GPUs) - float64(a.GPUs)*b.Rate/a.Rate) / dq
}

// Leftover hands out free GPUs as ElasticFlow's allocate_free_gpus does:
// one step up its curve at a time, to the job that ranks first among those
// whose next step fits in what is still free; a job holding no GPU ranks
// before every job holding some (the artifact gives it marginal
// sys.maxsize), the others by their marginal return under rule, highest
// first; ties go to the job earlier in order (EDF order). count holds each
// job's GPUs, 0 or a level of its curve, and is raised in place; it
// returns the GPUs still free.
func Leftover(rule string, curves []Curve, count []int, order []int, free int) int {
	for free > 0 {
		best, bestR, bestNext := -1, 0.0, 0
		for _, i := range order {
			c := curves[i]
			cur := c.atMost(count[i]) // −1 when the job holds no GPU
			if cur+1 >= len(c) || c[cur+1].GPUs-count[i] > free {
				continue
			}
			r := math.Inf(1)
			if count[i] > 0 {
				r = Marginal(rule, c[cur], c[cur+1])
			}
			if best < 0 || r > bestR {
				best, bestR, bestNext = i, r, c[cur+1].GPUs
			}
		}
		if best < 0 {
			break
		}
		free -= bestNext - count[best]
		count[best] = bestNext
	}
	return free
}
