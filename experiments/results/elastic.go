package results

import (
	"math"

	"github.com/polluxsim/polluxsim/sim"
)

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
