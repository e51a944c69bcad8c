package sim

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/policies/tiresias"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// collect is a RoundSink that keeps copies of what it receives.
type collect struct {
	recs  []RoundRecord
	calls int
}

func (c *collect) WriteRounds(recs []RoundRecord) error {
	c.calls++
	c.recs = append(c.recs, recs...)
	return nil
}

// paperPrefix is the first n jobs of the embedded reference workload 1.
func paperPrefix(t *testing.T, set *profiles.Set, n int) *traces.Workload {
	t.Helper()
	w, _, err := traces.ReadPaper(traces.PaperName(traces.ConfigTuned, 1), traces.ReadOptions{Apps: set.Names()})
	if err != nil {
		t.Fatal(err)
	}
	w.Jobs = w.Jobs[:n]
	return w
}

func noWall(recs []RoundRecord) []RoundRecord {
	out := append([]RoundRecord(nil), recs...)
	for i := range out {
		out[i].PolicySeconds = 0
	}
	return out
}

func noWallStats(stats []RoundStat) []RoundStat {
	out := append([]RoundStat(nil), stats...)
	for i := range out {
		out[i].PolicySeconds = 0
	}
	return out
}

// The rounds mode and a sink change only which round records are kept and
// where they go: job results and round statistics are the same; a sink
// receives exactly the records Result.Rounds would hold; the changes
// mode's rows, carried forward, give every row of the full record's
// discrete columns.
func TestRoundsModes(t *testing.T) {
	set := profiles.Default()
	for _, tc := range []struct {
		mk   func() policies.Policy
		jobs int
	}{
		{func() policies.Policy { return tiresias.New(tiresias.DefaultThreshold) }, 40},
		{func() policies.Policy { return pollux.New(pollux.DefaultOptions()) }, 20},
	} {
		mk, w := tc.mk, paperPrefix(t, set, tc.jobs)
		name := mk().Name()
		run := func(mode RoundsMode, sink RoundSink) *Result {
			cfg := DefaultConfig()
			cfg.Rounds, cfg.RoundSink = mode, sink
			res, err := Run(cfg, set, w, mk())
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		all := run(RoundsAll, nil)
		sink := &collect{}
		streamed := run(RoundsAll, sink)
		changes := run(RoundsChanges, nil)
		none := run(RoundsNone, nil)
		if len(all.Rounds) == 0 || len(streamed.Rounds) != 0 || len(none.Rounds) != 0 {
			t.Fatalf("%s: %d rounds kept, %d with a sink, %d with none", name, len(all.Rounds), len(streamed.Rounds), len(none.Rounds))
		}
		if !reflect.DeepEqual(noWall(sink.recs), noWall(all.Rounds)) {
			t.Errorf("%s: the sink received other records than Result.Rounds holds", name)
		}
		if sink.calls != len(all.RoundStats) {
			t.Errorf("%s: sink called %d times for %d rounds", name, sink.calls, len(all.RoundStats))
		}
		for _, r := range []*Result{streamed, changes, none} {
			if !reflect.DeepEqual(r.Jobs, all.Jobs) || !reflect.DeepEqual(noWallStats(r.RoundStats), noWallStats(all.RoundStats)) {
				t.Errorf("%s: rounds mode %s changed the results", name, r.Config.Rounds)
			}
		}
		// Round statistics agree with the records.
		eff := map[float64][2]float64{}
		for _, rr := range all.Rounds {
			if rr.GPUs > 0 {
				e := eff[rr.Time]
				eff[rr.Time] = [2]float64{e[0] + rr.Efficiency, e[1] + 1}
			}
		}
		for _, rs := range all.RoundStats {
			want := 0.0
			if e := eff[rs.Time]; e[1] > 0 {
				want = e[0] / e[1]
			}
			if diff := rs.Efficiency - want; diff > 1e-12 || diff < -1e-12 {
				t.Errorf("%s: round %v efficiency %v, records give %v", name, rs.Time, rs.Efficiency, want)
				break
			}
		}
		// Expand the changes: carry each job's last row forward.
		if !(len(changes.Rounds) < len(all.Rounds)) {
			t.Errorf("%s: changes kept %d of %d rows", name, len(changes.Rounds), len(all.Rounds))
		}
		// Rows come in the order their durations became known: sort them
		// by round (stably, keeping the workload order within one).
		sorted := slices.Clone(changes.Rounds)
		slices.SortStableFunc(sorted, func(a, b RoundRecord) int { return cmp.Compare(a.Time, b.Time) })
		changes.Rounds = sorted
		// A job's rows sum to its time from its first round to its finish,
		// in both modes.
		finish := map[string]float64{}
		for _, j := range all.Jobs {
			finish[j.Name] = j.Finish
		}
		for _, rows := range [][]RoundRecord{all.Rounds, changes.Rounds} {
			sum, first := map[string]float64{}, map[string]float64{}
			for _, rr := range rows {
				if _, ok := first[rr.Job]; !ok {
					first[rr.Job] = rr.Time
				}
				sum[rr.Job] += rr.Duration
			}
			for job, d := range sum {
				if want := finish[job] - first[job]; math.Abs(d-want) > 1e-6*math.Max(1, want) {
					t.Fatalf("%s: job %s's rows last %v s in all, want finish − first round = %v", name, job, d, want)
				}
			}
		}
		last := map[string]RoundRecord{}
		k := 0
		for _, rr := range all.Rounds {
			for k < len(changes.Rounds) && changes.Rounds[k].Time <= rr.Time {
				last[changes.Rounds[k].Job] = changes.Rounds[k]
				k++
			}
			c, ok := last[rr.Job]
			if !ok || c.Phase != rr.Phase || c.GPUs != rr.GPUs || c.Nodes != rr.Nodes ||
				c.Local != rr.Local || c.Accum != rr.Accum || c.Batch != rr.Batch {
				t.Fatalf("%s: job %s at %v: expanded changes give %+v, the full record %+v", name, rr.Job, rr.Time, c, rr)
			}
			cd, rd := c, rr
			cd.Duration, rd.Duration = 0, 0
			if c.Time == rr.Time && !reflect.DeepEqual(noWall([]RoundRecord{cd}), noWall([]RoundRecord{rd})) {
				t.Fatalf("%s: a changes row differs from the full row of its round: %+v vs %+v", name, c, rr)
			}
		}
	}
}

func TestParseRoundsMode(t *testing.T) {
	for _, s := range RoundsModes() {
		m, err := ParseRoundsMode(s)
		if err != nil || m.String() != s {
			t.Errorf("%q: %v %v", s, m, err)
		}
	}
	if _, err := ParseRoundsMode("some"); err == nil || !strings.Contains(err.Error(), "all, changes or none") {
		t.Errorf("bad mode: %v", err)
	}
}

// A sink's error stops the run with that error.
func TestRoundSinkError(t *testing.T) {
	set := profiles.Default()
	w := paperPrefix(t, set, 5)
	cfg := DefaultConfig()
	cfg.RoundSink = failSink{}
	if _, err := Run(cfg, set, w, tiresias.New(tiresias.DefaultThreshold)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("got %v", err)
	}
}

type failSink struct{}

func (failSink) WriteRounds([]RoundRecord) error { return errDiskFull }

var errDiskFull = &sinkErr{"disk full"}

type sinkErr struct{ s string }

func (e *sinkErr) Error() string { return e.s }
