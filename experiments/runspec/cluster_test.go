package runspec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

func TestParseCluster(t *testing.T) {
	c, err := runspec.ParseCluster("t4:6x4, dgx-ext:2x8@3.5,rtx:3x8")
	if err != nil {
		t.Fatal(err)
	}
	if c.Nodes != 11 || c.GPUsPerNode != 8 || c.TotalGPUs() != 64 {
		t.Fatalf("got %d nodes of up to %d, %d GPUs; want 11, 8, 64", c.Nodes, c.GPUsPerNode, c.TotalGPUs())
	}
	if c.NodeType(5) != "t4" || c.NodeType(6) != "a100" || c.NodeGPUs(6) != 8 || c.NodeType(10) != "rtx2080ti" || c.NodeGPUs(0) != 4 {
		t.Errorf("node types/sizes wrong: %+v", c.Pools)
	}
	if c.Pools[1].Price != 3.5 {
		t.Errorf("price %v, want 3.5", c.Pools[1].Price)
	}
	if got := runspec.ClusterString(c); got != "t4:6x4,a100:2x8@3.5,rtx2080ti:3x8" {
		t.Errorf("ClusterString = %q", got)
	}
	for spec, want := range map[string]string{
		"h200:2x8":         "unknown GPU type",
		"t4:0x4":           "nodes must be",
		"t4:2x0":           "GPUs per node must be",
		"t4:2*4":           "NODESxGPUS",
		"t4":               "TYPE:NODESxGPUS",
		"t4:2x4@-1":        "price",
		"t4:2x4,t4:1x4@2":  "different prices",
		"t4:2x4,,a100:1x8": "pool 2",
	} {
		_, err := runspec.ParseCluster(spec)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--cluster") {
			t.Errorf("ParseCluster(%q): got %v, want an error starting --cluster, containing %q", spec, err, want)
		}
	}
}

func TestReadClusterFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cluster.txt")
	os.WriteFile(path, []byte("# name type nodes gpus price\nedge  aws 6 4 0.53\n\nbig a100 2 8 3.06\n"), 0o644)
	c, err := runspec.LoadCluster(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pools) != 2 || c.Pools[0].Name != "edge" || c.Pools[0].Type != "t4" || c.Pools[1].Price != 3.06 {
		t.Fatalf("pools %+v", c.Pools)
	}
	os.WriteFile(path, []byte("edge t4 6\n"), 0o644)
	if _, err := runspec.LoadCluster(path); err == nil || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("want an error naming %s:1, got %v", path, err)
	}
}

// TestOnePoolIsTheHomogeneousCluster: a single T4 pool gives the very
// same jobs as --nodes/--gpus-per-node, and adds GPU-hours per type.
func TestOnePoolIsTheHomogeneousCluster(t *testing.T) {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.Default()
	run := func(cluster string) *sim.Result {
		spec := runspec.DefaultSpec("tiresias")
		spec.Cluster = cluster
		pol, err := runspec.NewPolicy(runspec.Known{Policies: builtin.Registry()}, spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(spec.SimConfig(), set, w, pol)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(""), run("t4:16x4")
	for i := range a.Jobs {
		if a.Jobs[i] != b.Jobs[i] {
			t.Fatalf("job %d differs: %+v vs %+v", i, a.Jobs[i], b.Jobs[i])
		}
	}
	if a.Summary.GPUHoursByType != nil {
		t.Error("no per-type GPU-hours expected without pools")
	}
	if got := b.Summary.GPUHoursByType["t4"]; abs(got-b.Summary.GPUHours) > 1e-6*got {
		t.Errorf("t4 GPU-hours %v, total %v", got, b.Summary.GPUHours)
	}
}

// TestClusterTypeWithoutTables: with profiles that have T4 tables only (the
// embedded ones without their per-type models), a cluster with A100s is
// refused before simulating, naming the type.
func TestClusterTypeWithoutTables(t *testing.T) {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := runspec.DefaultSpec("fifo")
	spec.Cluster = "t4:4x4,a100:1x8"
	pol, _ := runspec.NewPolicy(runspec.Known{Policies: builtin.Registry()}, spec)
	set := profiles.Default()
	for _, a := range set.Apps {
		a.ByType = nil
	}
	_, err = sim.Run(spec.SimConfig(), set, w, pol)
	if err == nil || !strings.Contains(err.Error(), "cluster GPU type a100") {
		t.Fatalf("want an error about type a100, got %v", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestClusterFileCommentsAndMissingFiles: a # comment may end a pool's
// line; a --cluster value that is neither a file nor pools says which.
func TestClusterFileCommentsAndMissingFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.txt")
	os.WriteFile(path, []byte("edge t4 2 4 # the edge pool\n# all comment\nbig a100 1 8 3.5#no space\n"), 0o644)
	c, err := runspec.LoadCluster(path)
	if err != nil || c.Nodes != 3 {
		t.Fatalf("cluster file with comments: %+v, %v", c, err)
	}
	for arg, want := range map[string]string{
		filepath.Join(dir, "none.txt"): "no such file, and not pools",
		dir:                            "a folder, not a file, and not pools",
	} {
		if _, err := runspec.LoadCluster(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--cluster %s: %v", arg, err)
		}
	}
}

// TestClusterRacks: racks=R and oversub=O make the network two-tier, in
// any position among the pools; ClusterString writes them back (what a
// run's outputs name), and bad values are refused in one line naming
// --cluster and the setting.
func TestClusterRacks(t *testing.T) {
	for spec, want := range map[string]string{
		"h100:64x8,racks=8,oversub=4":                  "h100:64x8,racks=8,oversub=4",
		"racks=8, h100:64x8":                           "h100:64x8,racks=8,oversub=1",
		"h100:32x8,a100-80gb:32x8,oversub=2.5,racks=4": "h100:32x8,a100-80gb:32x8,racks=4,oversub=2.5",
		// A sign is read as in the pools' counts (t4:+2x4) and every
		// count of the command line (--nodes +2, generate:jobs=+3).
		"h100:64x8,racks=+8": "h100:64x8,racks=8,oversub=1",
		"h100:64x8":          "h100:64x8",
	} {
		c, err := runspec.ParseCluster(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := runspec.ClusterString(c); got != want {
			t.Errorf("%s: ClusterString %q, want %q", spec, got, want)
		}
		again, err := runspec.ParseCluster(runspec.ClusterString(c))
		if err != nil || again.Racks != c.Racks || again.Oversubscription != c.Oversubscription || again.Nodes != c.Nodes {
			t.Errorf("%s: does not read back: %+v, %v", spec, again, err)
		}
	}
	c, _ := runspec.ParseCluster("h100:64x8,racks=8,oversub=4")
	if c.RackNodes() != 8 || c.Rack(7) != 0 || c.Rack(8) != 1 || c.Rack(63) != 7 {
		t.Errorf("racks of 8 consecutive nodes: got %d nodes a rack, node 8 in rack %d", c.RackNodes(), c.Rack(8))
	}
	for spec, want := range map[string]string{
		"h100:64x8,racks=7":             "racks=7 must divide the cluster's 64 nodes",
		"h100:64x8,racks=0":             "racks must be a whole number",
		"h100:64x8,racks=x":             "racks must be a whole number",
		"h100:64x8,oversub=4":           "needs racks",
		"h100:64x8,racks=8,oversub=0.9": "oversub must be a ratio in [1,",
		"h100:64x8,racks=8,oversub=NaN": "oversub must be",
		"h100:64x8,racks=8,oversub=Inf": "oversub must be",
		"h100:64x8,racks=8,racks=4":     "given twice",
		"h100:64x8,spine=2":             `unknown setting "spine"`,
		// Keys are case-sensitive, as --policy-opt's, --failures' and
		// generate:'s are.
		"h100:64x8,RACKS=8":           `--cluster "RACKS=8": unknown setting "RACKS" (keys are case-sensitive: "racks")`,
		"h100:64x8,racks=8,Oversub=2": `unknown setting "Oversub" (keys are case-sensitive: "oversub")`,
		"racks=8":                     "no pools",
	} {
		_, err := runspec.ParseCluster(spec)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--cluster") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseCluster(%q): got %v, want one line starting --cluster, containing %q", spec, err, want)
		}
	}
	path := filepath.Join(t.TempDir(), "cluster.txt")
	os.WriteFile(path, []byte("# two tiers\nracks=4 oversub=3\nfast h100 16 8\n"), 0o644)
	if c, err := runspec.LoadCluster(path); err != nil || c.Racks != 4 || c.Oversubscription != 3 {
		t.Errorf("cluster file with a network line: %+v, %v", c, err)
	}
	os.WriteFile(path, []byte("fast h100 16 8\nracks=5\n"), 0o644)
	if _, err := runspec.LoadCluster(path); err == nil || !strings.HasPrefix(err.Error(), path+":2: racks=5 must divide") {
		t.Errorf("cluster file with racks=5 on 16 nodes: %v, want %s:2: racks=5 must divide ...", err, path)
	}
	// The line named is the racks setting's, wherever oversub is.
	os.WriteFile(path, []byte("racks=3\nfast h100 16 8\noversub=2\n"), 0o644)
	if _, err := runspec.LoadCluster(path); err == nil || !strings.HasPrefix(err.Error(), path+":1: racks=3 must divide") {
		t.Errorf("cluster file with racks=3 on 16 nodes: %v, want %s:1: racks=3 must divide ...", err, path)
	}
	os.WriteFile(path, []byte("fast h100 16 8\n\noversub=2\n"), 0o644)
	if _, err := runspec.LoadCluster(path); err == nil || !strings.HasPrefix(err.Error(), path+":3: oversub=2 needs racks") {
		t.Errorf("cluster file with oversub and no racks: %v, want %s:3: oversub=2 needs racks", err, path)
	}
	os.WriteFile(path, []byte("fast h100 16 8\nRACKS=4\n"), 0o644)
	if _, err := runspec.LoadCluster(path); err == nil || !strings.HasPrefix(err.Error(), path+`:2: RACKS=4: unknown setting "RACKS" (keys are case-sensitive: "racks")`) {
		t.Errorf("cluster file with RACKS=4: %v", err)
	}
	os.WriteFile(path, []byte("fast h100 16 8\nracks=4 oversub\n"), 0o644)
	if _, err := runspec.LoadCluster(path); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("cluster file with a bad network line: %v, want %s:2", err, path)
	}
}
