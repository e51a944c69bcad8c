package sim

import (
	"reflect"
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/policies/optimus"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/policies/tiresias"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// Rounds decided incrementally give the results of full rounds, job by job,
// round by round and record by record, for every policy that implements
// policies.Incremental: on a reference workload, the same overloaded, with
// the workload's order differing from its arrival order, in a closed loop,
// and with interference and step mode; with the changes and no records.
func TestIncrementalRoundsMatchFullRounds(t *testing.T) {
	set := profiles.Default()
	ref := paperPrefix(t, set, 160)
	heavy := cloneWorkload(ref)
	for i := range heavy.Jobs {
		heavy.Jobs[i].Time /= 20 // 160 jobs in 24 minutes: a long queue
	}
	shuffled := cloneWorkload(heavy)
	slices.Reverse(shuffled.Jobs) // keys in the reverse of arrival order
	for i := 0; i+1 < len(shuffled.Jobs); i += 3 {
		shuffled.Jobs[i], shuffled.Jobs[i+1] = shuffled.Jobs[i+1], shuffled.Jobs[i]
	}
	type variant struct {
		name string
		w    *traces.Workload
		cfg  func(*Config)
	}
	variants := []variant{
		{"reference", ref, func(*Config) {}},
		{"overloaded", heavy, func(c *Config) { c.Cluster = policies.Cluster{Nodes: 8, GPUsPerNode: 4} }},
		{"out-of-order", shuffled, func(c *Config) { c.Cluster = policies.Cluster{Nodes: 8, GPUsPerNode: 4} }},
		{"closed-loop", ref, func(c *Config) { c.ClosedLoop = 24 }},
		{"interference-step", heavy, func(c *Config) { c.Interference, c.Step = 0.25, true }},
	}
	builds := map[string]func() policies.Policy{
		"tiresias":       func() policies.Policy { return tiresias.New(0) },
		"tiresias-0.5gh": func() policies.Policy { return tiresias.New(1800) }, // many demotions
		"optimus":        func() policies.Policy { return optimus.New() },
		"fifo":           func() policies.Policy { return fifo.New() },
		"pollux":         func() policies.Policy { return pollux.New(pollux.DefaultOptions()) },
	}
	for _, v := range variants {
		for name, build := range builds {
			for _, mode := range []RoundsMode{RoundsChanges, RoundsNone} {
				cfg := DefaultConfig()
				v.cfg(&cfg)
				cfg.Rounds = mode
				if !Incremental(cfg, build()) {
					t.Fatalf("%s: %s would not run incrementally", v.name, name)
				}
				incr, err := Run(cfg, set, v.w, build())
				if err != nil {
					t.Fatalf("%s, %s, incr: %v", v.name, name, err)
				}
				cfg.FullRounds = true
				full, err := Run(cfg, set, v.w, build())
				if err != nil {
					t.Fatalf("%s, %s, full: %v", v.name, name, err)
				}
				where := v.name + ", " + name + ", rounds " + mode.String()
				if !reflect.DeepEqual(incr.Jobs, full.Jobs) {
					t.Errorf("%s: job results differ", where)
				}
				if !reflect.DeepEqual(noWallStats(incr.RoundStats), noWallStats(full.RoundStats)) {
					t.Errorf("%s: round statistics differ", where)
				}
				if !reflect.DeepEqual(noWall(incr.Rounds), noWall(full.Rounds)) {
					t.Errorf("%s: round records differ (%d and %d)", where, len(incr.Rounds), len(full.Rounds))
				}
				if v.name == "overloaded" && mode == RoundsNone {
					maxPending := 0
					for _, rs := range full.RoundStats {
						maxPending = max(maxPending, rs.Pending)
					}
					if maxPending < 50 {
						t.Errorf("%s: at most %d jobs waited: not overloaded", where, maxPending)
					}
				}
			}
		}
	}
}

func cloneWorkload(w *traces.Workload) *traces.Workload {
	c := *w
	c.Jobs = slices.Clone(w.Jobs)
	return &c
}
