package sia

import (
	"math"
	"sort"
)

// heuristic builds a good feasible solution from the prices mu: every job
// takes its option of best reduced profit v − μ·k (the Lagrangian
// choice); while a type is over capacity, the move freeing its GPUs at the
// least loss of reduced profit per GPU is made; then, while one exists,
// the single change of option that fits and gains the most value. It
// returns the better of that and the greedy by value, with its pick per
// job.
func (s *search) heuristic(mu []float64) (float64, []int) {
	r := s.r
	T := len(r.capacity)
	_, pick, _, _ := s.lagrangian(mu)
	used := make([]int, T)
	for i, o := range pick {
		if o >= 0 {
			used[r.opts[i][o].Type] += r.opts[i][o].GPUs
		}
	}
	profit := func(i, o int) float64 {
		if o < 0 {
			return 0
		}
		return reducedProfit(r.opts[i][o], mu)
	}
	for t := 0; t < T; t++ {
		for used[t] > r.capacity[t] {
			bi, bo, best := -1, -1, math.Inf(1)
			for i, o := range pick {
				if o < 0 || r.opts[i][o].Type != t {
					continue
				}
				k := r.opts[i][o].GPUs
				try := func(o2 int) {
					freed := k
					if o2 >= 0 {
						op := r.opts[i][o2]
						if op.Type == t {
							freed -= op.GPUs
						} else if used[op.Type]+op.GPUs > r.capacity[op.Type] {
							return
						}
					}
					if freed <= 0 {
						return
					}
					if x := (profit(i, o) - profit(i, o2)) / float64(min(freed, used[t]-r.capacity[t])); x < best-eps {
						bi, bo, best = i, o2, x
					}
				}
				try(-1)
				for _, o2 := range s.opts[i] {
					try(o2)
				}
			}
			s.move(pick, used, bi, bo)
		}
	}
	s.improve(pick, used)
	val := s.value(pick)
	order := make([]int, len(r.jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.opts[order[a]][0].Value > r.opts[order[b]][0].Value })
	if g, gp := r.greedy(order); g > val+eps {
		return g, gp
	}
	return val, pick
}

// move gives job i option o (-1: none), updating the GPUs used per type.
func (s *search) move(pick, used []int, i, o int) {
	if old := pick[i]; old >= 0 {
		used[s.r.opts[i][old].Type] -= s.r.opts[i][old].GPUs
	}
	pick[i] = o
	if o >= 0 {
		used[s.r.opts[i][o].Type] += s.r.opts[i][o].GPUs
	}
}

// improve makes, while one exists, the change of one job's option that
// fits the capacities and gains the most value.
func (s *search) improve(pick, used []int) {
	r := s.r
	for {
		bi, bo, best := -1, -1, eps
		for i, o := range pick {
			cur := 0.0
			if o >= 0 {
				cur = r.opts[i][o].Value
			}
			for _, o2 := range s.opts[i] {
				op := r.opts[i][o2]
				room := r.capacity[op.Type] - used[op.Type]
				if o >= 0 && r.opts[i][o].Type == op.Type {
					room += r.opts[i][o].GPUs
				}
				if op.GPUs <= room && op.Value-cur > best {
					bi, bo, best = i, o2, op.Value-cur
				}
			}
		}
		if bi < 0 {
			return
		}
		s.move(pick, used, bi, bo)
	}
}

// value is the value of a pick.
func (s *search) value(pick []int) float64 {
	v := 0.0
	for i, o := range pick {
		if o >= 0 {
			v += s.r.opts[i][o].Value
		}
	}
	return v
}

// greedy takes, job by job in order, the best option that still fits. It
// returns the value and the pick per reduced job.
func (r *reduced) greedy(order []int) (float64, []int) {
	rem := append([]int(nil), r.capacity...)
	pick := make([]int, len(r.jobs))
	val := 0.0
	for _, i := range order {
		pick[i] = -1
		for o, op := range r.opts[i] {
			if op.GPUs <= rem[op.Type] {
				rem[op.Type] -= op.GPUs
				pick[i] = o
				val += op.Value
				break
			}
		}
	}
	return val, pick
}
