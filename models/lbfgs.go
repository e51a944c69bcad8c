package models

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// lbfgsStore is the number of correction pairs L-BFGS keeps (gonum's
// default).
const lbfgsStore = 15

// lbfgsStopGradient is the gradient norm below which gonum's L-BFGS stops
// by itself (its default absolute tolerance).
const lbfgsStopGradient = 1e-12

// minimizeLBFGS minimises f (with gradient grad) from u0 by gonum's L-BFGS
// with its bisection line search and the fit's settings (fitGradTol,
// fitMajorIters, fitFuncEvals and the fitConverge* function convergence),
// and returns the location of the last major iteration: the steps,
// evaluations and result of optimize.Minimize with these settings (see
// solve), driven in this goroutine. Minimize runs its method in goroutines
// that exchange every evaluation over channels, which cost about as much
// as the fit's own arithmetic.
func minimizeLBFGS(f func([]float64) float64, grad func(g, u []float64), u0 []float64) []float64 {
	dim := len(u0)
	loc := &optimize.Location{X: append([]float64(nil), u0...)}
	opt := &optimize.Location{X: make([]float64, dim), F: math.Inf(1)}
	conv := &optimize.FunctionConverge{Absolute: fitConvergeAbs, Relative: fitConvergeRel, Iterations: fitConvergeIters}
	conv.Init(dim)
	funcEvals, majors := 0, 0
	// evaluate performs op at loc and reports whether the evaluation
	// limit ends the search.
	evaluate := func(op optimize.Operation) bool {
		if op&optimize.FuncEvaluation != 0 {
			loc.F = f(loc.X)
			funcEvals++
		}
		if op&optimize.GradEvaluation != 0 {
			if len(loc.Gradient) == 0 {
				loc.Gradient = make([]float64, dim)
			}
			grad(loc.Gradient, loc.X)
		}
		return funcEvals >= fitFuncEvals
	}
	// major records loc as a major iteration and reports whether the
	// search has converged or reached its iteration limit.
	major := func() bool {
		opt.F = loc.F
		copy(opt.X, loc.X)
		if loc.Gradient == nil {
			opt.Gradient = nil
		} else {
			if opt.Gradient == nil {
				opt.Gradient = make([]float64, dim)
			}
			copy(opt.Gradient, loc.Gradient)
		}
		majors++
		switch {
		case math.IsInf(opt.F, -1):
			return true
		case opt.Gradient != nil && floats.Norm(opt.Gradient, math.Inf(1)) < fitGradTol:
			return true
		case conv.Converged(opt) != optimize.NotTerminated:
			return true
		}
		return majors >= fitMajorIters
	}
	if evaluate(optimize.FuncEvaluation | optimize.GradEvaluation) {
		return opt.X
	}
	if math.IsInf(loc.F, 1) || math.IsNaN(loc.F) {
		return opt.X
	}
	for _, v := range loc.Gradient {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return opt.X
		}
	}
	if major() {
		return opt.X
	}
	ls := &optimize.LinesearchMethod{Linesearcher: &optimize.Bisection{}}
	ls.NextDirectioner = &optimize.LBFGS{Store: lbfgsStore, Linesearcher: ls.Linesearcher}
	op, err := ls.Init(loc)
	for err == nil {
		switch {
		case op == optimize.MajorIteration:
			if major() || floats.Norm(loc.Gradient, math.Inf(1)) < lbfgsStopGradient {
				return opt.X
			}
		case op&(optimize.FuncEvaluation|optimize.GradEvaluation) != 0:
			if evaluate(op) {
				return opt.X
			}
		}
		op, err = ls.Iterate(loc)
	}
	return opt.X
}
