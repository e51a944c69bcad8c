package profiles

import (
	"math"
	"strings"
	"testing"
)

// The fuzz targets feed arbitrary bytes to the parsers: they must never
// panic, and either return an error naming the file or rows that obey the
// format's rules, from which a Truth answers with sane numbers. Seeds are
// small synthetic tables; run e.g. `go test ./profiles -fuzz FuzzParsePlacements`.

func checkFuzzError(t *testing.T, file string, err error) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), file+":") {
		t.Fatalf("error does not name the file: %v", err)
	}
}

// checkStep asks a Truth a few questions and checks the answers.
func checkStep(t *testing.T, tr Truth) {
	t.Helper()
	for _, p := range [][]int{{1}, {2, 1}, {4, 4, 4, 4, 4, 4}, {8}, {0, 3, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}} {
		for _, l := range []float64{-1, 0, 1, 7.5, 64, 1e6, math.Inf(1), math.NaN()} {
			step, sync := tr.Step(p, l)
			if math.IsNaN(step) || math.IsNaN(sync) || step < 0 || sync < 0 || sync > step {
				t.Fatalf("Step(%v, %v) = %v, %v", p, l, step, sync)
			}
		}
	}
}

var fuzzValidation = map[int][]ValidationRow{16: {{Progress: 10, Iteration: 10, GradSqr: 1, GradVar: 1}}}

func FuzzParsePlacements(f *testing.F) {
	f.Add([]byte(toyPlacements))
	f.Add([]byte("placement,local_bsz,step_time,sync_time\n1,8,0.1,0.01\n"))
	f.Add([]byte("sync_time,placement,local_bsz,step_time\n0,21,4,1e-3\n0.0005,12,5,2e-3\n"))
	f.Add([]byte("placement,local_bsz,step_time,sync_time\n\"1\",8,0.1,0.01\r\n\n4444,1e3,9,8\n"))
	f.Add([]byte("placement,local_bsz,step_time,sync_time\n10,8,0.1,0.01\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParsePlacements("p.csv", data)
		if err != nil {
			checkFuzzError(t, "p.csv", err)
			return
		}
		if len(rows) == 0 {
			t.Fatal("no rows and no error")
		}
		for _, r := range rows {
			if len(r.Placement) == 0 || placementKey(r.Placement) != placementKey(NormalizePlacement(r.Placement)) {
				t.Fatalf("placement %v not normalised", r.Placement)
			}
			for _, g := range r.Placement {
				if g < 1 || g > 9 {
					t.Fatalf("placement digit %d", g)
				}
			}
			if !(r.Local > 0) || !(r.Step > 0) || r.Sync < 0 || r.Sync > r.Step || math.IsInf(r.Step, 0) {
				t.Fatalf("row %+v", r)
			}
		}
		checkStep(t, NewTableTruth(rows, nil, fuzzValidation))
	})
}

func FuzzParseScalability(f *testing.F) {
	f.Add([]byte(toyScalability))
	f.Add([]byte("num_nodes,num_replicas,local_bsz,step_time,sync_time\n6,6,32,0.1,0.05\n6,24,32,0.2,0.1\n"))
	f.Add([]byte("num_replicas,num_nodes,local_bsz,step_time,sync_time\n16.0,16,4,1,0\n"))
	f.Add([]byte("num_nodes,num_replicas,local_bsz,step_time,sync_time\n2,1,32,0.1,0.05\n"))
	base, err := ParsePlacements("p.csv", []byte(toyPlacements))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseScalability("s.csv", data)
		if err != nil {
			checkFuzzError(t, "s.csv", err)
			return
		}
		for _, r := range rows {
			if r.Nodes < 1 || r.Replicas < r.Nodes || !(r.Local > 0) || !(r.Step > 0) || r.Sync < 0 || r.Sync > r.Step {
				t.Fatalf("row %+v", r)
			}
		}
		checkStep(t, NewTableTruth(base, rows, fuzzValidation))
	})
}

func FuzzParseValidation(f *testing.F) {
	f.Add([]byte(toyValidation16))
	f.Add([]byte(toyValidation64))
	f.Add([]byte("progress,iteration,metric,grad_sqr,grad_var\n1,1,-3.5,0,0\n1,2,nan,0,0\n"))
	f.Add([]byte("grad_var,grad_sqr,metric,iteration,progress\n1e300,1e-300,1,1,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseValidation("v.csv", data)
		if err != nil {
			checkFuzzError(t, "v.csv", err)
			return
		}
		for i, r := range rows {
			if r.Progress < 0 || r.Iteration < 0 || r.GradSqr < 0 || r.GradVar < 0 || math.IsNaN(r.Metric) {
				t.Fatalf("row %+v", r)
			}
			if i > 0 && (r.Progress < rows[i-1].Progress || r.Iteration < rows[i-1].Iteration) {
				t.Fatalf("rows %d and %d decrease", i-1, i)
			}
		}
		c := newTrainingCurves([]float64{8, 32}, [][]ValidationRow{rows, rows[:1]})
		for _, b := range []float64{1, 8, 20, 32, 1e9} {
			for _, e := range []int{-1, 0, 1, len(rows), 1 << 30} {
				g := c.Grad(b, e)
				if math.IsNaN(g.Sqr) || math.IsNaN(g.Var) || math.IsNaN(c.Iterations(b, e)) || math.IsNaN(c.Progress(e)) {
					t.Fatalf("NaN at batch %v epoch %d", b, e)
				}
			}
		}
	})
}

func FuzzParseCompact(f *testing.F) {
	f.Add(defaultProfiles)
	f.Add([]byte(`{"format":"polluxsim-compact-profiles/1","provenance":{"source":"s","derived_by":"d","method":"m"},` +
		`"apps":[{"name":"toy","init_batch":16,"max_batch":64,"min_local":8,"max_local":16,"epochs":2,"lr_scaler":"adascale",` +
		`"validated_batches":[16,64],"target":200,"throughput":{"alpha_c":0.05,"beta_c":0.01,"alpha_r":0.02,"beta_r":0,` +
		`"alpha_n":0.1,"beta_n":0,"gamma":1},"correction":{"nodes":[1],"gpus_per_node":[1],"log_factor":[[0]]},` +
		`"noise":{"epochs":[0,1],"log_ratio":[0,1],"batch_exponent":0},"steps":{"epochs":[0],"log_ratio":[0],"batch_exponent":0}}]}`))
	f.Add([]byte(`{"format":"polluxsim-compact-profiles/1","apps":[null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := ParseCompact("c.json", data)
		if err != nil {
			checkFuzzError(t, "c.json", err)
			return
		}
		set := cf.Set("fuzz")
		for _, a := range set.Apps {
			checkStep(t, a.Truth)
			for _, e := range []int{-1, 0, a.Epochs - 1, a.Epochs + 3} {
				for _, b := range []float64{0, float64(a.Limits.InitBatch), float64(a.Limits.MaxBatch), 1e12} {
					g := a.Truth.Grad(b, e)
					it := a.Truth.Iterations(b, e)
					if math.IsNaN(g.Var) || math.IsNaN(g.Sqr) || math.IsNaN(it) || math.IsNaN(a.Truth.Progress(e)) {
						t.Fatalf("%s: NaN at batch %v epoch %d", a.Name, b, e)
					}
				}
			}
		}
	})
}

// FuzzParseTypes: a per-type profiles file either fails with an error that
// names the file, or attaches (or refuses, with an error) to the compact
// profiles, and every attached type answers step-time questions sanely.
func FuzzParseTypes(f *testing.F) {
	f.Add(defaultTypes)
	f.Add([]byte(`{"format":"polluxsim-compact-types/1","apps":[]}`))
	f.Add([]byte(`{"format":"polluxsim-compact-types/1","apps":[{"name":"cifar10","types":[null]}]}`))
	f.Add([]byte(`{"format":"polluxsim-compact-types/1","apps":[{"name":"cifar10","types":[{"type":"a100","min_local":0,"max_local":-1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := ParseTypes("t.json", data)
		if err != nil {
			checkFuzzError(t, "t.json", err)
			return
		}
		set := Compact()
		for _, a := range set.Apps {
			a.ByType = nil
		}
		if err := tf.Attach(set); err != nil {
			return
		}
		for _, a := range set.Apps {
			for _, typ := range a.Types() {
				if b := a.ForType(typ); b != nil && b.Truth != nil {
					checkStep(t, b.Truth)
				}
			}
		}
	})
}
