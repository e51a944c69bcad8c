package outputs

import (
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/sim"
)

// TypeRow is one row of types.parquet: a GPU type of the run Key's
// cluster and what the run used of it.
type TypeRow struct {
	Key      *RunKey
	Type     string
	GPUs     int
	GPUHours float64
	// Cost is the GPU-hours' price, when the type has one (HasCost).
	Cost    float64
	HasCost bool
	Jobs    int
}

// TypesTable declares types.parquet.
var TypesTable = &Table[TypeRow]{File: "types.parquet", Where: "run, sweep", Doc: "one row per run and GPU type of its cluster (a cluster without pools is t4 GPUs, one row)", Fields: withRun(func(r TypeRow) *RunKey { return r.Key },
	Str("gpu_type", "", "the GPU type, as in --cluster's pools (t4 on a cluster without pools)", func(r TypeRow) string { return r.Type }),
	I64("gpus", "GPUs", "GPUs of the type in the cluster (an elastic cluster's initial size)", func(r TypeRow) int64 { return int64(r.GPUs) }),
	F64("gpu_hours", "GPU·h", "GPU time jobs held on the type; the rows of a run sum to its gpu_hours", func(r TypeRow) float64 { return r.GPUHours }),
	F64Null("cost", "price units", "gpu_hours × the type's price per GPU-hour (--cluster TYPE:NxG@PRICE); null when it has none", func(r TypeRow) (float64, bool) { return r.Cost, r.HasCost }),
	I64("jobs", "jobs", "jobs that held GPUs of the type at some time", func(r TypeRow) int64 { return int64(r.Jobs) }),
)}

// TypeRows are the rows of types.parquet of a run of the cluster c with
// summary s and jobs.
func TypeRows(key *RunKey, s *sim.Summary, c policies.Cluster, jobs []sim.JobResult) []TypeRow {
	if len(c.Pools) == 0 {
		ran := 0
		for _, j := range jobs {
			if j.GPUSeconds > 0 {
				ran++
			}
		}
		return []TypeRow{{Key: key, Type: policies.DefaultType, GPUs: c.TotalGPUs(), GPUHours: s.GPUHours, Jobs: ran}}
	}
	var rows []TypeRow
	for _, t := range c.Types() {
		r := TypeRow{Key: key, Type: t, GPUHours: s.GPUHoursByType[t], Jobs: s.JobsByType[t]}
		r.Cost, r.HasCost = s.CostByType[t]
		for _, p := range c.Pools {
			if p.Type == t {
				r.GPUs += p.Nodes * p.GPUsPerNode
			}
		}
		rows = append(rows, r)
	}
	return rows
}
