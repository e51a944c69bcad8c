package service

import (
	"fmt"
	"strconv"

	"github.com/polluxsim/polluxsim/policies"
)

// A session of an incremental policy (policies.Incremental; its
// SessionResponse says incremental) also takes changes-only rounds, POST
// /v1/sessions/{id}/changes: the jobs that arrived, the tracked jobs
// whose view changed and the keys of those that finished, as the engine
// gives an incremental policy in process. The session keeps one view per
// tracked job, updated in place; the answer lists the jobs whose
// allocation changes. The policy "remote" sends these when its run is
// decided incrementally, so that a round costs what changed rather than
// every waiting job.

// ChangesRequest is one changes-only round.
type ChangesRequest struct {
	Time  float64 `json:"time"`
	Nodes []Node  `json:"nodes"`
	// Added are the jobs that became active, Updated the tracked jobs
	// whose view changed (every job holding GPUs and those that lost them
	// since the last round), Removed the keys of tracked jobs that
	// finished (protocol.Tracker says which).
	Added   []KeyedJob `json:"added"`
	Updated []KeyedJob `json:"updated"`
	Removed []int64    `json:"removed"`
	// Racks and Oversubscription are the round's (RoundRequest).
	Racks            *int    `json:"racks,omitempty"`
	Oversubscription float64 `json:"oversubscription,omitempty"`
}

// KeyedJob is a job with the key that identifies it across changes-only
// rounds and orders it as a full round lists it.
type KeyedJob struct {
	Key int64 `json:"key"`
	Job Job   `json:"job"`
}

// JobChange is a job's new allocation after a changes-only round (empty:
// no GPU).
type JobChange struct {
	Key        int64    `json:"key"`
	Allocation []string `json:"allocation"`
}

// PolicyStats are what the session's policy reports about its rounds
// (policies.Stats), after the round answered.
type PolicyStats struct {
	Fitness  *float64           `json:"fitness,omitempty"`
	Counters map[string]float64 `json:"counters,omitempty"`
}

// fromStats is the wire form of a policy's stats.
func fromStats(st policies.Stats) *PolicyStats {
	w := &PolicyStats{Counters: st.Counters}
	if st.HasFitness {
		f := st.Fitness
		w.Fitness = &f
	}
	return w
}

// Stats is the policy's stats as policies.Stats.
func (w *PolicyStats) Stats() policies.Stats {
	if w == nil {
		return policies.Stats{}
	}
	st := policies.Stats{Counters: w.Counters}
	if w.Fitness != nil {
		st.HasFitness, st.Fitness = true, *w.Fitness
	}
	return st
}

// changes is a decoded changes-only round: the round of its sent jobs and
// the round's changes for the policy.
type changes struct {
	added, updated []int64 // keys, in the order of r.jobs
	removed        []int64
}

// decodeChanges checks a changes-only round against the service's bounds
// (as a round of its added and updated jobs, for a policy of traits t,
// each job's fields named by its place in the request: added[0].job.name)
// and against the session's tracked keys.
func decodeChanges(req *ChangesRequest, lim Limits, views map[int64]*policies.Job, t policies.Traits) (*round, *changes, error) {
	rr := RoundRequest{Time: req.Time, Nodes: req.Nodes, Jobs: make([]Job, 0, len(req.Added)+len(req.Updated)), Racks: req.Racks, Oversubscription: req.Oversubscription}
	ch := &changes{removed: req.Removed}
	seen := map[int64]bool{}
	gone := map[int64]bool{}
	for i, k := range req.Removed {
		if views[k] == nil {
			return nil, nil, errorf("removed[%d]: key %d is not tracked", i, k)
		}
		if gone[k] {
			return nil, nil, errorf("removed[%d]: key %d listed twice", i, k)
		}
		gone[k] = true
	}
	for _, list := range []struct {
		field string
		jobs  []KeyedJob
		keys  *[]int64
	}{{"added", req.Added, &ch.added}, {"updated", req.Updated, &ch.updated}} {
		for i, kj := range list.jobs {
			f := list.field + "[" + strconv.Itoa(i) + "].key"
			switch tracked := views[kj.Key] != nil && !gone[kj.Key]; {
			case seen[kj.Key]:
				return nil, nil, errorf("%s: key %d listed twice", f, kj.Key)
			case list.field == "added" && tracked:
				return nil, nil, errorf("%s: key %d is tracked already", f, kj.Key)
			case list.field == "updated" && !tracked:
				return nil, nil, errorf("%s: key %d is not tracked", f, kj.Key)
			}
			seen[kj.Key] = true
			*list.keys = append(*list.keys, kj.Key)
			rr.Jobs = append(rr.Jobs, kj.Job)
		}
	}
	// The jobs' fields are named where the request holds them:
	// added[i].job, then updated[i].job.
	field := func(i int) string {
		list := "added"
		if i >= len(req.Added) {
			list, i = "updated", i-len(req.Added)
		}
		return list + "[" + strconv.Itoa(i) + "].job"
	}
	r, err := decodeRoundNamed(&rr, lim, t, field)
	if err != nil {
		return nil, nil, err
	}
	return r, ch, nil
}

// apply brings the session's views up to date with a decoded round and
// returns the policy's input.
func (ch *changes) apply(r *round, views map[int64]*policies.Job) policies.IncrementalRound {
	for _, k := range ch.removed {
		delete(views, k)
	}
	in := policies.IncrementalRound{Removed: ch.removed}
	for i, k := range ch.added {
		j := new(policies.Job)
		*j = r.jobs[i]
		views[k] = j
		in.Added = append(in.Added, policies.Tracked{Key: k, Job: j})
	}
	for i, k := range ch.updated {
		*views[k] = r.jobs[len(ch.added)+i]
	}
	return in
}

// checkChanges checks an incremental policy's changes as checkDecision
// checks a decision: tracked keys, each once, allocations of the
// cluster's shape within each job's cap and, with every tracked job's
// GPUs, within the nodes.
func checkChanges(r *round, views map[int64]*policies.Job, cs []policies.Change, t policies.Traits) error {
	changed := make(map[int64][]int, len(cs))
	for _, c := range cs {
		j := views[c.Key]
		if j == nil {
			return fmt.Errorf("policy changed the allocation of key %d, which is not tracked", c.Key)
		}
		if _, dup := changed[c.Key]; dup {
			return fmt.Errorf("policy changed the allocation of job %s twice", j.Name)
		}
		if len(c.Alloc) != 0 && len(c.Alloc) != r.cluster.Nodes {
			return fmt.Errorf("policy returned an allocation of %d nodes for job %s on %d nodes", len(c.Alloc), j.Name, r.cluster.Nodes)
		}
		for n, v := range c.Alloc {
			if v < 0 {
				return fmt.Errorf("policy returned %d GPUs on node %s for job %s", v, r.names[n], j.Name)
			}
		}
		if k, limit := policies.Sum(c.Alloc), policies.GPUCap(j, t); !t.UserGPUs && limit > 0 && k > limit {
			return fmt.Errorf("policy gave job %s %d GPUs, above its cap of %d", j.Name, k, limit)
		}
		changed[c.Key] = c.Alloc
	}
	used := make([]int, r.cluster.Nodes)
	for k, j := range views {
		a, ok := changed[k]
		if !ok {
			a = j.Alloc
		}
		for n, v := range a {
			if n < len(used) {
				used[n] += v
			}
		}
	}
	for n, u := range used {
		if u > r.cluster.NodeGPUs(n) {
			return fmt.Errorf("policy allocated %d GPUs of node %s, which has %d", u, r.names[n], r.cluster.NodeGPUs(n))
		}
	}
	return nil
}

// respondChanges writes checked changes as the round's answer.
func respondChanges(r *round, cs []policies.Change) RoundResponse {
	out := make([]JobChange, len(cs))
	for i, c := range cs {
		out[i] = JobChange{Key: c.Key, Allocation: replicas(c.Alloc, func(n int) string { return r.names[n] })}
		if out[i].Allocation == nil {
			out[i].Allocation = []string{}
		}
	}
	return RoundResponse{Changes: out}
}
