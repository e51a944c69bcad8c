package sim

import "fmt"

// RoundsMode selects which per-job round records a run produces.
type RoundsMode int

const (
	// RoundsAll records every active job after every round (the default).
	RoundsAll RoundsMode = iota
	// RoundsChanges records a job only in the rounds where it became
	// active or its phase, GPUs, nodes, per-GPU batch, accumulation steps
	// or total batch changed. A row holds until the job's next row or its
	// finish: a reader expands the rows by carrying each forward. The
	// continuous columns (PGNS, efficiency, goodput, progress) are the
	// values at the round of the row.
	RoundsChanges
	// RoundsNone records no per-job rows (round statistics are kept).
	RoundsNone
)

// RoundsModes lists the modes' names in order.
func RoundsModes() []string { return []string{"all", "changes", "none"} }

func (m RoundsMode) String() string {
	if m < 0 || int(m) >= len(RoundsModes()) {
		return fmt.Sprintf("RoundsMode(%d)", int(m))
	}
	return RoundsModes()[m]
}

// ParseRoundsMode reads "all", "changes" or "none".
func ParseRoundsMode(s string) (RoundsMode, error) {
	for i, name := range RoundsModes() {
		if s == name {
			return RoundsMode(i), nil
		}
	}
	return 0, fmt.Errorf("rounds mode must be all, changes or none, got %q", s)
}

// RoundSink receives the round records of a run as it goes, one call per
// scheduling round (not called for rounds without records), so that a
// long run need not hold them all. The slice is reused after the call
// returns; a sink keeps copies. An error stops the run.
type RoundSink interface {
	WriteRounds(recs []RoundRecord) error
}

// recKey is what RoundsChanges compares between a job's rounds.
type recKey struct {
	phase                            phase
	gpus, nodes, local, accum, batch int
	valid                            bool
}

// roundRecorder turns the engine's state after each round into round records
// and statistics.
type roundRecorder struct {
	mode RoundsMode
	sink RoundSink
	buf  []RoundRecord
}

// record appends the round's statistics to r and emits its records:
// to the sink if there is one, into r.Rounds otherwise.
func (rc *roundRecorder) record(r *Result, now, wall float64, active []*job) error {
	gpus, running := 0, 0
	eff := 0.0
	rc.buf = rc.buf[:0]
	for _, j := range active {
		rec := RoundRecord{Phase: "pending"}
		if j.gpus > 0 {
			gpus += j.gpus
			pf := j.app.Perf(j.placement, j.local, j.accum, j.epoch)
			rec.Phase = j.phase.String()
			rec.Efficiency, rec.Goodput = pf.Efficiency, pf.Goodput*(1-j.slowdown)
			eff += rec.Efficiency
			running++
		}
		if rc.mode == RoundsNone {
			continue
		}
		key := recKey{phase: j.phase, gpus: j.gpus, nodes: j.nodes, local: j.local, accum: j.accum, batch: j.batch, valid: true}
		if j.gpus == 0 {
			key.phase = phasePending
		}
		if rc.mode == RoundsChanges && key == j.lastRec {
			continue
		}
		j.lastRec = key
		rec.Time, rec.Job, rec.App = now, j.spec.Name, j.spec.App
		rec.GPUs, rec.Nodes, rec.Local, rec.Accum, rec.Batch = j.gpus, j.nodes, j.local, j.accum, j.batch
		rec.PGNS = j.agent.grad.PGNS(float64(j.app.Limits.InitBatch))
		rec.Progress = j.progress / j.target()
		rec.PolicySeconds = wall
		rc.buf = append(rc.buf, rec)
	}
	if running > 0 {
		eff /= float64(running)
	}
	r.RoundStats = append(r.RoundStats, RoundStat{Time: now, Active: len(active), Running: running, GPUs: gpus, Efficiency: eff, PolicySeconds: wall})
	if len(rc.buf) == 0 {
		return nil
	}
	if rc.sink != nil {
		return rc.sink.WriteRounds(rc.buf)
	}
	r.Rounds = append(r.Rounds, rc.buf...)
	return nil
}
