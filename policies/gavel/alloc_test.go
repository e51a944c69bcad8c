package gavel

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Two types of one GPU each; job 1 runs 4 / 1 steps/s on them, job 2 2 / 1.
// Max-min by hand: job 2 needs 2x2a + x2b ≥ t with x2a + x2b ≤ 1, so
// x2a ≥ t − 1 and job 1 has at most 2 − t of type a; its throughput is then
// at most 4(2−t) + (1 − (2−t))... ≤ 1 + 3(2 − t), and 7 − 3t ≥ t gives
// t ≤ 7/4, reached at x1 = (1/4, 3/4), x2 = (3/4, 1/4).
func TestMaxMinHandSolved(t *testing.T) {
	p := &problem{caps: []float64{1, 1}, scale: []float64{1, 1}, thr: [][]float64{{4, 1}, {2, 1}}}
	X, tmin, err := p.maxMin(p.thr, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(tmin, 1.75, 1e-9) {
		t.Fatalf("min = %v, want 1.75 (X = %v)", tmin, X)
	}
	want := [][]float64{{0.25, 0.75}, {0.75, 0.25}}
	for i := range want {
		for k := range want[i] {
			if !near(X[i][k], want[i][k], 1e-9) {
				t.Fatalf("X = %v, want %v", X, want)
			}
		}
	}
	// A heterogeneity-unaware split (each job half of each type) reaches
	// only min(2.5, 1.5) = 1.5.
}

// Max-sum by hand: two GPUs, jobs of 1, 2 and 1 GPUs with coefficient 1:
// the two one-GPU jobs run all the time, the two-GPU job not at all.
func TestMaxSumHandSolved(t *testing.T) {
	p := &problem{caps: []float64{2}, scale: []float64{1, 2, 1}, thr: [][]float64{{1}, {1}, {1}}}
	for _, normalise := range []bool{false, true} {
		X, err := p.throughput(normalise, false)
		if err != nil {
			t.Fatal(err)
		}
		if X[0][0] != 1 || X[1][0] != 0 || X[2][0] != 1 {
			t.Errorf("normalise %v: X = %v, want 1, 0, 1", normalise, X)
		}
	}
}

func TestWaterLevel(t *testing.T) {
	if c := waterLevel([]float64{1, 2, 4}, []float64{1, 1, 1}, 5); !near(c, 2, 1e-9) {
		t.Errorf("level = %v, want 2 (1 + 2 + 2 = 5)", c)
	}
	if c := waterLevel([]float64{1, 2}, []float64{3, 1}, 5); !math.IsInf(c, 1) {
		t.Errorf("level = %v, want +Inf (everything fits)", c)
	}
	if c := waterLevel([]float64{4}, []float64{4}, 8); !near(c, 2, 1e-9) {
		t.Errorf("level = %v, want 2 (four jobs of 4 GPUs on 8)", c)
	}
}

// On one type, LAS gives every job the same GPU share whatever its
// throughput (normalised throughputs are equal, so X is the isolated
// share): four one-GPU jobs and one four-GPU job on 4 GPUs.
func TestLASSingleTypeEqualShares(t *testing.T) {
	p := &problem{caps: []float64{4}, scale: []float64{1, 1, 1, 1, 4}, thr: [][]float64{{1}, {2}, {3}, {5}, {7}}}
	X, err := p.las([]float64{1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	// Water level: 4·min(1,c) + min(4,c) = 4 → c = 0.8; shares 0.8 and 0.2.
	for i, want := range []float64{0.8, 0.8, 0.8, 0.8, 0.2} {
		if !near(X[i][0], want, 1e-6) {
			t.Fatalf("X = %v, want 0.8 for the one-GPU jobs and 0.2 for the four-GPU job", X)
		}
	}
	// Weight 2 for the first job would give it 2 × 0.8 of the time; it is
	// capped at 1 (all its time), and water-filling shares the other 3 GPUs
	// equally: 3·0.8L + 4·0.2L = 3, L = 15/16, so 0.75 and 0.1875.
	X, err = p.las([]float64{2, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 0.75, 0.75, 0.75, 0.1875} {
		if !near(X[i][0], want, 1e-6) {
			t.Fatalf("weighted X = %v, want 1, 0.75, 0.75, 0.75, 0.1875", X)
		}
	}
	// Uncapped: eight one-GPU jobs on 4 GPUs, the first of weight 2:
	// 2x + 7x = 4, x = 4/9.
	p = &problem{caps: []float64{4}}
	w := make([]float64, 8)
	for i := range w {
		p.scale = append(p.scale, 1)
		p.thr = append(p.thr, []float64{float64(1 + i)})
		w[i] = 1
	}
	w[0] = 2
	X, err = p.las(w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w {
		if want := w[i] * 4 / 9; !near(X[i][0], want, 1e-6) {
			t.Fatalf("X = %v, want 8/9 for the first job and 4/9 for the others", X)
		}
	}
}

// Merging identical jobs into one row of multiplicity changes neither the
// optimum nor the allocation a member gets, up to symmetric optima.
func TestMergedRowsSameOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 20 {
		types := 1 + rng.IntN(3)
		merged := &problem{caps: make([]float64, types)}
		full := &problem{caps: merged.caps}
		for k := range types {
			merged.caps[k] = float64(2 + rng.IntN(10))
		}
		for range 1 + rng.IntN(5) {
			row := make([]float64, types)
			for k := range row {
				row[k] = 0.5 + rng.Float64()
			}
			s := float64(1 + rng.IntN(3))
			c := 1 + rng.IntN(4)
			merged.thr = append(merged.thr, row)
			merged.scale = append(merged.scale, s)
			merged.count = append(merged.count, float64(c))
			for range c {
				full.thr = append(full.thr, row)
				full.scale = append(full.scale, s)
			}
		}
		_, a, err := merged.maxMin(merged.thr, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := full.maxMin(full.thr, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !near(a, b, 1e-7) {
			t.Errorf("instance %d: merged min %v, full %v", n, a, b)
		}
	}
}

// Finish-time fairness on one type: the isolated share gives every job
// ρ = 1 and any other split makes some job's ρ larger, so ρ* = 1 at X = the
// isolated shares, whatever the ages and remaining work.
func TestFTFSingleType(t *testing.T) {
	p := &problem{caps: []float64{1}, scale: []float64{1, 1}, thr: [][]float64{{1}, {1}}}
	X, rho, err := p.ftf([]float64{300, 0}, []float64{100, 300}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if !near(rho, 1, 1e-5) || !near(X[0][0], 0.5, 1e-4) || !near(X[1][0], 0.5, 1e-4) {
		t.Errorf("ρ = %v, X = %v, want 1 at (0.5, 0.5)", rho, X)
	}
}

// Two types of one GPU each, job 1 fast on the first (1 vs 0.1 steps/s),
// job 2 on the second: both fit (isolated fraction 1, spread over the
// types by their GPUs: 0.55 steps/s) and each on its fast type runs at 1,
// so ρ* = 0.55 for both.
func TestFTFHeterogeneous(t *testing.T) {
	p := &problem{caps: []float64{1, 1}, scale: []float64{1, 1}, thr: [][]float64{{1, 0.1}, {0.1, 1}}}
	X, rho, err := p.ftf([]float64{0, 0}, []float64{100, 100}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if !near(rho, 0.55, 1e-5) || !near(X[0][0], 1, 1e-4) || !near(X[1][1], 1, 1e-4) {
		t.Errorf("ρ = %v, X = %v, want 0.55 with each job on its fast type", rho, X)
	}
}

// The closed form on one GPU type reaches the simplex's optimum on random
// programs, with a feasible allocation.
func TestMaxMinOneTypeAgainstSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := range 200 {
		p, coef := randomGavelLP(rng, 1+rng.IntN(15), 1, n%2 == 1)
		if n%3 == 0 {
			p.count = make([]float64, len(p.thr))
			for i := range p.count {
				p.count[i] = float64(1 + rng.IntN(3))
			}
		}
		X, got := p.maxMinOneType(coef)
		prog, _ := p.maxMinLP(coef, 0)
		want := 0.0
		if prog != nil {
			x, _, err := prog.Solve()
			if err != nil {
				t.Fatal(err)
			}
			want = x[len(x)-1]
		}
		if !near(got, want, 1e-9*(1+want)) {
			t.Fatalf("instance %d: closed form %v, simplex %v", n, got, want)
		}
		use := 0.0
		for i := range X {
			use += X[i][0] * p.scale[i] * p.mult(i)
			if X[i][0] < 0 || X[i][0] > 1 || (X[i][0] > 0 && coef[i][0]*X[i][0] < got*(1-1e-9)) {
				t.Fatalf("instance %d: X[%d] = %v below the minimum %v", n, i, X[i][0], got)
			}
		}
		if use > p.caps[0]*(1+1e-9) {
			t.Fatalf("instance %d: %v GPUs used of %v", n, use, p.caps[0])
		}
	}
}
