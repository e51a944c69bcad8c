package protocol

import (
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Tracker is the engine's side of a conversation of incremental rounds
// (an external policy's incremental_round, the service's changes): it
// keeps the views the peer tracks and says, each round, which of them to
// send again. A view is sent when its job arrives (Added) and, as Updated,
// in every round it holds GPUs and in the round after it lost them (its
// allocation changed by the peer's decision or by the engine): what an
// incremental policy in process reads of a job (policies.Incremental).
type Tracker struct {
	tracked map[int64]*policies.Job
	// held are the keys whose view last sent held GPUs, and changed the
	// keys the peer's last decision changed.
	held, changed map[int64]bool
}

// NewTracker returns a Tracker tracking nothing.
func NewTracker() *Tracker {
	return &Tracker{tracked: map[int64]*policies.Job{}, held: map[int64]bool{}, changed: map[int64]bool{}}
}

// Job is the view of tracked job key, nil when it is not tracked.
func (t *Tracker) Job(key int64) *policies.Job { return t.tracked[key] }

// Round applies round r (its finished jobs dropped, its new ones
// tracked) and returns the views to send as updated, in increasing key:
// every tracked job, not added this round, whose view last sent held
// GPUs or whose allocation the peer changed.
func (t *Tracker) Round(r policies.IncrementalRound) []policies.Tracked {
	for _, k := range r.Removed {
		delete(t.tracked, k)
		delete(t.held, k)
		delete(t.changed, k)
	}
	added := make(map[int64]bool, len(r.Added))
	for _, a := range r.Added {
		t.tracked[a.Key] = a.Job
		t.held[a.Key] = a.Job.Alloc != nil
		added[a.Key] = true
	}
	for k := range t.changed {
		t.held[k] = true // its view may have changed since
	}
	clear(t.changed)
	var keys []int64
	for k, held := range t.held {
		if held {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var updated []policies.Tracked
	for _, k := range keys {
		j := t.tracked[k]
		if j == nil || added[k] {
			continue
		}
		updated = append(updated, policies.Tracked{Key: k, Job: j})
		if j.Alloc == nil {
			delete(t.held, k)
		}
	}
	return updated
}

// Changed records that the peer changed the allocation of job key; false
// when key is not tracked (a fault of the peer's).
func (t *Tracker) Changed(key int64) bool {
	if t.tracked[key] == nil {
		return false
	}
	t.changed[key] = true
	return true
}
