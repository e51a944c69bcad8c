package themis_test

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/conformance"
	"github.com/polluxsim/polluxsim/policies/themis"
)

// ρ in closed form: a job of 4 GPUs, 100 s run, 300 s left, at age 500,
// with 4 jobs on 8 GPUs: its equal share is 2 GPUs, so alone it would
// take 100 + 300·2 = 700 s; shared it ends at 500 + 300 = 800 s, or
// 800 + 600 after waiting a lease.
func TestRhoClosedForm(t *testing.T) {
	for _, tc := range []struct {
		age, wait, ran, rem float64
		g, n, total         int
		want                float64
	}{
		{500, 0, 100, 300, 4, 4, 8, 800.0 / 700},
		{500, 600, 100, 300, 4, 4, 8, 1400.0 / 700},
		{500, 0, 100, 300, 2, 4, 8, 800.0 / 400}, // share = request: no slicing
		{0, 0, 0, 300, 1, 1, 8, 1},               // alone at submission: fair
		{40, 0, 0, 0, 1, 2, 8, 1},                // nothing to measure: 1
		{100, 0, 0, 100, 8, 16, 8, 200.0 / 1600}, // 16 jobs on 8 GPUs: 1/2 GPU each
		{100, 0, 10, math.Inf(1), 1, 2, 8, 1},    // unknown remaining time: 1
		{100, 0, 0, 0, 1, 2, 8, 1},               // neither run nor remaining: 1
	} {
		got := themis.Rho(tc.age, tc.wait, tc.ran, tc.rem, tc.g, tc.n, tc.total)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Rho%+v = %v, want %v", tc, got, tc.want)
		}
	}
}

// logValue is Σ log v_i of an allocation a (GPUs per bidder): a bidder
// values a ≥ its request at win, less at lose.
func logValue(a, gpus []int, win, lose []float64, skip int) float64 {
	s := 0.0
	for i := range a {
		if i == skip {
			continue
		}
		if a[i] >= gpus[i] {
			s += math.Log(win[i])
		} else {
			s += math.Log(lose[i])
		}
	}
	return s
}

// brute is the largest Σ log v_i over every integer allocation of at most
// free GPUs among the bidders (skip gets none).
func brute(gpus []int, win, lose []float64, free, skip int) float64 {
	best := math.Inf(-1)
	a := make([]int, len(gpus))
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == len(gpus) {
			best = math.Max(best, logValue(a, gpus, win, lose, skip))
			return
		}
		hi := left
		if i == skip {
			hi = 0
		}
		for x := 0; x <= hi; x++ {
			a[i] = x
			rec(i+1, left-x)
		}
		a[i] = 0
	}
	rec(0, free)
	return best
}

// The auction on every case of 2 and 3 bidders asking for 1–4 GPUs with
// valuations from a small grid, on 1–8 free GPUs: the winners fit, their
// product of valuations is the largest over every integer allocation
// (brute force), and each winner's fraction is the PA mechanism's
// Π_{j≠i} v_j(PF) / Π_{j≠i} v_j(PF without i), also by brute force.
func TestAuctionExhaustive(t *testing.T) {
	vals := [][2]float64{{1, 0.5}, {0.8, 0.7}, {0.3, 0.1}, {2, 0.9}}
	cases := 0
	for n := 2; n <= 3; n++ {
		codes := 1
		for range n {
			codes *= 4 * len(vals)
		}
		for code := 0; code < codes; code++ {
			x := code
			gpus := make([]int, n)
			win, lose := make([]float64, n), make([]float64, n)
			for i := range n {
				gpus[i] = 1 + x%4
				x /= 4
				win[i], lose[i] = vals[x%len(vals)][0], vals[x%len(vals)][1]
				x /= len(vals)
			}
			for free := 1; free <= 8; free++ {
				cases++
				won, c := themis.Auction(gpus, win, lose, free)
				a := make([]int, n)
				used := 0
				for i := range n {
					if won[i] {
						a[i] = gpus[i]
						used += gpus[i]
					}
				}
				if used > free {
					t.Fatalf("gpus %v, %d free: winners %v use %d", gpus, free, won, used)
				}
				got, want := logValue(a, gpus, win, lose, -1), brute(gpus, win, lose, free, -1)
				if math.Abs(got-want) > 1e-9 {
					t.Fatalf("gpus %v win %v lose %v, %d free: winners %v value %v, brute force %v", gpus, win, lose, free, won, got, want)
				}
				for i := range n {
					wantC := 0.0
					if won[i] {
						wantC = math.Min(1, math.Exp(logValue(a, gpus, win, lose, i)-brute(gpus, win, lose, free, i)))
					}
					if math.Abs(c[i]-wantC) > 1e-9 || c[i] < 0 || c[i] > 1 {
						t.Fatalf("gpus %v win %v lose %v, %d free: c[%d] = %v, want %v", gpus, win, lose, free, i, c[i], wantC)
					}
				}
			}
		}
	}
	if cases < 1000 {
		t.Fatalf("only %d cases", cases)
	}
}

// A competing bidder pays: two bidders of 2 GPUs on 2 free GPUs; the one
// that values winning more wins and keeps the fraction lose_other/win_other
// of its lease (what its presence costs the other).
func TestAuctionPayment(t *testing.T) {
	won, c := themis.Auction([]int{2, 2}, []float64{1, 0.8}, []float64{0.5, 0.6}, 2)
	if !won[0] || won[1] {
		t.Fatalf("winners %v, want the first", won)
	}
	if want := 0.6 / 0.8; math.Abs(c[0]-want) > 1e-12 {
		t.Fatalf("c = %v, want %v", c[0], want)
	}
	// Equal bids: the first listed (the worse ρ) wins.
	if won, _ := themis.Auction([]int{2, 2, 2}, []float64{1, 1, 1}, []float64{0.5, 0.5, 0.5}, 4); !won[0] || !won[1] || won[2] {
		t.Fatalf("equal bids: winners %v, want the first two", won)
	}
	// Alone, no one pays.
	if _, c := themis.Auction([]int{2, 2}, []float64{1, 0.8}, []float64{0.5, 0.6}, 4); c[0] != 1 || c[1] != 1 {
		t.Fatalf("c = %v with room for both, want 1, 1", c)
	}
}

// oracle gives a job `left` remaining seconds at 1 s per step (the
// methods Themis does not call are left to the nil embedded Oracle).
type oracle struct {
	policies.Oracle
	left float64
}

func (o oracle) RemainingIterations(int) float64          { return o.left }
func (oracle) IterTime(_ []int, _ float64, _ int) float64 { return 1 }

// Leases: on one node of 4 GPUs, job a holds all 4; b arrives. a keeps its
// GPUs until its lease ends, then the auction (f = 0: everyone bids) gives
// them to b, the one furthest from fair, whose lease then runs.
func TestLeases(t *testing.T) {
	o := themis.DefaultOptions()
	o.Fairness = 0
	p := themis.New(o)
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	a := policies.Job{Name: "a", Request: policies.Request{GPUs: 4, Batch: 128}, Oracle: oracle{left: 1000}}
	d := p.Schedule(0, c, []policies.Job{a})
	if policies.Sum(d.Alloc[0]) != 4 {
		t.Fatalf("a alone gets %v", d.Alloc[0])
	}
	a.Alloc = d.Alloc[0]
	for now := 60.0; now < o.LeaseSeconds; now += 60 {
		a.Age, a.Attained = now, 4*now
		b := policies.Job{Name: "b", Submit: 60, Age: now - 60, Request: policies.Request{GPUs: 4, Batch: 128}, Oracle: oracle{left: 1000}}
		d = p.Schedule(now, c, []policies.Job{a, b})
		if policies.Sum(d.Alloc[0]) != 4 || d.Alloc[1] != nil {
			t.Fatalf("at %v, within a's lease: %v", now, d.Alloc)
		}
	}
	now := o.LeaseSeconds
	a.Age, a.Attained = now, 4*now
	b := policies.Job{Name: "b", Submit: 60, Age: now - 60, Request: policies.Request{GPUs: 4, Batch: 128}, Oracle: oracle{left: 1000}}
	d = p.Schedule(now, c, []policies.Job{a, b})
	if d.Alloc[0] != nil || policies.Sum(d.Alloc[1]) != 4 {
		t.Fatalf("at %v, a's lease over: %v, want b to run", now, d.Alloc)
	}
	a.Alloc, b.Alloc = nil, d.Alloc[1]
	for now := o.LeaseSeconds + 60; now < 2*o.LeaseSeconds; now += 60 {
		a.Age, b.Age = now, now-60
		d = p.Schedule(now, c, []policies.Job{a, b})
		if d.Alloc[0] != nil || policies.Sum(d.Alloc[1]) != 4 {
			t.Fatalf("at %v, within b's lease: %v", now, d.Alloc)
		}
	}
}

// The option bounds reject what lies outside them.
func TestOptionsBounds(t *testing.T) {
	for _, o := range []themis.Options{{LeaseSeconds: 0, Fairness: 0.8}, {LeaseSeconds: 2e6, Fairness: 0.8}, {LeaseSeconds: 600, Fairness: -0.1}, {LeaseSeconds: 600, Fairness: 1.5}, {LeaseSeconds: math.NaN(), Fairness: 0.8}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	o := themis.DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The conformance suite, at the defaults and with every job bidding.
func TestConformance(t *testing.T) {
	reg := builtin.Registry()
	t.Run("default", func(t *testing.T) { conformance.Run(t, reg, themis.Name) })
	t.Run("all-bid", func(t *testing.T) { conformance.Run(t, reg, themis.Name, "fairness_knob=0", "lease_s=60") })
}
