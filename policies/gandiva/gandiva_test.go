package gandiva_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/gandiva"
)

// rounds plays k rounds, one per quantum, of jobs (all arriving at 0)
// against a fresh Gandiva on cluster c, feeding each decision back as the
// jobs' allocations, and returns how many rounds each job ran.
func rounds(t *testing.T, c policies.Cluster, jobs []policies.Job, k int, quantum float64) []int {
	t.Helper()
	p := gandiva.New(gandiva.Options{QuantumSeconds: quantum})
	ran := make([]int, len(jobs))
	for r := range k {
		d := p.Schedule(float64(r)*quantum, c, jobs)
		used := make([]int, c.Nodes)
		for i := range jobs {
			if a := d.Alloc[i]; a != nil {
				if policies.Sum(a) != jobs[i].Request.GPUs {
					t.Fatalf("round %d: job %s holds %v, asked for %d", r, jobs[i].Name, a, jobs[i].Request.GPUs)
				}
				ran[i]++
				for n, v := range a {
					used[n] += v
				}
			}
			jobs[i].Alloc = d.Alloc[i]
		}
		for n, u := range used {
			if u > c.NodeGPUs(n) {
				t.Fatalf("round %d: node %d holds %d GPUs", r, n, u)
			}
		}
	}
	return ran
}

func sameJobs(n, g int) []policies.Job {
	jobs := make([]policies.Job, n)
	for i := range jobs {
		jobs[i] = policies.Job{Name: fmt.Sprintf("j%d", i), Request: policies.Request{GPUs: g, Batch: 32 * g}}
	}
	return jobs
}

// Time-slicing, exhaustively on small cases: n jobs of g GPUs on one node
// running c of them at once (c < n), over k quanta: every quantum exactly
// c jobs run, and each job has run its share k·c/n within one quantum
// (round robin: ⌊k·c/n⌋ or ⌈k·c/n⌉ quanta).
func TestTimeSliceShare(t *testing.T) {
	for _, g := range []int{1, 2, 3} {
		for n := 2; n <= 6; n++ {
			for c := 1; c < n; c++ {
				for k := 1; k <= 3*n; k++ {
					cluster := policies.Cluster{Nodes: 1, GPUsPerNode: c * g}
					ran := rounds(t, cluster, sameJobs(n, g), k, 60)
					total := 0
					for i, r := range ran {
						share := float64(k*c) / float64(n)
						if math.Abs(float64(r)-share) >= 1 {
							t.Fatalf("g=%d n=%d c=%d k=%d: job %d ran %d quanta, its share is %.2f", g, n, c, k, i, r, share)
						}
						total += r
					}
					if total != k*c {
						t.Fatalf("g=%d n=%d c=%d k=%d: %d job-quanta run, want %d", g, n, c, k, total, k*c)
					}
				}
			}
		}
	}
}

// The quantum, not the round, sets the rotation: with rounds every 60 s and
// a 180-s quantum, two 1-GPU jobs on one GPU alternate every third round
// (the rotation of a round comes before its arrivals are placed, as in the
// artifact, so the one at 0 finds no queue).
func TestQuantumLongerThanRound(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 1}
	jobs := sameJobs(2, 1)
	p := gandiva.New(gandiva.Options{QuantumSeconds: 180})
	var got string
	for r := range 9 {
		d := p.Schedule(float64(60*r), c, jobs)
		for i := range jobs {
			if d.Alloc[i] != nil {
				got += jobs[i].Name
			}
			jobs[i].Alloc = d.Alloc[i]
		}
	}
	if want := "j0j0j0j1j1j1j0j0j0"; got != want {
		t.Fatalf("running job per round %s, want %s (rotated at 180 and 360)", got, want)
	}
}

// Capacity and the proportional division of GPUs among job sizes, in
// closed form.
func TestCapacityAndTarget(t *testing.T) {
	for _, tc := range []struct{ gpus, g, want int }{{4, 1, 4}, {4, 3, 1}, {4, 4, 1}, {8, 3, 2}, {8, 6, 1}, {12, 4, 3}, {4, 0, 0}} {
		if got := gandiva.Capacity(tc.gpus, tc.g); got != tc.want {
			t.Errorf("Capacity(%d, %d) = %d, want %d", tc.gpus, tc.g, got, tc.want)
		}
	}
	// Sizes demanding 6 and 10 GPUs of 8: ⌊6/16·8⌋ = 3 and ⌊10/16·8⌋ = 5;
	// a size is never given more than it demands.
	for _, tc := range []struct{ demand, sum, total, want int }{{6, 16, 8, 3}, {10, 16, 8, 5}, {2, 4, 64, 2}, {0, 4, 8, 0}, {3, 0, 8, 0}} {
		if got := gandiva.Target(tc.demand, tc.sum, tc.total); got != tc.want {
			t.Errorf("Target(%d, %d, %d) = %d, want %d", tc.demand, tc.sum, tc.total, got, tc.want)
		}
	}
	for _, tc := range []struct {
		q    []string
		c    int
		want string
	}{{[]string{"a", "b", "c"}, 1, "[b c a]"}, {[]string{"a", "b", "c", "d"}, 2, "[c d a b]"}, {[]string{"a", "b"}, 2, "[a b]"}} {
		if got := fmt.Sprint(gandiva.Rotate(tc.q, tc.c)); got != tc.want {
			t.Errorf("Rotate(%v, %d) = %s, want %s", tc.q, tc.c, got, tc.want)
		}
	}
}

// Migration: four 1-GPU jobs time-slice on node 0 while a 4-GPU job holds
// node 1; when it ends, the 1-GPU size's target grows to its demand, a set
// is made on node 1 and the jobs are dealt over both sets, so all four run
// (the artifact deals them: its second attempt found no free node).
func TestMigrationOntoFreedNode(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 2}
	big := policies.Job{Name: "big", Request: policies.Request{GPUs: 2, Batch: 64}}
	small := sameJobs(4, 1)
	p := gandiva.New(gandiva.DefaultOptions())
	jobs := append([]policies.Job{big}, small...)
	d := p.Schedule(0, c, jobs)
	running := 0
	for i := range jobs {
		if d.Alloc[i] != nil {
			running++
		}
		jobs[i].Alloc = d.Alloc[i]
	}
	if d.Alloc[0] == nil || running != 3 {
		t.Fatalf("with the big job: alloc %v, want it and two small jobs running", d.Alloc)
	}
	jobs = jobs[1:] // the big job ends
	d = p.Schedule(60, c, jobs)
	for i := range jobs {
		if policies.Sum(d.Alloc[i]) != 1 {
			t.Fatalf("after the big job: alloc %v, want all four small jobs running", d.Alloc)
		}
	}
}

// A job of a size no set serves waits while no node is free, and starts
// when one is.
func TestWaitsForFreeNode(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	jobs := []policies.Job{
		{Name: "a", Request: policies.Request{GPUs: 4, Batch: 128}},
		{Name: "b", Request: policies.Request{GPUs: 2, Batch: 64}},
	}
	p := gandiva.New(gandiva.DefaultOptions())
	d := p.Schedule(0, c, jobs)
	if d.Alloc[0] == nil || d.Alloc[1] != nil {
		t.Fatalf("alloc %v: want a running, b waiting", d.Alloc)
	}
	jobs = jobs[1:]
	jobs[0].Alloc = nil
	if d = p.Schedule(60, c, jobs); policies.Sum(d.Alloc[0]) != 2 {
		t.Fatalf("alloc %v: want b running once a ended", d.Alloc)
	}
}

// The artifact's expansion: four 1-GPU jobs time-slice on node 0 (2 GPUs)
// while 2-GPU jobs hold nodes 1 and 2. When both end, the 1-GPU size's
// target (4 GPUs) exceeds what it holds by 2, so two sets are made on
// nodes 1 and 2; the last made has one node, so the artifact does not
// deal the jobs over them (its reused loop variable) and they stay
// time-sliced on node 0. Dealing whenever a set was added
// (artifact_expand=false) runs all four.
func TestArtifactExpansion(t *testing.T) {
	c := policies.Cluster{Nodes: 3, GPUsPerNode: 2}
	for _, artifact := range []bool{true, false} {
		p := gandiva.New(gandiva.Options{QuantumSeconds: 60, ArtifactExpand: artifact})
		jobs := append(sameJobs(4, 1), policies.Job{Name: "big1", Request: policies.Request{GPUs: 2, Batch: 64}},
			policies.Job{Name: "big2", Request: policies.Request{GPUs: 2, Batch: 64}})
		jobs[0], jobs[1], jobs[2], jobs[3], jobs[4], jobs[5] = jobs[4], jobs[5], jobs[0], jobs[1], jobs[2], jobs[3]
		d := p.Schedule(0, c, jobs)
		for i := range jobs {
			jobs[i].Alloc = d.Alloc[i]
		}
		if d.Alloc[0] == nil || d.Alloc[1] == nil {
			t.Fatalf("at 0: alloc %v, want both 2-GPU jobs running", d.Alloc)
		}
		small := jobs[2:]
		d = p.Schedule(30, c, small)
		running := 0
		for i := range small {
			if d.Alloc[i] != nil {
				running++
			}
		}
		if want := map[bool]int{true: 2, false: 4}[artifact]; running != want {
			t.Errorf("artifact_expand=%v: %d small jobs run once the big ones ended (alloc %v), want %d", artifact, running, d.Alloc, want)
		}
	}
}
