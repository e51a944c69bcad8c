// Package themis implements Themis (Mahajan et al., NSDI'20, "Themis:
// Fair and Efficient GPU Cluster Scheduling"): finish-time fairness,
// leases, and a partial-allocation auction among the jobs furthest from
// fair.
//
// A job's finish-time fairness is ρ = T_shared / T_independent: its
// expected completion time (since submission) in the shared cluster over
// the one it would have alone on a 1/N share of the cluster, N the number
// of active jobs (Rho). Jobs run at the GPUs and batch size their users
// asked for (gang-scheduled, as in ElasticFlow's artifact), their
// remaining time taken from the ground truth through the oracle (Themis'
// agents report it; Gavel's policies here use the oracle alike).
//
// Every round, a job holding GPUs under an unexpired lease keeps them.
// When GPUs are free, the jobs without a lease are ranked by ρ and the
// fraction 1−f with the worst ρ (at least one) bid: each bid is the job's
// ρ as a function of the GPUs it would get for the next lease. The
// arbiter chooses the allocation maximising the product of the bidders'
// valuations 1/ρ (proportional fairness, Auction), and each winner i
// keeps a fraction c_i of it, the partial-allocation mechanism's hidden
// payment: c_i = Π_{j≠i} v_j(PF) / Π_{j≠i} v_j(PF without i). A gang job
// cannot run on a fraction of its GPUs, so the fraction applies to the
// lease instead: winner i holds its GPUs for c_i · lease. The GPUs the
// auction leaves are handed to the other jobs, the worst ρ first,
// work-conserving, for a full lease. docs/themis.md gives the formulas,
// ElasticFlow's artifact's choices and the differences from gavel-ftf.
package themis

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "themis"

// Options are Themis' user-settable options.
type Options struct {
	// LeaseSeconds is the lease length.
	LeaseSeconds float64 `option:"lease_s" doc:"lease length in seconds, in (0, 1e6] (the paper's default: 600; ElasticFlow's artifact: its scheduling slot, 60 or 240)"`
	// Fairness is the knob f: the fraction 1−f of the jobs without a
	// lease, the worst ρ first, bid in the auction.
	Fairness float64 `option:"fairness_knob" doc:"Themis' fairness knob f, in [0, 1]: the fraction 1-f of the jobs without a lease with the worst finish-time fairness bid (at least one); the paper's default 0.8"`
}

// DefaultOptions are the paper's defaults: 10-minute leases, f = 0.8.
func DefaultOptions() Options { return Options{LeaseSeconds: 600, Fairness: 0.8} }

// Validate checks the options' bounds.
func (o *Options) Validate() error {
	if !(o.LeaseSeconds > 0 && o.LeaseSeconds <= 1e6) {
		return fmt.Errorf("lease_s must be in (0, 1e6], got %v", o.LeaseSeconds)
	}
	if !(o.Fairness >= 0 && o.Fairness <= 1) {
		return fmt.Errorf("fairness_knob must be in [0, 1], got %v", o.Fairness)
	}
	return nil
}

// Policy is a Themis scheduler. It keeps the leases between rounds.
type Policy struct {
	opt Options
	// lease is each job's lease end (by name) while it holds GPUs.
	lease map[string]float64
}

var _ policies.Policy = (*Policy)(nil)

// New returns a Themis policy with options o (validated by the caller).
func New(o Options) *Policy { return &Policy{opt: o, lease: map[string]float64{}} }

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "Themis: finish-time fairness with leases and a partial-allocation auction among the jobs furthest from fair, at the requested GPUs and batch",
	}, DefaultOptions, func(o Options, _ policies.Env) (policies.Policy, error) {
		if err := o.Validate(); err != nil {
			return nil, err
		}
		return New(o), nil
	})
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes, the
// oracle for the remaining time.
func (*Policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true, NeedsOracle: true} }

// Rho is Themis' finish-time fairness of a job that has run for `ran`
// seconds (its attained service over its GPUs) at age `age`, with `rem`
// seconds left on its g requested GPUs, N active jobs sharing `total`
// GPUs, if it waits `wait` seconds before it runs again:
//
//	T_shared      = age + wait + rem
//	T_independent = ran + rem · max(1, g·N / total)
//	ρ             = T_shared / T_independent  (1 where that is not finite and positive)
//
// T_independent is the job's time from submission alone on an equal
// 1/N share: its g GPUs time-sliced to total/N when that is fewer.
func Rho(age, wait, ran, rem float64, g, n, total int) float64 {
	tid := ran + rem*math.Max(1, float64(g)*float64(n)/float64(max(total, 1)))
	if r := (age + wait + rem) / tid; r > 0 && !math.IsInf(r, 0) {
		return r
	}
	return 1 // nothing to measure (T_independent 0) or an unknown remaining time
}

// Auction returns the proportional-fair allocation among bidders asking
// for gpus[i] GPUs each (all or nothing) out of free GPUs: the set that
// maximises Π_i v_i with v_i = win[i] if i gets its GPUs, lose[i]
// otherwise (valuations > 0), and each winner's partial-allocation
// fraction c_i (0 for losers). Among allocations of equal value the
// bidders listed first win (Schedule lists them the worst ρ first).
func Auction(gpus []int, win, lose []float64, free int) (won []bool, c []float64) {
	won = knapsack(gpus, win, lose, free, -1)
	c = make([]float64, len(gpus))
	value := func(set []bool, skip int) float64 {
		s := 0.0
		for i := range gpus {
			if i == skip {
				continue
			}
			if set[i] {
				s += math.Log(win[i])
			} else {
				s += math.Log(lose[i])
			}
		}
		return s
	}
	for i := range gpus {
		if !won[i] {
			continue
		}
		without := knapsack(gpus, win, lose, free, i)
		c[i] = math.Min(1, math.Exp(value(won, i)-value(without, i)))
	}
	return won, c
}

// knapsack maximises Σ log v_i over the bidders (skip excluded) by dynamic
// programming over the free GPUs. A bidder is taken only where that
// strictly raises the value over the bidders before it left out, so among
// equal allocations the bidders listed first win.
func knapsack(gpus []int, win, lose []float64, free, skip int) []bool {
	n := len(gpus)
	// best[i][f]: the largest gain Σ log(win/lose) over bidders 0..i-1 on f GPUs.
	best := make([][]float64, n+1)
	for i := range best {
		best[i] = make([]float64, free+1)
	}
	for i := 0; i < n; i++ {
		gain := math.Log(win[i]) - math.Log(lose[i])
		for f := 0; f <= free; f++ {
			best[i+1][f] = best[i][f]
			if i != skip && gpus[i] <= f && gain > 0 {
				if v := gain + best[i][f-gpus[i]]; v > best[i+1][f] {
					best[i+1][f] = v
				}
			}
		}
	}
	set := make([]bool, n)
	f := free
	for i := n - 1; i >= 0; i-- {
		if best[i+1][f] != best[i][f] {
			set[i] = true
			f -= gpus[i]
		}
	}
	return set
}

// Schedule implements policies.Policy.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	alloc := make([][]int, len(jobs))
	active := make(map[string]bool, len(jobs))
	var open []int // jobs without a running lease
	for i := range jobs {
		j := &jobs[i]
		active[j.Name] = true
		end, ok := p.lease[j.Name]
		if ok && policies.Sum(j.Alloc) == j.Request.GPUs && now < end {
			alloc[i] = slices.Clone(j.Alloc)
			continue
		}
		delete(p.lease, j.Name)
		open = append(open, i)
	}
	for name := range p.lease {
		if !active[name] {
			delete(p.lease, name)
		}
	}
	free := policies.FreeGPUs(c, alloc)
	left := policies.Sum(free)
	if left == 0 || len(open) == 0 {
		return policies.Decision{Alloc: alloc}
	}
	// ρ of each open job if it runs now and if it waits a lease.
	total := c.TotalGPUs()
	now1, wait := make([]float64, len(jobs)), make([]float64, len(jobs))
	for _, i := range open {
		j := &jobs[i]
		g := max(j.Request.GPUs, 1)
		rem := j.RunTimeAlone(c, j.Request.GPUs)
		ran := j.Attained / float64(g)
		now1[i] = Rho(j.Age, 0, ran, rem, g, len(jobs), total)
		wait[i] = Rho(j.Age, p.opt.LeaseSeconds, ran, rem, g, len(jobs), total)
	}
	slices.SortStableFunc(open, func(a, b int) int { return -cmp.Compare(now1[a], now1[b]) })
	nb := max(1, int(math.Ceil((1-p.opt.Fairness)*float64(len(open))-1e-9)))
	bidders := open[:min(nb, len(open))]
	gpus := make([]int, len(bidders))
	win, lose := make([]float64, len(bidders)), make([]float64, len(bidders))
	for b, i := range bidders {
		gpus[b] = jobs[i].Request.GPUs
		win[b], lose[b] = 1/now1[i], 1/wait[i]
	}
	won, frac := Auction(gpus, win, lose, left)
	leases := map[int]float64{} // the chosen jobs and their lease lengths
	for b, i := range bidders {
		if won[b] {
			leases[i] = frac[b] * p.opt.LeaseSeconds
			left -= gpus[b]
		}
	}
	// The leftover goes to the others, the worst ρ first (work-conserving).
	for _, i := range open {
		if _, ok := leases[i]; !ok && jobs[i].Request.GPUs <= left {
			leases[i] = p.opt.LeaseSeconds
			left -= jobs[i].Request.GPUs
		}
	}
	// Chosen jobs that can keep their nodes keep them; the others are
	// placed on the nodes with the most free GPUs, in ρ order.
	for _, i := range open {
		if _, ok := leases[i]; ok && keeps(free, jobs[i].Alloc, jobs[i].Request.GPUs) {
			alloc[i] = slices.Clone(jobs[i].Alloc)
			for n, g := range alloc[i] {
				free[n] -= g
			}
		}
	}
	for _, i := range open {
		if _, ok := leases[i]; ok && alloc[i] == nil {
			alloc[i] = policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
		}
		if alloc[i] != nil {
			p.lease[jobs[i].Name] = now + leases[i]
		}
	}
	return policies.Decision{Alloc: alloc}
}

// keeps reports whether a job holding alloc (its g requested GPUs) can
// keep it within free.
func keeps(free, alloc []int, g int) bool {
	if policies.Sum(alloc) != g || g == 0 {
		return false
	}
	for n, a := range alloc {
		if n >= len(free) || a > free[n] {
			return false
		}
	}
	return true
}
