package policies_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

func TestClusterOfPools(t *testing.T) {
	c := policies.NewCluster(
		policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4},
		policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8},
	)
	if c.Nodes != 3 || c.GPUsPerNode != 8 || c.TotalGPUs() != 16 || !c.Heterogeneous() {
		t.Fatalf("cluster %+v: nodes %d, largest %d, GPUs %d", c, c.Nodes, c.GPUsPerNode, c.TotalGPUs())
	}
	if c.NodeGPUs(1) != 4 || c.NodeGPUs(2) != 8 || c.NodeType(1) != "t4" || c.NodeType(2) != "a100" {
		t.Errorf("per-node figures wrong")
	}
	// The largest node, whichever pool it is in: the a100 pool first too.
	rev := policies.NewCluster(policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8}, policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4})
	if c.MaxNodeGPUs() != 8 || rev.MaxNodeGPUs() != 8 || rev.NodeGPUs(0) != 8 || rev.NodeGPUs(2) != 4 {
		t.Errorf("largest node %d and %d, want 8", c.MaxNodeGPUs(), rev.MaxNodeGPUs())
	}
	if got := c.Types(); !reflect.DeepEqual(got, []string{"a100", "t4"}) {
		t.Errorf("types %v", got)
	}
	if c.TypeGPUs("t4") != 8 || c.TypeGPUs("a100") != 8 || c.TypeGPUs("v100") != 0 {
		t.Errorf("GPUs per type wrong")
	}
	if c.AllocType([]int{1, 2, 0}) != "t4" || c.AllocType([]int{0, 1, 1}) != "" || c.AllocType(nil) != "" {
		t.Errorf("AllocType wrong")
	}
	if got := policies.FreeGPUs(c, [][]int{{1, 0, 3}}); !reflect.DeepEqual(got, []int{3, 4, 5}) {
		t.Errorf("FreeGPUs %v", got)
	}
	homog := policies.Cluster{Nodes: 4, GPUsPerNode: 4}
	if homog.Heterogeneous() || homog.NodeType(3) != policies.DefaultType || homog.NodeGPUs(3) != 4 || homog.MaxNodeGPUs() != 4 || homog.TypeGPUs("t4") != 16 {
		t.Errorf("a cluster without pools is 4 x 4 %s", policies.DefaultType)
	}
}

func TestPlaceJob(t *testing.T) {
	c := policies.NewCluster(
		policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4},
		policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8},
	)
	free := []int{4, 3, 8}
	// The type with the most free GPUs: A100 (8 > 7).
	j := &policies.Job{}
	if got := policies.PlaceJob(c, free, 5, j); !reflect.DeepEqual(got, []int{0, 0, 5}) {
		t.Errorf("placed %v", got)
	}
	// A job that may not use A100s, and one that holds T4s, stay on T4s.
	free = []int{4, 3, 8}
	if got := policies.PlaceJob(c, free, 6, &policies.Job{Types: []string{"t4"}}); !reflect.DeepEqual(got, []int{4, 2, 0}) || !reflect.DeepEqual(free, []int{0, 1, 8}) {
		t.Errorf("placed %v, free %v", got, free)
	}
	free = []int{4, 3, 8}
	if got := policies.PlaceJob(c, free, 2, &policies.Job{Alloc: []int{1, 0, 0}}); !reflect.DeepEqual(got, []int{2, 0, 0}) {
		t.Errorf("placed %v, want the job's current type", got)
	}
	// Nothing spans types: 9 GPUs fit no single type.
	free = []int{4, 3, 8}
	if got := policies.PlaceJob(c, free, 9, j); got != nil || !reflect.DeepEqual(free, []int{4, 3, 8}) {
		t.Errorf("placed %v, free %v; want nil and free unchanged", got, free)
	}
	// On a single-type cluster it is PlaceMostFree.
	h := policies.Cluster{Nodes: 3, GPUsPerNode: 4}
	a, b := []int{1, 4, 2}, []int{1, 4, 2}
	if got, want := policies.PlaceJob(h, a, 5, j), policies.PlaceMostFree(b, 5); !reflect.DeepEqual(got, want) {
		t.Errorf("PlaceJob %v, PlaceMostFree %v", got, want)
	}
}

// TestNodesTypeIsAllocType: the type of the nodes an allocation holds GPUs
// on is the allocation's type, on random allocations of clusters with one
// to three pools (mixed types give "", no GPUs give "").
func TestNodesTypeIsAllocType(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 21))
	types := []string{"t4", "a100", "h100"}
	for trial := 0; trial < 2000; trial++ {
		var c policies.Cluster
		for range 1 + rng.IntN(3) {
			p := policies.Pool{Type: types[rng.IntN(len(types))], Nodes: 1 + rng.IntN(6), GPUsPerNode: 4}
			c.Pools = append(c.Pools, p)
			c.Nodes += p.Nodes
		}
		a := make([]int, c.Nodes)
		for k := rng.IntN(4); k > 0; k-- {
			a[rng.IntN(c.Nodes)] = 1 + rng.IntN(4)
		}
		var nodes []int
		for n, v := range a {
			if v > 0 {
				nodes = append(nodes, n)
			}
		}
		if got, want := c.NodesType(nodes), c.AllocType(a); got != want {
			t.Fatalf("trial %d: NodesType(%v) = %q, AllocType(%v) = %q (pools %+v)", trial, nodes, got, a, want, c.Pools)
		}
	}
}
