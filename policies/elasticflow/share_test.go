package elasticflow

import (
	"math"
	"math/rand/v2"
	"testing"
)

// linear is the curve of a job whose run time alone on k GPUs is w/k.
func linear(w float64, maxGPUs int) Curve {
	return Levels(maxGPUs, func(k int) float64 { return w / float64(k) })
}

// pow2AtLeast is the smallest power of two ≥ x.
func pow2AtLeast(x float64) int {
	k := 1
	for float64(k) < x {
		k *= 2
	}
	return k
}

// On a linear curve (run time w/k) the minimum satisfactory share with L
// seconds left is the smallest power of two ≥ w/L; on Amdahl's (s + p/k)
// the smallest ≥ p/(L − s), none when L ≤ s or it exceeds the cap. On an
// empty cluster MinShare finds the same share and ends the job at now +
// its run time there.
func TestMinShareClosedForm(t *testing.T) {
	const cap = 64
	for _, w := range []float64{100, 1000, 3600} {
		for _, left := range []float64{10, 33, 100, 250, 999, 1000, 5000} {
			c := linear(w, cap)
			want := pow2AtLeast(w / left)
			if want > cap {
				want = 0
			}
			check(t, c, left, want, "linear")
		}
	}
	for _, s := range []float64{0, 20, 150} {
		for _, left := range []float64{100, 151, 300, 1000} {
			c := amdahl(s, 2000, cap)
			want := 0
			if left > s {
				if k := pow2AtLeast(2000 / (left - s)); k <= cap {
					want = k
				}
			}
			check(t, c, left, want, "amdahl")
		}
	}
}

func check(t *testing.T, c Curve, left float64, want int, name string) {
	t.Helper()
	if got := MinShareAlone(c, left); got != want {
		t.Errorf("%s, %v s left: share %d, want %d", name, left, got, want)
	}
	const now = 500.0
	pl, ok := MinShare(c, NewProfile(now, 64), now+left)
	if ok != (want > 0) || (ok && (pl.Share != want || len(pl.Pieces) != 1)) {
		t.Fatalf("%s, %v s left: MinShare %+v, %v; want share %d in one piece", name, left, pl, ok, want)
	}
	if ok {
		run := 1 / c[c.index(want)].Rate
		if pc := pl.Pieces[0]; pc.GPUs != want || pc.From != now || math.Abs(pl.End-(now+run)) > 1e-9 {
			t.Errorf("%s: plan %+v, want %d GPUs from %v to %v", name, pl, want, now, now+run)
		}
	}
}

// The curve stops at its knee: a count no faster than the one before ends
// it, as does the cap.
func TestLevelsKnee(t *testing.T) {
	times := map[int]float64{1: 100, 2: 60, 4: 40, 8: 40, 16: 20}
	c := Levels(64, func(k int) float64 { return times[k] })
	if len(c) != 3 || c[2].GPUs != 4 {
		t.Errorf("curve %v, want levels 1, 2, 4", c)
	}
	if c := linear(10, 6); len(c) != 3 || c[2].GPUs != 4 {
		t.Errorf("cap 6: %v, want 1, 2, 4", c)
	}
}

// A worked case: 8 GPUs, 6 of them held over [0, 100); a job of 1000
// GPU-seconds (linear) due at 200. Levels 1, 2 and 4 cannot cover it
// (0.2, 0.4, 0.6 of the work), 8 can: 2 GPUs over [0, 100) where only 2
// are free, 8 over [100, 200).
func TestMinShareBackwardFilling(t *testing.T) {
	p := NewProfile(0, 8)
	p.Reserve(&Plan{Pieces: []Piece{{From: 0, To: 100, GPUs: 6}}})
	pl, ok := MinShare(linear(1000, 8), p, 200)
	want := []Piece{{0, 100, 2}, {100, 200, 8}}
	if !ok || pl.Share != 8 || len(pl.Pieces) != 2 || pl.Pieces[0] != want[0] || pl.Pieces[1] != want[1] || pl.End != 200 {
		t.Errorf("plan %+v, %v; want share 8, pieces %v", pl, ok, want)
	}
	// With the deadline at 300 level 4 covers it from the back: 4 GPUs
	// over [100, 300) is 0.8, then 2 over [0, 100) 0.2; nothing is taken
	// before the walk stops, and the job ends at 300.
	pl, ok = MinShare(linear(1000, 8), p, 300)
	if !ok || pl.Share != 4 || pl.End != 300 || pl.At(50) != 2 || pl.At(150) != 4 {
		t.Errorf("deadline 300: plan %+v, %v; want share 4, 2 GPUs then 4", pl, ok)
	}
	// Loose deadline: 1 GPU covers the work within the last segment,
	// [100, 5000); the plan runs from that segment's start, nothing before
	// (there is no level below the first).
	pl, ok = MinShare(linear(1000, 8), p, 5000)
	if !ok || pl.Share != 1 || pl.At(0) != 0 || len(pl.Pieces) != 1 || pl.Pieces[0] != (Piece{100, 1100, 1}) {
		t.Errorf("deadline 5000: plan %+v, %v; want 1 GPU over [100, 1100)", pl, ok)
	}
	// Deadline 350: level 2 covers 2 × 250 + … from the back: [100, 350)
	// at 2 is 0.5, [0, 100) at 2 is 0.2: not enough; level 4: [100, 350)
	// at 4 is 1.0, the walk stops there; the segment before runs at the
	// level below, 2: 0.2, so the job is done at 100 + 0.8·250 = 300.
	pl, ok = MinShare(linear(1000, 8), p, 350)
	if !ok || pl.Share != 4 || pl.At(50) != 2 || pl.At(150) != 4 || math.Abs(pl.End-300) > 1e-9 {
		t.Errorf("deadline 350: plan %+v, %v; want 2 GPUs then 4, done at 300", pl, ok)
	}
}

// On random profiles: a plan never takes more than is free, does the work
// by its end, before the deadline, at levels of at most its share; and no
// smaller level could have done it, the work each level can do being
// summed forward over the segments, independently of MinShare's backward
// walk.
func TestMinShareProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 2000; trial++ {
		p := NewProfile(0, 16)
		for r := rng.IntN(6); r > 0; r-- { // at most 15 of 16 GPUs held
			from := float64(rng.IntN(20)) * 50
			p.Reserve(&Plan{Pieces: []Piece{{From: from, To: from + float64(1+rng.IntN(20))*50, GPUs: 1 + rng.IntN(3)}}})
		}
		if minFree(p) < 0 {
			t.Fatal("test profile over-reserved")
		}
		c := amdahl(float64(rng.IntN(100)), float64(100+rng.IntN(20000)), 16)
		deadline := float64(50 + rng.IntN(1500))
		pl, ok := MinShare(c, p, deadline)
		canDo := func(q int) float64 { // work level cap q does before the deadline
			w := 0.0
			for i := range p.At {
				if a := min(c.atMost(q), c.atMost(p.Free[i])); a >= 0 && p.At[i] < deadline {
					w += (math.Min(p.end(i), deadline) - p.At[i]) * c[a].Rate
				}
			}
			return w
		}
		for _, l := range c {
			if ok && l.GPUs >= pl.Share {
				break
			}
			if canDo(l.GPUs) >= 1+1e-9 {
				t.Fatalf("trial %d: level %d covers the work (%.3f) but MinShare gave %+v, %v", trial, l.GPUs, canDo(l.GPUs), pl, ok)
			}
		}
		if !ok {
			continue
		}
		work := 0.0
		for _, pc := range pl.Pieces {
			i := c.index(pc.GPUs)
			if i < 0 || pc.GPUs > pl.Share || pc.To > deadline+1e-9 || pc.To < pc.From {
				t.Fatalf("trial %d: bad piece %+v of %+v", trial, pc, pl)
			}
			for s := range p.At {
				if p.At[s] < pc.To && p.end(s) > pc.From && p.Free[s] < pc.GPUs {
					t.Fatalf("trial %d: piece %+v takes more than the %d free at %v", trial, pc, p.Free[s], p.At[s])
				}
			}
			work += (pc.To - pc.From) * c[i].Rate
		}
		if math.Abs(work-1) > 1e-9 {
			t.Fatalf("trial %d: plan %+v does %.6f of the work", trial, pl, work)
		}
	}
}

func minFree(p *Profile) int {
	m := math.MaxInt
	for _, f := range p.Free {
		m = min(m, f)
	}
	return m
}

// A job no share can save runs as fast as the profile allows: on 8 GPUs
// with 6 held over [0, 100), a 1000 GPU-second (linear) job takes the 2
// free GPUs, then all 8 from 100 on, done at 100 + 800/8 = 200.
func TestFastest(t *testing.T) {
	p := NewProfile(0, 8)
	p.Reserve(&Plan{Pieces: []Piece{{From: 0, To: 100, GPUs: 6}}})
	pl, ok := Fastest(linear(1000, 8), p)
	want := []Piece{{0, 100, 2}, {100, 200, 8}}
	if !ok || len(pl.Pieces) != 2 || pl.Pieces[0] != want[0] || pl.Pieces[1] != want[1] || pl.End != 200 || pl.Share != 8 {
		t.Errorf("plan %+v, %v; want %v", pl, ok, want)
	}
	if _, ok := MinShare(linear(1000, 8), p, 150); ok {
		t.Error("MinShare met a deadline of 150 that Fastest cannot")
	}
}
