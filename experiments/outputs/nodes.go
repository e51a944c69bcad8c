package outputs

import (
	"path/filepath"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/sim"
)

// writeNodes writes path with one row per round of an elastic cluster:
// its ready and provisioning nodes and the node-hours and cost billed so
// far (nodes.parquet, see Tables).
func writeNodes(b *atomicfile.Batch, path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	ns := res.NodeStats
	price := 0.0
	if res.Config.Elastic != nil {
		price = res.Config.Elastic.NodePrice
	}
	cols := append(RunCols(func(int) *RunKey { return key }),
		F64Col("time_s", func(i int) float64 { return ns[i].Time }),
		I64Col("ready_nodes", func(i int) int64 { return int64(ns[i].Ready) }),
		I64Col("provisioning_nodes", func(i int) int64 { return int64(ns[i].Provisioning) }),
		F64Col("node_hours", func(i int) float64 { return ns[i].NodeHours }),
		F64Col("cost", func(i int) float64 { return ns[i].NodeHours * price }),
	)
	return stageTable(b, path, Table("nodes.parquet"), cols, len(ns), kv, order)
}

// nodesFile is the elastic cluster's node table in a run's output folder
// (elastic runs only; cluster.parquet is the per-round table of every run).
func nodesFile(dir string) string { return filepath.Join(dir, "nodes.parquet") }
