package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/traces"
)

// seesFaults is FIFO recording what it is told of interruptions: each
// job's largest count, and whether a count ever grew on a job still
// holding GPUs or ever went down.
type seesFaults struct {
	*fifo.Policy
	t    *testing.T
	seen map[string]int
}

func (p *seesFaults) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	for _, j := range jobs {
		last := p.seen[j.Name]
		if j.Interruptions < last {
			p.t.Errorf("t=%v: job %s's interruptions went down from %d to %d", now, j.Name, last, j.Interruptions)
		}
		if j.Interruptions > last && j.Alloc != nil {
			p.t.Errorf("t=%v: job %s was interrupted (%d to %d) yet holds %v", now, j.Name, last, j.Interruptions, j.Alloc)
		}
		p.seen[j.Name] = j.Interruptions
	}
	return p.Policy.Schedule(now, c, jobs)
}

// A policy sees the interrupted jobs: each job's count of interruptions
// in its views grows only on a job that lost its GPUs, and ends at the
// job's figure in the result (every interruption is seen, as the job must
// be placed again to finish); without a fault model it is always 0.
func TestPolicySeesInterruptions(t *testing.T) {
	m := &faults.Model{Rate: 24, JobFailRate: 4, Repair: faults.Dist{Kind: "fixed", Mean: 600}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600}}
	w := &traces.Workload{Source: "seen", Jobs: []traces.Job{
		{Name: "a", App: "work", Replicas: 2, Batch: 64},
		{Name: "b", Time: 100, App: "work", Replicas: 1, Batch: 64},
		{Name: "c", Time: 200, App: "work", Replicas: 2, Batch: 64},
	}}
	for _, model := range []*faults.Model{m, nil} {
		cfg := DefaultConfig()
		cfg.Cluster = policies.Cluster{Nodes: 6, GPUsPerNode: 1}
		cfg.Failures, cfg.FaultSeed = model, 5
		cfg.Rounds = RoundsNone
		p := &seesFaults{Policy: fifo.New(), t: t, seen: map[string]int{}}
		res, err := Run(cfg, workSet(10, 1800), w, p)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, j := range res.Jobs {
			want := 0
			if j.Faults != nil {
				want = j.Faults.Interruptions
			}
			if p.seen[j.Name] != want {
				t.Errorf("failures %v: the policy saw job %s interrupted %d times, the result says %d", model != nil, j.Name, p.seen[j.Name], want)
			}
			total += want
		}
		if model != nil && (total < 5 || total != res.Summary.Faults.Interruptions) {
			t.Errorf("%d interruptions over the jobs, %d in the summary: want a few, the same", total, res.Summary.Faults.Interruptions)
		}
	}
}

// nodeEvents is a fault log of node failures: (time, node, duration)
// triples.
func nodeEvents(rows ...[3]float64) []faults.Event {
	ev := make([]faults.Event, len(rows))
	for i, r := range rows {
		ev[i] = faults.Event{Time: r[0], Node: int(r[1]), Domain: -1, Duration: r[2]}
	}
	return ev
}

// clusterLog is FIFO (or another policy) recording the cluster it is
// given each round: the GPU type of each node.
type clusterLog struct {
	policies.Policy
	at    []float64
	types [][]string
}

func (p *clusterLog) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	ts := make([]string, c.Nodes)
	for n := range ts {
		ts[n] = c.NodeType(n)
	}
	p.at, p.types = append(p.at, now), append(p.types, ts)
	return p.Policy.Schedule(now, c, jobs)
}

// nodesAt is the number of nodes the policy saw in its round at time t.
func (p *clusterLog) nodesAt(t *testing.T, at float64) int {
	t.Helper()
	for i, a := range p.at {
		if a == at {
			return len(p.types[i])
		}
	}
	t.Fatalf("no round at t=%v", at)
	return 0
}

// Spare nodes (faults.Model.Spares), on a replayed log: the policy sees
// the cluster less its spares; a serving node that fails is replaced in
// its place by a spare that is up (the jobs on the failed node are
// interrupted, the others keep their places); with no spare up the
// cluster shrinks; a repaired node rejoins the service when it is short,
// else becomes a spare; a spare failing changes nothing the policy sees.
// Availability counts the spares' time as any node's.
func TestSpares(t *testing.T) {
	m := &faults.Model{Spares: 1, Repair: faults.Dist{Kind: "fixed", Mean: 1}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600},
		Events: nodeEvents(
			[3]float64{90, 0, 1000},  // serving: spare 3 takes its place
			[3]float64{190, 1, 100},  // serving, no spare: 2 nodes
			[3]float64{1210, 0, 100}, // 0 came back a spare at 1090: nothing seen
			[3]float64{1330, 2, 100}, // 0 came back a spare at 1310: replaces 2
		)}
	w := &traces.Workload{Source: "spares", Jobs: []traces.Job{
		{Name: "a", App: "work", Replicas: 1, Batch: 64},
		{Name: "b", App: "work", Replicas: 1, Batch: 64},
		{Name: "c", App: "work", Replicas: 1, Batch: 64},
	}}
	cfg := DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 4, GPUsPerNode: 1}
	cfg.Failures = m
	cfg.Rounds = RoundsNone
	p := &clusterLog{Policy: fifo.New()}
	res, err := Run(cfg, workSet(10, 300), w, p)
	if err != nil {
		t.Fatal(err)
	}
	for at, want := range map[float64]int{60: 3, 120: 3, 180: 3, 240: 2, 300: 3, 1140: 3, 1260: 3, 1380: 3} {
		if got := p.nodesAt(t, at); got != want {
			t.Errorf("t=%v: the policy saw %d nodes, want %d", at, got, want)
		}
	}
	f := res.Summary.Faults
	if f.NodeFailures != 4 || f.Interruptions != 3 {
		t.Errorf("%d node failures, %d interruptions; want 4 and 3 (the spare's failure interrupts nothing)", f.NodeFailures, f.Interruptions)
	}
	restarts := 0
	for _, j := range res.Jobs {
		restarts += j.Restarts
	}
	if restarts != 3 {
		t.Errorf("%d re-allocations, want 3 (one per interruption: the jobs on other nodes keep their places)", restarts)
	}
	if want := 1 - 1300/(4*res.Summary.Makespan); math.Abs(f.Availability-want) > 1e-12 {
		t.Errorf("availability %v, want 1 - 1300 node-s down / (4 nodes x %v s) = %v", f.Availability, res.Summary.Makespan, want)
	}
	cfg.Failures = &faults.Model{Spares: 4, Repair: m.Repair, Checkpoint: m.Checkpoint}
	if _, err := Run(cfg, workSet(10, 300), w, fifo.New()); err == nil || !strings.Contains(err.Error(), "spares=4") {
		t.Errorf("4 spares of 4 nodes: %v, want a refusal naming spares=4", err)
	}
}

// Failures on a cluster of node pools: a node that fails leaves its pool
// (the policy's pools shrink by one, the other pools keep their nodes),
// and comes back at the end of its own pool, not of the cluster; the jobs
// on other nodes keep their GPUs through both. With a spare in each pool
// a failed node is replaced by a spare of its own pool.
func TestFailuresOnPools(t *testing.T) {
	pools := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 1}, policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 1})
	ev := nodeEvents(
		[3]float64{90, 2, 200},  // an a100 node: back at 290
		[3]float64{200, 0, 130}, // a t4 node: back at 330
	)
	w := &traces.Workload{Source: "pools", Jobs: []traces.Job{
		{Name: "a100-x", App: "toy", Replicas: 1, Batch: 64},
		{Name: "a100-z", App: "toy", Replicas: 1, Batch: 64},
		{Name: "t4-y", App: "toy", Replicas: 1, Batch: 64},
	}}
	for _, spares := range []int{0, 1} {
		cfg := DefaultConfig()
		cfg.Cluster = pools
		cfg.Failures = &faults.Model{Spares: spares, Repair: faults.Dist{Kind: "fixed", Mean: 1}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600}, Events: ev}
		cfg.Rounds = RoundsNone
		p := &clusterLog{Policy: keepOnType{}}
		res, err := Run(cfg, typedSet(), w, p)
		if err != nil {
			t.Fatal(err)
		}
		want := map[float64]string{60: "t4 t4 a100 a100", 120: "t4 t4 a100", 240: "t4 a100", 300: "t4 a100 a100", 360: "t4 t4 a100 a100"}
		if spares == 1 {
			// Node 1 of t4 and node 3 of a100 are the spares; each
			// failure takes its pool's spare.
			want = map[float64]string{60: "t4 a100", 120: "t4 a100", 240: "t4 a100", 300: "t4 a100", 360: "t4 a100"}
		}
		for at, types := range want {
			seen := false
			for i, a := range p.at {
				if a == at {
					seen = true
					if strings.Join(p.types[i], " ") != types {
						t.Errorf("spares %d, t=%v: the policy saw %v, want %s", spares, at, p.types[i], types)
					}
				}
			}
			if !seen {
				t.Errorf("spares %d: no round at t=%v", spares, at)
			}
		}
		interrupted := map[string]int{}
		for _, j := range res.Jobs {
			interrupted[j.Name] = j.Faults.Interruptions
			if j.Restarts != j.Faults.Interruptions {
				t.Errorf("spares %d: job %s re-allocated %d times, interrupted %d: want the same (others keep their GPUs)", spares, j.Name, j.Restarts, j.Faults.Interruptions)
			}
		}
		if res.Summary.Faults.Interruptions != 2 || interrupted["a100-z"] != 0 {
			t.Errorf("spares %d: interruptions %v, want 2 in all, none of a100-z (on the a100 node that never failed)", spares, interrupted)
		}
	}
	cfg := DefaultConfig()
	cfg.Cluster = pools
	cfg.Failures = &faults.Model{Spares: 2, Repair: faults.Dist{Kind: "fixed", Mean: 1}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600}, Events: ev}
	if _, err := Run(cfg, typedSet(), w, keepOnType{}); err == nil || !strings.Contains(err.Error(), "spares=2: cluster pool 1 (t4) has 2 nodes") {
		t.Errorf("2 spares of pools of 2: %v, want a refusal naming the pool", err)
	}
}

// keepOnType keeps each job's GPUs and places the others as onType does,
// on the GPUs left.
type keepOnType struct{ onType }

func (keepOnType) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for i, j := range jobs {
		if j.Alloc != nil {
			d.Alloc[i] = j.Alloc
			for n, v := range j.Alloc {
				free[n] -= v
			}
		}
	}
	for i, j := range jobs {
		if j.Alloc != nil {
			continue
		}
		sub := make([]int, c.Nodes)
		for n := range sub {
			if strings.HasPrefix(j.Name, c.NodeType(n)+"-") {
				sub[n] = free[n]
			}
		}
		if policies.Sum(sub) < j.Request.GPUs {
			continue
		}
		a := policies.PlaceMostFree(sub, j.Request.GPUs)
		for n, v := range a {
			free[n] -= v
		}
		d.Alloc[i] = a
	}
	return d
}

// scripted is an autoscaler asking for the node counts of a script: the
// count of the last entry at or before the round's time.
type scripted [][2]float64

func (scripted) Name() string { return "scripted" }
func (s scripted) Target(st autoscalers.State) int {
	n := 0
	for _, e := range s {
		if e[0] <= st.Now {
			n = int(e[1])
		}
	}
	return n
}

// Failures on an elastic cluster: a node that fails leaves the cluster
// the policy sees but stays held (billed) while it is repaired; the
// autoscaler releases the nodes down first; a machine ordered while down
// joins held and down, and is offered when repaired. Node-hours follow.
func TestFailuresElastic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 2, GPUsPerNode: 1}
	cfg.Elastic = &Elastic{Autoscaler: scripted{{0, 2}, {300, 1}, {600, 3}}, MinNodes: 1, MaxNodes: 4, NodePrice: 1}
	cfg.Failures = &faults.Model{Repair: faults.Dist{Kind: "fixed", Mean: 1}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600},
		Events: nodeEvents([3]float64{90, 1, 1000})} // machine 1: back at 1090
	cfg.Rounds = RoundsNone
	w := &traces.Workload{Source: "elastic", Jobs: []traces.Job{
		{Name: "a", App: "work", Replicas: 1, Batch: 64},
		{Name: "b", App: "work", Replicas: 1, Batch: 64},
	}}
	res, err := Run(cfg, workSet(10, 300), w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	// Nodes offered after each round's autoscaling: machine 1 down from
	// 90 (held), released at 300 (the one down goes first); at 600 two
	// more: machine 1 again, still down, and machine 2; machine 1 is
	// offered from 1090.
	for at, want := range map[float64]int{60: 2, 120: 1, 240: 1, 300: 1, 600: 2, 1080: 2, 1140: 3} {
		found := false
		for _, st := range res.NodeStats {
			if st.Time == at {
				found = true
				if st.Ready != want {
					t.Errorf("t=%v: %d nodes offered, want %d", at, st.Ready, want)
				}
			}
		}
		if !found {
			t.Errorf("no autoscaling at t=%v", at)
		}
	}
	end := res.Summary.Makespan
	if end < 1200 {
		t.Fatalf("the run ended at %v s, before the script's last step", end)
	}
	// Held: 2 nodes to 300, 1 to 600, 3 after.
	if want := (2*300 + 1*300 + 3*(end-600)) / 3600; math.Abs(res.Summary.NodeHours-want) > 1e-9 {
		t.Errorf("node-hours %v, want %v", res.Summary.NodeHours, want)
	}
	if f := res.Summary.Faults; f.NodeFailures != 1 || f.Interruptions != 1 {
		t.Errorf("%d node failures, %d interruptions; want 1 and 1", f.NodeFailures, f.Interruptions)
	}
}
