package sim

import (
	"fmt"
	"math"
	"sort"
)

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
	// values at the round of the row. A row's Duration spans every round
	// it stands for: the sum of the Durations of the rows it expands to
	// (until the job's next row, or for its last row until the round
	// after the job's finish or the finish, whichever comes first).
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

// RoundSink receives the round records of a run as it goes, in batches
// (not called with an empty one), so that a long run need not hold them
// all. A record is passed once its duration is known: at the next round
// or the job's finish (at most one record per active job is held back).
// The slice is reused after the call returns; a sink keeps copies. An
// error stops the run.
type RoundSink interface {
	WriteRounds(recs []RoundRecord) error
}

// recKey is what RoundsChanges compares between a job's rounds.
type recKey struct {
	phase                            phase
	gpus, nodes, local, accum, batch int
	gtype                            string
	valid                            bool
}

// openRecord is a job's last record, waiting for its duration.
type openRecord struct {
	rec RoundRecord
	seq int64 // order of creation
	set bool
}

// roundRecorder turns the engine's state after each round into round records
// and statistics. A record's Duration needs the next round's time or the
// job's finish, so each job's last record stays open until then: at most one
// per active job (and per job finished since the last round).
type roundRecorder struct {
	mode RoundsMode
	sink RoundSink
	seq  int64
	// done lists the jobs finished since the last round with an open record.
	done []*job
	buf  []RoundRecord
	seqs []int64
}

// finished notes that j finished (at j.finish): its open record closes at
// the next round or its finish, whichever comes first.
func (rc *roundRecorder) finished(j *job) {
	if j.open.set {
		rc.done = append(rc.done, j)
	}
}

// close moves j's open record, ending at end, to the output batch.
func (rc *roundRecorder) close(j *job, end float64) {
	rec := j.open.rec
	rec.Duration = math.Max(end-rec.Time, 0)
	rc.buf = append(rc.buf, rec)
	rc.seqs = append(rc.seqs, j.open.seq)
	j.open = openRecord{}
}

// closeDone closes the records of the jobs finished since the last round,
// each at the earlier of next and its finish.
func (rc *roundRecorder) closeDone(next float64) {
	for _, j := range rc.done {
		end := next
		if j.finish < end {
			end = j.finish
		}
		rc.close(j, end)
	}
	rc.done = rc.done[:0]
}

// record appends the round's statistics to r and records the states of
// jobs, in workload order: every active job, or, in rounds decided
// incrementally, those holding GPUs and those whose record may have
// changed (the other active jobs wait, as they did when last recorded).
// active is the number of active jobs. The records this round closes go to
// the sink if there is one, into r.Rounds otherwise.
func (rc *roundRecorder) record(r *Result, now, wall float64, jobs []*job, active int) error {
	gpus, running := 0, 0
	eff, batch := 0.0, 0.0
	rc.buf, rc.seqs = rc.buf[:0], rc.seqs[:0]
	rc.closeDone(now)
	for _, j := range jobs {
		rec := RoundRecord{Phase: "pending"}
		if j.gpus > 0 {
			gpus += j.gpus
			pf := j.perf()
			rec.Phase = j.phase.String()
			rec.Efficiency, rec.Goodput = pf.Efficiency, pf.Goodput*(1-j.slowdown)
			eff += rec.Efficiency
			batch += float64(j.batch)
			running++
		}
		if rc.mode == RoundsNone {
			continue
		}
		key := recKey{phase: j.phase, gpus: j.gpus, nodes: j.nodes, local: j.local, accum: j.accum, batch: j.batch, gtype: j.gtype, valid: true}
		if j.gpus == 0 {
			key.phase, key.gtype = phasePending, ""
		}
		if rc.mode == RoundsChanges && key == j.lastRec {
			continue
		}
		j.lastRec = key
		if j.open.set {
			rc.close(j, now)
		}
		rec.Time, rec.Job, rec.App = now, j.spec.Name, j.spec.App
		rec.GPUs, rec.Nodes, rec.Local, rec.Accum, rec.Batch = j.gpus, j.nodes, j.local, j.accum, j.batch
		rec.Type = key.gtype
		rec.PGNS = j.agent.grad.PGNS(float64(j.app.Limits.InitBatch))
		rec.Progress = j.progress / j.target()
		rec.PolicySeconds = wall
		j.open = openRecord{rec: rec, seq: rc.seq, set: true}
		rc.seq++
	}
	if running > 0 {
		eff, batch = eff/float64(running), batch/float64(running)
	}
	r.RoundStats = append(r.RoundStats, RoundStat{
		Time: now, Active: active, Running: running, GPUs: gpus, Pending: active - running,
		Efficiency: eff, Batch: batch, PolicySeconds: wall,
	})
	return rc.emit(r)
}

// flush closes every open record at the end of the run (all jobs have
// finished) and emits them.
func (rc *roundRecorder) flush(r *Result, jobs []*job) error {
	rc.buf, rc.seqs = rc.buf[:0], rc.seqs[:0]
	rc.done = rc.done[:0]
	for _, j := range jobs {
		if j.open.set {
			rc.done = append(rc.done, j)
		}
	}
	rc.closeDone(math.Inf(1))
	return rc.emit(r)
}

// emit passes the closed records on in the order they were recorded (under
// RoundsAll the order of rounds and, within one, of the workload).
func (rc *roundRecorder) emit(r *Result) error {
	if len(rc.buf) == 0 {
		return nil
	}
	sort.Sort(bySeq{rc.buf, rc.seqs})
	if rc.sink != nil {
		return rc.sink.WriteRounds(rc.buf)
	}
	r.Rounds = append(r.Rounds, rc.buf...)
	return nil
}

// bySeq sorts records by their creation order.
type bySeq struct {
	recs []RoundRecord
	seqs []int64
}

func (b bySeq) Len() int           { return len(b.recs) }
func (b bySeq) Less(i, k int) bool { return b.seqs[i] < b.seqs[k] }
func (b bySeq) Swap(i, k int) {
	b.recs[i], b.recs[k] = b.recs[k], b.recs[i]
	b.seqs[i], b.seqs[k] = b.seqs[k], b.seqs[i]
}
