package sia

import "math"

// polish improves a feasible pick by exact dynamic programming over a
// neighbourhood: every job may change its option (to one whose loss
// u_j − (v − μ·k) is at most gap: no better solution uses others), and the
// program tracks the change of GPUs used per type within ±w of the
// current use (w chosen so the window has at most polishStates states).
// The best combination of changes that keeps the capacities is applied
// when it gains value; this repeats until no gain. It returns the new
// value. Changing many jobs at once is what a degenerate round needs:
// many jobs have equally good options of different sizes, and the
// solutions worth the bound fill the capacities exactly.
func (s *search) polish(mu []float64, pick []int, upper, margin float64) float64 {
	T := len(s.r.capacity)
	if T <= 3 {
		all := make([]int, T)
		for t := range all {
			all[t] = t
		}
		return s.polishTypes(mu, pick, upper, margin, all)
	}
	// More types: the window over three of them at a time, the others'
	// use unchanged, until no triple gains.
	val := s.value(pick)
	for {
		before := val
		for a := 0; a < T; a++ {
			for b := a + 1; b < T; b++ {
				for c := b + 1; c < T; c++ {
					val = s.polishTypes(mu, pick, upper, margin, []int{a, b, c})
				}
			}
		}
		if val <= before+eps || upper < val+margin {
			return val
		}
	}
}

// polishTypes is polish with the window over the given types: moves that
// change the use of any other type are left out.
func (s *search) polishTypes(mu []float64, pick []int, upper, margin float64, types []int) float64 {
	r := s.r
	T := len(types)
	dim := make([]int, len(r.capacity)) // type → window coordinate, -1: frozen
	for t := range dim {
		dim[t] = -1
	}
	for x, t := range types {
		dim[t] = x
	}
	w := 1
	for pow(2*(w+1)+1, T) <= polishStates && w < 64 {
		w++
	}
	side := 2*w + 1
	states := pow(side, T)
	stride := make([]int, T)
	for t := range stride {
		stride[t] = pow(side, t)
	}
	centre := 0
	for t := range stride {
		centre += w * stride[t]
	}
	val := s.value(pick)
	used := make([]int, len(r.capacity))
	for i, o := range pick {
		if o >= 0 {
			used[r.opts[i][o].Type] += r.opts[i][o].GPUs
		}
	}
	coord := make([][]int16, T)
	for t := range coord {
		coord[t] = make([]int16, states)
		for x := range states {
			coord[t][x] = int16((x / stride[t]) % side)
		}
	}
	type move struct {
		o      int // new option, -1: none
		shift  int // change of the state index
		ta, tb int // the types whose use changes (-1: none)
		da, db int16
		dv     float64
	}
	f := make([]float64, states)
	g := make([]float64, states)
	choice := make([][]uint8, len(r.jobs))
	moves := make([][]move, len(r.jobs))
	for {
		gap := upper - val - margin + 1e-9
		if gap < 0 {
			return val
		}
		for x := range f {
			f[x] = math.Inf(-1)
		}
		f[centre] = 0
		for i, ops := range r.opts {
			moves[i] = moves[i][:0]
			cur, curV := pick[i], 0.0
			if cur >= 0 {
				curV = ops[cur].Value
			}
			u := 0.0
			for _, o := range s.opts[i] {
				u = math.Max(u, reducedProfit(ops[o], mu))
			}
			try := func(o int) {
				if o == cur {
					return
				}
				shift, dv, rp := 0, -curV, 0.0
				if cur >= 0 {
					if dim[ops[cur].Type] < 0 {
						return
					}
					shift -= ops[cur].GPUs * stride[dim[ops[cur].Type]]
				}
				if o >= 0 {
					if ops[o].GPUs > r.capacity[ops[o].Type] || dim[ops[o].Type] < 0 {
						return
					}
					shift += ops[o].GPUs * stride[dim[ops[o].Type]]
					dv += ops[o].Value
					rp = reducedProfit(ops[o], mu)
				}
				if u-rp > gap {
					return
				}
				mv := move{o: o, shift: shift, ta: -1, tb: -1, dv: dv}
				if cur >= 0 {
					mv.ta, mv.da = dim[ops[cur].Type], int16(-ops[cur].GPUs)
				}
				if o >= 0 {
					if mv.ta == dim[ops[o].Type] {
						mv.da += int16(ops[o].GPUs)
					} else {
						mv.tb, mv.db = dim[ops[o].Type], int16(ops[o].GPUs)
					}
				}
				if mv.da < int16(-w) || mv.da > int16(w) || mv.db < int16(-w) || mv.db > int16(w) {
					return
				}
				if len(moves[i]) < maxOptions {
					moves[i] = append(moves[i], mv)
				}
			}
			try(-1)
			for _, o := range s.opts[i] {
				try(o)
			}
			if cap(choice[i]) < states {
				choice[i] = make([]uint8, states)
			}
			ch := choice[i][:states]
			copy(g, f)
			clear(ch)
			for m, mv := range moves[i] {
				for x := range states {
					if f[x] == math.Inf(-1) {
						continue
					}
					if mv.ta >= 0 {
						if c := coord[mv.ta][x] + mv.da; c < 0 || c >= int16(side) {
							continue
						}
					}
					if mv.tb >= 0 {
						if c := coord[mv.tb][x] + mv.db; c < 0 || c >= int16(side) {
							continue
						}
					}
					y := x + mv.shift
					if v := f[x] + mv.dv; v > g[y]+eps {
						g[y], ch[y] = v, uint8(m+1)
					}
				}
			}
			f, g = g, f
		}
		best, at := eps, -1
		for x := range states {
			if f[x] <= best {
				continue
			}
			ok := true
			for x2, t := range types {
				if used[t]+int(coord[x2][x])-w > r.capacity[t] {
					ok = false
					break
				}
			}
			if ok {
				best, at = f[x], x
			}
		}
		if at < 0 {
			return val
		}
		for i := len(r.jobs) - 1; i >= 0; i-- {
			if m := int(choice[i][at]) - 1; m >= 0 {
				mv := moves[i][m]
				at -= mv.shift
				s.move(pick, used, i, mv.o)
			}
		}
		val = s.value(pick)
	}
}

// pow is b to the n.
func pow(b, n int) int {
	p := 1
	for range n {
		p *= b
	}
	return p
}

// polishStates bounds the window of polish.
const polishStates = 5000
