// Package mini is a workload source of one's own, in one file:
// "mini:FILE" reads a small CSV of jobs, name,time,app,gpus,batch (no
// header aliases, no other columns). From a sweep spec a workload set
// names it, "source": "mini:testdata/mini-{i}.csv", with parameters
// {"time_scale": X} that multiply every submission time.
package mini

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"

	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/traces"
)

// Params are what a sweep's workload set may give the source.
type Params struct {
	TimeScale float64 `json:"time_scale"`
}

// Source is the source: app.WithSource(mini.Source).
var Source = workloads.Source{
	Name: "mini", Usage: "mini:FILE", Doc: "example: a CSV name,time,app,gpus,batch",
	Resolve: resolve,
}

func resolve(file string, env workloads.Env) (*traces.Workload, []string, error) {
	p := Params{TimeScale: 1}
	if err := env.DecodeParams(&p); err != nil {
		return nil, nil, fmt.Errorf("mini:%s: %w", file, err)
	}
	if !(p.TimeScale > 0) {
		return nil, nil, fmt.Errorf("mini:%s: time_scale must be positive, got %v", file, p.TimeScale)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("mini:%s: %w", file, err)
	}
	w := &traces.Workload{Source: "mini:" + file}
	for i, r := range rows {
		if i == 0 {
			continue // the header
		}
		if len(r) != 5 {
			return nil, nil, fmt.Errorf("mini:%s line %d: want name,time,app,gpus,batch", file, i+1)
		}
		t, err1 := strconv.ParseFloat(r[1], 64)
		g, err2 := strconv.Atoi(r[3])
		b, err3 := strconv.Atoi(r[4])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, nil, fmt.Errorf("mini:%s line %d: bad number", file, i+1)
		}
		w.Jobs = append(w.Jobs, traces.Job{Name: r[0], Time: t * p.TimeScale, App: r[2], Replicas: g, Batch: b, Line: i + 1})
	}
	return w, nil, nil
}
