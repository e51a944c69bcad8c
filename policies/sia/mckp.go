package sia

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Problem is Sia's per-round integer program as a multiple-choice knapsack
// with one capacity per GPU type: every job takes at most one of its
// options (a configuration: GPUs of one type, with a value), the GPUs
// taken of each type stay within its capacity, and the sum of the values
// is maximal. Taking no option is worth 0.
type Problem struct {
	// Capacity is the number of GPUs of each type.
	Capacity []int
	// Jobs lists each job's options.
	Jobs [][]Option
	// Fixed, when non-nil, holds per job the index of an option the job
	// must take (Sia keeps the configuration of a job that is still
	// restarting), or -1.
	Fixed []int
	// MaxNodes, when positive, bounds the search nodes the branch and
	// bound visits (see Solution.Gap); 0 means no bound: an exact solve
	// however long it takes.
	MaxNodes int
}

// Option is one configuration of a job.
type Option struct {
	Type  int     // index into Problem.Capacity
	GPUs  int     // GPUs of that type it takes
	Value float64 // its contribution to the objective
}

// Solution is an optimal choice.
type Solution struct {
	// Choice holds per job the index of its option, or -1 for none.
	Choice []int
	// Value is the objective: the sum of the chosen options' values.
	Value float64
	// Nodes is the number of search nodes the branch and bound visited
	// (0 when dynamic programming solved it).
	Nodes int
	// Gap is 0 when the solution is proven optimal. When the branch and
	// bound stopped at Problem.MaxNodes it is the best solution found and
	// Gap bounds how far below the optimum it may be (the relaxation's
	// bound minus Value).
	Gap float64
}

// maxOptions is the most useful options a job may have for the dynamic
// program (it stores choices in a byte).
const maxOptions = 255

// eps is the tolerance of value comparisons: an improvement must exceed it.
const eps = 1e-9

// validate checks the problem's shape.
func (p *Problem) validate() error {
	if p.Fixed != nil && len(p.Fixed) != len(p.Jobs) {
		return fmt.Errorf("sia: %d fixed entries for %d jobs", len(p.Fixed), len(p.Jobs))
	}
	for t, c := range p.Capacity {
		if c < 0 {
			return fmt.Errorf("sia: capacity of type %d is negative (%d)", t, c)
		}
	}
	for j, opts := range p.Jobs {
		for o, op := range opts {
			if op.Type < 0 || op.Type >= len(p.Capacity) || op.GPUs < 1 || math.IsNaN(op.Value) || math.IsInf(op.Value, 0) {
				return fmt.Errorf("sia: job %d option %d is invalid: %+v", j, o, op)
			}
		}
		if p.Fixed != nil && p.Fixed[j] >= len(opts) {
			return fmt.Errorf("sia: job %d is fixed to option %d of %d", j, p.Fixed[j], len(opts))
		}
	}
	return nil
}

// reduced is the problem left once the fixed jobs are placed: the free
// jobs' useful options (positive value, fitting the remaining capacity).
type reduced struct {
	capacity []int
	jobs     []int      // indices of free jobs with useful options
	opts     [][]Option // their useful options, best value first
	idx      [][]int    // the options' indices in the original problem
	base     float64    // value of the fixed jobs
	choice   []int      // the fixed jobs' choices, -1 elsewhere
}

func reduce(p *Problem) (*reduced, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	r := &reduced{capacity: append([]int(nil), p.Capacity...), choice: make([]int, len(p.Jobs))}
	for j := range p.Jobs {
		r.choice[j] = -1
		if p.Fixed != nil && p.Fixed[j] >= 0 {
			op := p.Jobs[j][p.Fixed[j]]
			r.capacity[op.Type] -= op.GPUs
			r.base += op.Value
			r.choice[j] = p.Fixed[j]
		}
	}
	for t, c := range r.capacity {
		if c < 0 {
			return nil, fmt.Errorf("sia: the fixed jobs need %d GPUs of type %d more than there are", -c, t)
		}
	}
	for j, opts := range p.Jobs {
		if r.choice[j] >= 0 {
			continue
		}
		var keep []int
		for o, op := range opts {
			if op.Value > eps && op.GPUs <= r.capacity[op.Type] {
				keep = append(keep, o)
			}
		}
		if len(keep) == 0 {
			continue
		}
		sort.SliceStable(keep, func(a, b int) bool { return opts[keep[a]].Value > opts[keep[b]].Value })
		ops := make([]Option, len(keep))
		for k, o := range keep {
			ops[k] = opts[o]
		}
		r.jobs = append(r.jobs, j)
		r.opts = append(r.opts, ops)
		r.idx = append(r.idx, keep)
	}
	// No more GPUs of a type can be used than the free jobs' largest
	// options there add up to.
	demand := make([]int, len(r.capacity))
	for _, ops := range r.opts {
		most := make(map[int]int)
		for _, op := range ops {
			most[op.Type] = max(most[op.Type], op.GPUs)
		}
		for t, k := range most {
			demand[t] += k
		}
	}
	for t := range r.capacity {
		r.capacity[t] = min(r.capacity[t], demand[t])
	}
	return r, nil
}

// Solve returns an optimal solution of p. It runs dynamic programming
// over the vectors of GPUs used per type (SolveDP) when jobs × states stay
// within dpCells, and otherwise the branch and bound over the
// linear-programming bound (SolveBB; exact too, fast when the bound is
// nearly reached, as in Sia's large rounds, exponential in the worst
// case). Capacities are first cut to what the free jobs could use at
// most, which changes no optimum and keeps the state space small when
// jobs are few.
func Solve(p *Problem) (Solution, error) {
	sol, err := SolveDP(p, dpCells)
	if errors.Is(err, errTooLarge) {
		return SolveBB(p)
	}
	return sol, err
}

// dpCells bounds the dynamic program's table: jobs × states.
const dpCells = 1 << 25

// errTooLarge reports a problem beyond SolveDP's maxCells.
var errTooLarge = errors.New("sia: problem too large for dynamic programming")

// SolveBB returns an optimal solution of p by branch and bound over the
// linear-programming relaxation (see bnb.go). Its result is exact; its
// running time may grow exponentially with the jobs when the integer
// optimum stays below the relaxation's by more than the values' grain,
// which p.MaxNodes bounds (the result then carries its Gap).
func SolveBB(p *Problem) (Solution, error) {
	r, err := reduce(p)
	if err != nil {
		return Solution{}, err
	}
	pick, nodes, gap := r.branchAndBound(p.MaxNodes)
	sol := r.solution(p, pick, nodes)
	sol.Gap = gap
	return sol, nil
}

// SolveDP returns an optimal solution of p by dynamic programming over the
// vectors of GPUs used per type: exact, with time proportional to the
// options times the product of (capacity + 1) over the types and memory to
// the jobs times that product. maxCells bounds jobs × states (an error
// beyond). Ties go to the solution whose jobs, from the last back, take
// earlier options of their value-sorted lists.
func SolveDP(p *Problem, maxCells int) (Solution, error) {
	r, err := reduce(p)
	if err != nil {
		return Solution{}, err
	}
	for _, ops := range r.opts {
		if len(ops) > maxOptions {
			return Solution{}, errTooLarge
		}
	}
	states := 1
	stride := make([]int, len(r.capacity))
	for t, c := range r.capacity {
		stride[t] = states
		states *= c + 1
		if states*max(len(r.jobs), 1) > maxCells {
			return Solution{}, errTooLarge
		}
	}
	// coord[t][s] is state s's GPUs of type t.
	coord := make([][]int32, len(r.capacity))
	for t := range coord {
		coord[t] = make([]int32, states)
		for s := range coord[t] {
			coord[t][s] = int32((s / stride[t]) % (r.capacity[t] + 1))
		}
	}
	f := make([]float64, states)
	g := make([]float64, states)
	choice := make([][]uint8, len(r.jobs))
	for i, ops := range r.opts {
		copy(g, f)
		choice[i] = make([]uint8, states)
		ch := choice[i]
		// Options in order, each improving g strictly: the first option
		// reaching a state's maximum keeps it.
		for o, op := range ops {
			k, shift, v0, c := int32(op.GPUs), op.GPUs*stride[op.Type], op.Value, coord[op.Type]
			for s := shift; s < states; s++ {
				if c[s] < k {
					continue
				}
				if v := f[s-shift] + v0; v > g[s]+eps {
					g[s], ch[s] = v, uint8(o+1)
				}
			}
		}
		f, g = g, f
	}
	pick := make([]int, len(r.jobs))
	s := states - 1
	for i := len(r.jobs) - 1; i >= 0; i-- {
		pick[i] = int(choice[i][s]) - 1
		if o := pick[i]; o >= 0 {
			s -= r.opts[i][o].GPUs * stride[r.opts[i][o].Type]
		}
	}
	return r.solution(p, pick, 0), nil
}

// solution maps the reduced problem's picks back to p.
func (r *reduced) solution(p *Problem, pick []int, nodes int) Solution {
	sol := Solution{Choice: append([]int(nil), r.choice...), Value: r.base, Nodes: nodes}
	for i, o := range pick {
		if o >= 0 {
			sol.Choice[r.jobs[i]] = r.idx[i][o]
			sol.Value += r.opts[i][o].Value
		}
	}
	return sol
}

// Value is the objective of a choice (per job an option index or -1), or
// an error if it breaks a constraint.
func (p *Problem) Value(choice []int) (float64, error) {
	if len(choice) != len(p.Jobs) {
		return 0, fmt.Errorf("sia: %d choices for %d jobs", len(choice), len(p.Jobs))
	}
	used := make([]int, len(p.Capacity))
	v := 0.0
	for j, o := range choice {
		if p.Fixed != nil && p.Fixed[j] >= 0 && o != p.Fixed[j] {
			return 0, fmt.Errorf("sia: job %d is fixed to option %d, chose %d", j, p.Fixed[j], o)
		}
		if o < 0 {
			continue
		}
		if o >= len(p.Jobs[j]) {
			return 0, fmt.Errorf("sia: job %d has no option %d", j, o)
		}
		op := p.Jobs[j][o]
		used[op.Type] += op.GPUs
		v += op.Value
	}
	for t, u := range used {
		if u > p.Capacity[t] {
			return 0, fmt.Errorf("sia: %d GPUs of type %d used, capacity %d", u, t, p.Capacity[t])
		}
	}
	return v, nil
}
