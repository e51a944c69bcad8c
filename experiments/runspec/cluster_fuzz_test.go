package runspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseCluster: a --cluster value either fails with one line naming
// the flag, or gives pools within the limits whose per-node capacities add
// up and whose written form reads back to the same cluster. The same text
// as a cluster file (one pool per line) fails naming the file, or succeeds.
func FuzzParseCluster(f *testing.F) {
	f.Add("t4:6x4,a100:2x8,rtx2080ti:3x8")
	f.Add("aws:1x1@0.5,dgx-ext:2X8@3.06")
	f.Add("t4:6x4,t4:1x4@2")
	f.Add("v100:0x4")
	f.Add("h100:2x8")
	f.Add("t4:6x")
	f.Add("rtx6000:3x4@NaN")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCluster(s)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "--cluster") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line starting with --cluster", msg)
			}
		} else {
			total, nodes := 0, 0
			for _, p := range c.Pools {
				if p.Nodes < 1 || p.GPUsPerNode < 1 || p.GPUsPerNode > MaxGPUsPerNode || p.Price < 0 {
					t.Fatalf("pool %+v", p)
				}
				total += p.Nodes * p.GPUsPerNode
				nodes += p.Nodes
			}
			if nodes != c.Nodes || nodes > MaxNodes {
				t.Fatalf("%d nodes in the pools, cluster has %d", nodes, c.Nodes)
			}
			sum := 0
			for n := 0; n < c.Nodes; n++ {
				sum += c.NodeGPUs(n)
			}
			if sum != total {
				t.Fatalf("nodes hold %d GPUs, pools %d", sum, total)
			}
			back, err := ParseCluster(ClusterString(c))
			if err != nil || ClusterString(back) != ClusterString(c) || back.Nodes != c.Nodes {
				t.Fatalf("%q reads back as %q (%v)", ClusterString(c), ClusterString(back), err)
			}
		}
		path := filepath.Join(t.TempDir(), "cluster.txt")
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadClusterFile(path); err != nil {
			if msg := err.Error(); !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
				t.Fatalf("cluster file error %q does not name the file in one line", msg)
			}
		}
	})
}
