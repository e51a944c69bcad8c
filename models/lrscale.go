package models

import "math"

// LRScaler decides the learning-rate multiplier for a job that trains at
// total batch M instead of its initial batch M0. Implementations must be
// pure functions of their arguments.
type LRScaler interface {
	// Name identifies the rule, e.g. in profile files.
	Name() string
	// Scale returns λ, the factor applied to the learning rate tuned at M0.
	Scale(m0, batch float64, grad GradStats) float64
}

// AdaScale scales the learning rate by the gain ratio of AdaScale SGD,
// (Var+Sqr)/(Var/S+Sqr) with S = M/M0: between 1 and S, adapting to the
// gradient noise.
type AdaScale struct{}

// Name implements LRScaler.
func (AdaScale) Name() string { return "adascale" }

// Scale implements LRScaler.
func (AdaScale) Scale(m0, batch float64, grad GradStats) float64 {
	return grad.Gain(m0, batch)
}

// SqrtScale is the square-root scaling rule λ = sqrt(M/M0), common with
// adaptive optimizers such as Adam.
type SqrtScale struct{}

// Name implements LRScaler.
func (SqrtScale) Name() string { return "sqrt" }

// Scale implements LRScaler.
func (SqrtScale) Scale(m0, batch float64, _ GradStats) float64 {
	return math.Sqrt(batch / m0)
}

// LinearScale is the linear scaling rule λ = M/M0 (Goyal et al.).
type LinearScale struct{}

// Name implements LRScaler.
func (LinearScale) Name() string { return "linear" }

// Scale implements LRScaler.
func (LinearScale) Scale(m0, batch float64, _ GradStats) float64 {
	return batch / m0
}

// LRScalerByName returns the scaler with the given Name, or false.
func LRScalerByName(name string) (LRScaler, bool) {
	for _, s := range []LRScaler{AdaScale{}, SqrtScale{}, LinearScale{}} {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}
