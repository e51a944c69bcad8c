package experiments

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/traces"
)

// FuzzParseExperiment feeds the experiment spec parser arbitrary input,
// seeded with every embedded spec: it must never panic, its errors name
// the spec, and what it accepts is a set of runs the simulator accepts
// (every cell's settings pass RunSpec.Validate, with a workload of at
// least one job), with unique run IDs.
func FuzzParseExperiment(f *testing.F) {
	for _, name := range ExperimentNames() {
		data, err := specFS.ReadFile("specs/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"name":"x","version":1,"cells":[{"name":"a","policy":"tiresias"}]}`))
	f.Add([]byte(`{"name":"x","version":1,"workloads":{"count":2,"jobs":10,"load":0.5},` +
		`"settings":{"nodes":4,"interval_s":120},"cells":[{"name":"a","policy":"pollux","options":{"p":-10}},` +
		`{"name":"b","policy":"optimus","workload":{"config":"realistic","jobs":3}}]}`))
	f.Add([]byte(`{"name":"x","version":1,"cells":[{"name":"a","policy":"pollux","settings":{"interval_s":-1}}]}`))
	f.Add([]byte(`{"name":"x","version":1,"cells":[{"name":"a","policy":"pollux","settings":{"policy":"fifo"}}]}`))
	f.Add([]byte(`{"name":"x","version":1,"cells":[{"name":"a","policy":"fifo","workload":{"load":1e308}}]}`))
	f.Add([]byte(`{"name":"x","version":1,"cells":[]}`))
	f.Add([]byte(`{"name":"x","version":1,"cells":[null]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseExperiment(data, "fuzz.json", testExt())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "experiment fuzz.json: ") {
				t.Fatalf("error does not name the spec: %v", err)
			}
			return
		}
		runs := e.Runs()
		want := 0
		for i := range e.Cells {
			c := &e.Cells[i]
			n := e.Workloads.Count
			if c.Set() != "" {
				n = e.Workloads.Set(c.Set()).Count
			}
			if c.Count() != n {
				t.Fatalf("cell %s: %d workloads, its set %q has %d", c.Name, c.Count(), c.Set(), n)
			}
			want += n
		}
		if len(runs) != want || len(runs) == 0 {
			t.Fatalf("%d runs for %d cells, want %d", len(runs), len(e.Cells), want)
		}
		ids := map[string]bool{}
		for _, r := range runs {
			if ids[r.ID()] {
				t.Fatalf("run ID %s twice", r.ID())
			}
			ids[r.ID()] = true
		}
		for i := range e.Cells {
			c := &e.Cells[i]
			if err := c.Spec().Validate(testExt()); err != nil {
				t.Fatalf("cell %s accepted with settings that fail Validate: %v", c.Name, err)
			}
			if c.Jobs() < 1 || !(c.Load() > 0) || (c.Config() != traces.ConfigTuned && c.Config() != traces.ConfigRealistic) {
				t.Fatalf("cell %s: jobs %d load %v config %q", c.Name, c.Jobs(), c.Load(), c.Config())
			}
		}
	})
}
