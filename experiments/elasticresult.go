package experiments

import (
	"path/filepath"

	"github.com/polluxsim/polluxsim/sim"
)

// elasticMetrics are the metrics of runs on an elastic cluster (zero
// otherwise). Ratios, tables and plots may name them; they are not among
// the fixed columns of every table.
var elasticMetrics = []metric{
	{"node_hours", func(r *RunResult) float64 { return r.Summary.NodeHours }},
	{"cost", func(r *RunResult) float64 { return r.Summary.Cost }},
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

// addElasticSeries fills the series' node counts (ready plus
// provisioning) and mean total batch of the running jobs, for runs on an
// elastic cluster.
func addElasticSeries(s *Series, res *sim.Result) {
	if len(res.NodeStats) == 0 {
		return
	}
	nodes := make(map[float64]int, len(res.NodeStats))
	for _, ns := range res.NodeStats {
		nodes[ns.Time] = ns.Ready + ns.Provisioning
	}
	batch := map[float64]float64{}
	running := map[float64]int{}
	for _, r := range res.Rounds {
		if r.GPUs > 0 {
			batch[r.Time] += float64(r.Batch)
			running[r.Time]++
		}
	}
	for _, t := range s.Time {
		s.Nodes = append(s.Nodes, nodes[t])
		b := 0.0
		if running[t] > 0 {
			b = batch[t] / float64(running[t])
		}
		s.Batch = append(s.Batch, roundTo(b, 1))
	}
}

// WriteCluster writes path with one row per round of an elastic cluster:
// its ready and provisioning nodes and the node-hours and cost billed so
// far.
func WriteCluster(path string, res *sim.Result, kv map[string]string, order []string) error {
	ns := res.NodeStats
	price := 0.0
	if res.Config.Elastic != nil {
		price = res.Config.Elastic.NodePrice
	}
	cols := []column{
		f64Col("time_s", func(i int) float64 { return ns[i].Time }),
		i64Col("ready_nodes", func(i int) int64 { return int64(ns[i].Ready) }),
		i64Col("provisioning_nodes", func(i int) int64 { return int64(ns[i].Provisioning) }),
		f64Col("node_hours", func(i int) float64 { return ns[i].NodeHours }),
		f64Col("cost", func(i int) float64 { return ns[i].NodeHours * price }),
	}
	return writeParquet(path, cols, len(ns), kv, order)
}

// clusterFile is the elastic cluster's table in a run's output folder.
func clusterFile(dir string) string { return filepath.Join(dir, "cluster.parquet") }
