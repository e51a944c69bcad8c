package runspec

import (
	"encoding/json"
	"strings"
	"testing"
)

// The cluster is set in one place and read through ClusterOf; the JSON
// form keeps its fields (nodes, gpus_per_node, cluster) as before.
func TestClusterOneRepresentation(t *testing.T) {
	s := DefaultSpec("fifo")
	before, _ := json.Marshal(s)
	c, err := ParseCluster("t4:6x4,a100:2x8@3.06")
	if err != nil {
		t.Fatal(err)
	}
	s.SetCluster(c)
	if s.Nodes != 8 || s.GPUsPerNode != 8 || s.Cluster != "t4:6x4,a100:2x8@3.06" {
		t.Errorf("SetCluster: %d nodes × %d, %q", s.Nodes, s.GPUsPerNode, s.Cluster)
	}
	if got := s.ClusterOf(); got.TotalGPUs() != 40 || len(got.Pools) != 2 || s.ClusterGPUs() != 40 || s.MaxJobGPUs() != 40 {
		t.Errorf("ClusterOf: %+v, %d GPUs, max job %d", got, s.ClusterGPUs(), s.MaxJobGPUs())
	}
	if err := s.ValidateSettings(); err != nil {
		t.Error(err)
	}
	// A hand-edited spec whose fields disagree with its pools is refused.
	bad := s
	bad.Nodes = 9
	if err := bad.ValidateSettings(); err == nil || !strings.Contains(err.Error(), "nodes is 9") {
		t.Errorf("nodes out of step with the pools: %v", err)
	}
	// Back to a cluster without pools: the JSON is as it was.
	s.SetCluster(DefaultSpec("fifo").ClusterOf())
	after, _ := json.Marshal(s)
	if string(after) != string(before) {
		t.Errorf("JSON changed:\n%s\n%s", before, after)
	}
	// An elastic cluster: a job may hold up to the largest cluster.
	e := DefaultSpec("fifo")
	e.Autoscaler, e.MaxNodes = "pollux", 32
	if got := e.MaxJobGPUs(); got != 128 {
		t.Errorf("elastic MaxJobGPUs = %d, want 128", got)
	}
	e.MaxNodes = 0 // default: --nodes
	if got := e.MaxJobGPUs(); got != 64 {
		t.Errorf("elastic MaxJobGPUs with default bounds = %d, want 64", got)
	}
}
