package experiments

import (
	"math"
	"path/filepath"

	"github.com/polluxsim/polluxsim/sim"
)

// elasticMetrics are the metrics of runs on an elastic cluster (zero
// otherwise). Ratios, tables and plots may name them; they are not among
// the fixed columns of every table.
var elasticMetrics = []metric{
	{name: "node_hours", get: func(r *RunResult) float64 { return r.Summary.NodeHours }},
	{name: "cost", get: func(r *RunResult) float64 { return r.Summary.Cost }},
}

// elasticMetric returns the elastic metric called name.
func elasticMetric(name string) (metric, bool) {
	for _, m := range elasticMetrics {
		if m.name == name {
			return m, true
		}
	}
	return metric{}, false
}

// ElasticSeries is an elastic cluster's state after each scheduling
// round: nodes (ready plus provisioning), and the mean total batch and
// mean true statistical efficiency of the jobs holding GPUs (0 when none
// does).
type ElasticSeries struct {
	Time       []float64 `json:"time_s"`
	Nodes      []int     `json:"nodes"`
	Batch      []float64 `json:"batch"`
	Efficiency []float64 `json:"efficiency"`
}

// elasticSeries is the series of a run on an elastic cluster, nil on a
// fixed one.
func elasticSeries(res *sim.Result) *ElasticSeries {
	if len(res.NodeStats) == 0 {
		return nil
	}
	s := &ElasticSeries{}
	nodes := make(map[float64]int, len(res.NodeStats))
	for _, ns := range res.NodeStats {
		nodes[ns.Time] = ns.Ready + ns.Provisioning
	}
	for _, rs := range res.RoundStats {
		s.Time = append(s.Time, rs.Time)
		s.Nodes = append(s.Nodes, nodes[rs.Time])
		s.Batch = append(s.Batch, math.Round(rs.Batch*10)/10)
		s.Efficiency = append(s.Efficiency, math.Round(rs.Efficiency*1e4)/1e4)
	}
	return s
}

// writeNodes writes path with one row per round of an elastic cluster:
// its ready and provisioning nodes and the node-hours and cost billed so
// far (nodes.parquet, see Tables).
func writeNodes(path string, key *runKey, res *sim.Result, kv map[string]string, order []string) error {
	ns := res.NodeStats
	price := 0.0
	if res.Config.Elastic != nil {
		price = res.Config.Elastic.NodePrice
	}
	cols := append(runCols(func(int) *runKey { return key }),
		f64Col("time_s", func(i int) float64 { return ns[i].Time }),
		i64Col("ready_nodes", func(i int) int64 { return int64(ns[i].Ready) }),
		i64Col("provisioning_nodes", func(i int) int64 { return int64(ns[i].Provisioning) }),
		f64Col("node_hours", func(i int) float64 { return ns[i].NodeHours }),
		f64Col("cost", func(i int) float64 { return ns[i].NodeHours * price }),
	)
	return writeTable(path, Table("nodes.parquet"), cols, len(ns), kv, order)
}

// nodesFile is the elastic cluster's node table in a run's output folder
// (elastic runs only; cluster.parquet is the per-round table of every run).
func nodesFile(dir string) string { return filepath.Join(dir, "nodes.parquet") }
