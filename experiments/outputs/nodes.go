package outputs

import (
	"path/filepath"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/sim"
)

// NodeRow is one row of nodes.parquet: a round of the elastic cluster of
// the run Key, billed at Price per node-hour.
type NodeRow struct {
	Key   *RunKey
	Stat  *sim.NodeStat
	Price float64
}

// NodesTable declares nodes.parquet.
var NodesTable = &Table[NodeRow]{File: "nodes.parquet", Where: "run (elastic clusters only)", Doc: "one row per scheduling round of an elastic cluster: its nodes and the bill so far", Fields: withRun(func(r NodeRow) *RunKey { return r.Key },
	F64("time_s", "s", "time of the scheduling round", func(r NodeRow) float64 { return r.Stat.Time }),
	I64("ready_nodes", "nodes", "nodes ready and offered to the policy", func(r NodeRow) int64 { return int64(r.Stat.Ready) }),
	I64("provisioning_nodes", "nodes", "nodes ordered but not ready yet (billed, not offered)", func(r NodeRow) int64 { return int64(r.Stat.Provisioning) }),
	F64("node_hours", "node·h", "node-hours billed so far", func(r NodeRow) float64 { return r.Stat.NodeHours }),
	F64("cost", "price units", "node_hours × the price per node-hour", func(r NodeRow) float64 { return r.Stat.NodeHours * r.Price }),
)}

// writeNodes writes path with one row per round of an elastic cluster:
// its ready and provisioning nodes and the node-hours and cost billed so
// far (nodes.parquet).
func writeNodes(b *atomicfile.Batch, path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	ns := res.NodeStats
	price := 0.0
	if res.Config.Elastic != nil {
		price = res.Config.Elastic.NodePrice
	}
	return stageTable(b, path, NodesTable, func(i int) NodeRow { return NodeRow{key, &ns[i], price} }, len(ns), kv, order)
}

// nodesFile is the elastic cluster's node table in a run's output folder
// (elastic runs only; cluster.parquet is the per-round table of every run).
func nodesFile(dir string) string { return filepath.Join(dir, "nodes.parquet") }
