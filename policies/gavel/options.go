package gavel

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/kv"
)

// Options are the Gavel policies' user-settable options.
type Options struct {
	// RoundSeconds is the length of Gavel's scheduling round.
	RoundSeconds float64 `option:"round_s" doc:"round length in seconds, in (0, 1e6] as --interval: allocations change only at round boundaries (Gavel's default: 360)"`
	// Weights are priority weights per application, "app=w,app=w"
	// (gavel-las; others weigh 1).
	Weights string `option:"weights" for:"gavel-las" doc:"gavel-las priority weights per application, e.g. 'bert=2,ncf=0.5' (others 1), each in (0, 1e6]; a job's share grows with its weight"`
	// Tolerance is gavel-ftf's relative precision of the finish-time ratio.
	Tolerance float64 `option:"ftf_tol" for:"gavel-ftf" doc:"gavel-ftf: relative precision of the bisection on the largest finish-time ratio, in (0, 1)"`
	// Normalise selects gavel-throughput's objective: false (default) the
	// sum of raw throughputs, as Gavel's code (max_sum_throughput.py);
	// true each job's throughputs divided by their sum over types.
	Normalise bool `option:"normalise" for:"gavel-throughput" doc:"gavel-throughput: maximise the sum of each job's throughputs divided by their sum over GPU types (the normalised form); false (default): the sum of raw steps per second, as Gavel's scheduler/policies/max_sum_throughput.py does (it computes the normalisation and never uses it)"`
	// LP selects how gavel-throughput's program is solved.
	LP string `option:"lp" for:"gavel-throughput" doc:"gavel-throughput: how its program is solved: simplex (default: an optimal vertex) or interior (the end of the central path, the analytic centre of the optimal face, as the interior-point solver ECOS that Gavel's code and the Sia artifact call through cvxpy returns it: where several allocations are optimal it spreads the time fractions instead of concentrating them)"`
	// Placement selects how a round's picks are placed on nodes.
	Placement string `option:"placement" doc:"how a round's jobs are placed on their type's nodes: packed (default: a job that stays keeps its GPUs, the others go to the nodes with the most free GPUs) or workers (Gavel's code as the Sia artifact runs it, gavel.py schedule_jobs_on_workers: jobs in decreasing GPU count take free GPUs in worker order from a pointer that only moves forward, so a job may span more nodes than it needs)"`
	// Ties selects the order of equal priorities and time fractions.
	Ties string `option:"ties" doc:"order of (job, type) pairs of equal priority and time fraction: current (default: the job's current type first, then submission order) or type (the GPU types' order, then submission order, as the Sia artifact's gavel.py stable sort of its per-type queues)"`
	// Share selects the rounds' priority denominator (see the package
	// documentation, Rounds).
	Share string `option:"share" doc:"the share a round's priority X / share divides by: type (default, Gavel's code as the Sia artifact runs it: the job's time on the GPU type over all jobs' time there, a new job starting at half a round on every type, never reset) or job (the share of the job's own rounds it ran on the type)"`
}

// The values of Options.Placement and Options.Ties.
const (
	PlacePacked  = "packed"
	PlaceWorkers = "workers"
	TiesCurrent  = "current"
	TiesType     = "type"
	LPSimplex    = "simplex"
	LPInterior   = "interior"
)

// The values of Options.Share.
const (
	ShareType = "type"
	ShareJob  = "job"
)

// DefaultOptions are Gavel's defaults: 6-minute rounds, equal weights,
// the raw-throughput objective and the priorities of Gavel's code.
func DefaultOptions() Options {
	return Options{RoundSeconds: 360, Tolerance: 1e-3, Share: ShareType, Placement: PlacePacked, Ties: TiesCurrent, LP: LPSimplex}
}

// Bounds of the options: a round as long as the longest --interval, and
// weights whose ratios the program still resolves.
const (
	maxRoundSeconds = 1e6
	maxWeight       = 1e6
)

// Validate checks the options against their bounds.
func (o *Options) Validate() error {
	if !(o.RoundSeconds > 0 && o.RoundSeconds <= maxRoundSeconds) {
		// Longer rounds hold arrivals past any run's end (1e308 ground to
		// the time limit).
		return fmt.Errorf("round_s must be in (0, %g] seconds, got %v", float64(maxRoundSeconds), o.RoundSeconds)
	}
	if !(o.Tolerance > 0 && o.Tolerance < 1) {
		return fmt.Errorf("ftf_tol must be in (0, 1), got %v", o.Tolerance)
	}
	if o.Share != ShareType && o.Share != ShareJob {
		return fmt.Errorf("share must be %s or %s, got %q", ShareType, ShareJob, o.Share)
	}
	// Empty is the default (Options built field by field).
	if o.Placement != "" && o.Placement != PlacePacked && o.Placement != PlaceWorkers {
		return fmt.Errorf("placement must be %s or %s, got %q", PlacePacked, PlaceWorkers, o.Placement)
	}
	if o.LP != "" && o.LP != LPSimplex && o.LP != LPInterior {
		return fmt.Errorf("lp must be %s or %s, got %q", LPSimplex, LPInterior, o.LP)
	}
	if o.Ties != "" && o.Ties != TiesCurrent && o.Ties != TiesType {
		return fmt.Errorf("ties must be %s or %s, got %q", TiesCurrent, TiesType, o.Ties)
	}
	_, err := parseWeights(o.Weights)
	return err
}

// parseWeights reads "app=w,app=w" into a map of positive weights.
func parseWeights(s string) (map[string]float64, error) {
	w := map[string]float64{}
	if strings.TrimSpace(s) == "" {
		return w, nil
	}
	for _, item := range strings.Split(s, ",") {
		p, err := kv.Cut(item)
		if err != nil {
			return nil, fmt.Errorf("weights: %q is not app=weight", item)
		}
		app := p.Key
		v, err := strconv.ParseFloat(p.Value, 64)
		if err != nil || !(v > 0 && v <= maxWeight) {
			return nil, fmt.Errorf("weights: %q: the weight must be a number in (0, %g]", item, float64(maxWeight))
		}
		if _, dup := w[app]; dup {
			return nil, fmt.Errorf("weights: application %q given twice", app)
		}
		w[app] = v
	}
	return w, nil
}

// CheckApps implements policies.AppChecker: every application the weights
// name must be one of known (weights=bret=2 was silently ignored).
func (p *Policy) CheckApps(known []string) error {
	ok := make(map[string]bool, len(known))
	for _, a := range known {
		ok[a] = true
	}
	names := make([]string, 0, len(p.weights))
	for a := range p.weights {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if !ok[a] {
			return fmt.Errorf("policy %s: option weights: unknown application %q (known: %s)", p.name, a, strings.Join(known, ", "))
		}
	}
	return nil
}
