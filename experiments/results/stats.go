package results

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Stat summarises one metric of a cell over its workloads: the mean, the
// sample standard deviation and the 95 % confidence interval of the mean
// from Student's t distribution with n−1 degrees of freedom (absent for a
// single workload). Values are per workload, in the order of Workloads.
type Stat struct {
	N         int         `json:"n"`
	Mean      float64     `json:"mean"`
	SD        float64     `json:"sd"`
	HalfWidth *float64    `json:"ci95_half_width"`
	CI95      *[2]float64 `json:"ci95"`
	Workloads []int       `json:"workloads"`
	Values    []float64   `json:"values"`
	// Aggregate names a metric's aggregation over workloads other than
	// the mean (outputs.Metric.Aggregate: "median", "max", ...) and Value
	// is it; both absent for the mean.
	Aggregate string   `json:"aggregate,omitempty"`
	Value     *float64 `json:"value,omitempty"`
}

// Central is the figure the metric's aggregation asks for: Value when
// set, else the mean.
func (s Stat) Central() float64 {
	if s.Value != nil {
		return *s.Value
	}
	return s.Mean
}

// describe computes the Stat of values measured on workloads.
func Describe(workloads []int, values []float64) Stat {
	s := Stat{N: len(values), Workloads: workloads, Values: values}
	if s.N == 0 {
		return s
	}
	s.Mean = stat.Mean(values, nil)
	if s.N < 2 {
		return s
	}
	s.SD = stat.StdDev(values, nil)
	h := tQuantile975(s.N-1) * s.SD / math.Sqrt(float64(s.N))
	s.HalfWidth = &h
	s.CI95 = &[2]float64{s.Mean - h, s.Mean + h}
	return s
}

// tQuantile975 is the 97.5th percentile of Student's t with df degrees
// of freedom: a two-sided 95 % interval is mean ± t·sd/√n.
func tQuantile975(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// pairedRatio divides num by den workload by workload (only the workloads
// both have, and only where den is non-zero) and describes the ratios.
func PairedRatio(numW []int, num []float64, denW []int, den []float64) Stat {
	d := make(map[int]float64, len(denW))
	for i, w := range denW {
		d[w] = den[i]
	}
	var ws []int
	var rs []float64
	for i, w := range numW {
		if v, ok := d[w]; ok && v != 0 {
			ws = append(ws, w)
			rs = append(rs, num[i]/v)
		}
	}
	return Describe(ws, rs)
}
