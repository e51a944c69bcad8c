package traces

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Critical values at significance 0.001, used by the statistical
// acceptance tests: with fixed seeds the tests are deterministic, and a
// correct generator fails them with probability 0.1 %.
const (
	// chi2Crit5 is the 0.999 quantile of the chi-square distribution with
	// 5 degrees of freedom (six applications).
	chi2Crit5 = 20.515
	// ksC is c(α) of the two-sample Kolmogorov–Smirnov test.
	ksC = 1.949
)

// chiSquare is Pearson's goodness-of-fit statistic of counts against
// probabilities p (over the same keys).
func chiSquare(counts map[string]int, p map[string]float64) float64 {
	n := 0
	for _, c := range counts {
		n += c
	}
	x := 0.0
	for k, pk := range p {
		e := pk * float64(n)
		d := float64(counts[k]) - e
		x += d * d / e
	}
	return x
}

// chiSquare2 is the chi-square statistic of homogeneity of two count
// tables over keys (a 2×k contingency table).
func chiSquare2(a, b map[string]int, keys []string) float64 {
	na, nb := 0, 0
	for _, k := range keys {
		na += a[k]
		nb += b[k]
	}
	x := 0.0
	for _, k := range keys {
		tot := float64(a[k] + b[k])
		if tot == 0 {
			continue
		}
		ea := tot * float64(na) / float64(na+nb)
		eb := tot * float64(nb) / float64(na+nb)
		x += sq(float64(a[k])-ea)/ea + sq(float64(b[k])-eb)/eb
	}
	return x
}

func sq(x float64) float64 { return x * x }

// ksStatistic is the two-sample Kolmogorov–Smirnov statistic D.
func ksStatistic(a, b []float64) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	i, j, d := 0, 0, 0.0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] <= x {
			i++
		}
		for j < len(b) && b[j] <= x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// ksCritical is the largest D the test accepts at significance 0.001.
func ksCritical(n, m int) float64 {
	return ksC * math.Sqrt(float64(n+m)/float64(n*m))
}

// syntheticPhilly makes a Philly-like table of n jobs: submission times
// uniform over October 2017, log-uniform durations from 10 s to 12 days,
// mostly one GPU.
func syntheticPhilly(n int, seed uint64) *PhillyTable {
	r := rand.New(rand.NewPCG(seed, 1))
	gpus := []int{1, 1, 1, 1, 1, 1, 2, 4, 8, 16, 32}
	t := &PhillyTable{Source: "synthetic"}
	start := time.Date(2017, 10, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		d := math.Round(10 * math.Pow(1e5, r.Float64()))
		g := gpus[r.IntN(len(gpus))]
		t.Jobs = append(t.Jobs, PhillyJob{
			Submitted: start.Add(time.Duration(r.IntN(31*86400)) * time.Second),
			Duration:  d, GPUs: g, GPUTime: d * float64(g), Cluster: "c",
		})
	}
	return t
}
