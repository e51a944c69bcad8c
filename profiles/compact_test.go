package profiles

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/models"
)

func TestCompact(t *testing.T) {
	set := Compact()
	want := []string{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}
	if !reflect.DeepEqual(set.Names(), want) || set.Source != CompactSource {
		t.Fatalf("Compact() = %v from %q", set.Names(), set.Source)
	}
	f, err := DefaultFile()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Provenance.Source, "c793c7089bd307462686339d29707925c461f9a9") || f.Provenance.License != "Apache-2.0" {
		t.Errorf("provenance %+v", f.Provenance)
	}
	epochs := map[string]int{"bert": 2, "cifar10": 100, "deepspeech2": 80, "imagenet": 90, "ncf": 10, "yolov3": 50}
	for _, name := range want {
		a := set.Apps[name]
		if a.Epochs != epochs[name] {
			t.Errorf("%s: epochs %d", name, a.Epochs)
		}
		tr := a.Truth
		if tr.Progress(0) != 0 || math.Abs(tr.Progress(a.Epochs)-a.Target()) > 1e-9 {
			t.Errorf("%s: progress 0 → %v, end %v vs target %v", name, tr.Progress(0), tr.Progress(a.Epochs), a.Target())
		}
		m0 := float64(a.Limits.InitBatch)
		for e := 0; e < a.Epochs; e++ {
			// At B0 every step is one unit of progress.
			if it := tr.Iterations(m0, e); math.Abs(it-tr.Progress(e+1)) > 1e-6*it {
				t.Fatalf("%s: Iterations(B0, %d) = %v, Progress(%d) = %v", name, e, it, e+1, tr.Progress(e+1))
			}
			if it, prev := tr.Iterations(float64(a.Limits.MaxBatch), e), tr.Iterations(float64(a.Limits.MaxBatch), e-1); e > 0 && !(it > prev) {
				t.Fatalf("%s: iterations do not grow: %v after %v", name, it, prev)
			}
			g := tr.Grad(float64(a.Limits.MaxBatch), e)
			if eff := g.Efficiency(m0, float64(a.Limits.MaxBatch)); !(eff > 0 && eff <= 1) {
				t.Fatalf("%s: efficiency %v", name, eff)
			}
		}
		for _, p := range [][]int{{1}, {2}, {4}, {1, 1}, {4, 4, 4}, repeat(4, 16), repeat(8, 30)} {
			for _, l := range []float64{float64(a.Limits.MinLocal), float64(a.Limits.MaxLocal), 0, math.NaN()} {
				step, sync := tr.Step(p, l)
				if !(step > 0) || sync < 0 || sync > step || math.IsInf(step, 0) {
					t.Fatalf("%s: Step(%v, %v) = %v, %v", name, p, l, step, sync)
				}
			}
		}
		if s, y := tr.Step([]int{0, 0}, 10); s != 0 || y != 0 {
			t.Errorf("%s: empty placement costs %v, %v", name, s, y)
		}
	}
	// The embedded default carries the reference's TunedJobs candidates.
	if got := TunedConfigs(set.Apps["imagenet"], 4); len(got) != 3 || got[0].Replicas != 24 || got[0].Batch != 3200 {
		t.Errorf("imagenet tuned configs %+v", got)
	}
	// Other node sizes recompute them from the compact model.
	if got := TunedConfigs(set.Apps["imagenet"], 8); len(got) == 0 {
		t.Error("no tuned configs for 8-GPU nodes")
	}
}

// TestEmbeddedVsReal measures how far the embedded default is from the
// measured tables (the table in docs/data.md) and checks that the embedded
// file is what `profiles derive` makes of the data today.
func TestEmbeddedVsReal(t *testing.T) {
	real := loadReference(t)
	def := Compact()
	fresh, err := Derive(real, Provenance{Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	derived := fresh.Set("fresh")
	t.Log("embedded default vs measured tables, relative error (mean / median / p90 / max):")
	t.Log("app          | step time, all rows             | step time, θ_sys alone | efficiency, all rows            | iterations, all rows")
	for _, name := range real.Names() {
		r, e := real.Apps[name], def.Apps[name]
		c, err := Compare(r, e)
		if err != nil {
			t.Fatal(err)
		}
		bare := *defaultModel(t, name)
		bare.Correction = CompactCorrection{}
		cb, err := Compare(r, bare.App())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-12s | %s | %5.1f%% / %5.1f%%        | %s | %s", name, fmtStats(c.Step), 100*cb.Step.Mean,
			100*cb.Step.P90, fmtStats(c.Efficiency), fmtStats(c.Iterations))
		if c.Step.Mean > 0.10 || c.Efficiency.Mean > 0.05 || c.Iterations.Mean > 0.05 || c.Target > 1e-5 {
			t.Errorf("%s: embedded model too far from the data: %+v", name, c)
		}
		if !reflect.DeepEqual(TunedConfigs(e, 4), roundedTuned(TunedConfigs(r, 4))) {
			t.Errorf("%s: tuned configs %v, want %v", name, TunedConfigs(e, 4), TunedConfigs(r, 4))
		}
		// Up to date: a fresh derivation predicts the same (within 1 %).
		cf, err := Compare(r, derived.Apps[name])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(cf.Step.Mean-c.Step.Mean) > 0.01 || math.Abs(cf.Efficiency.Mean-c.Efficiency.Mean) > 0.01 {
			t.Errorf("%s: embedded default is stale (fresh derive: step %.4f eff %.4f; embedded: %.4f %.4f); "+
				"rerun `polluxsim profiles derive` (see profiles/README.md)", name, cf.Step.Mean, cf.Efficiency.Mean,
				c.Step.Mean, c.Efficiency.Mean)
		}
	}
}

func roundedTuned(cs []TunedConfig) []TunedConfig {
	out := append([]TunedConfig(nil), cs...)
	for i := range out {
		out[i].JCT = round6(out[i].JCT)
	}
	return out
}

func defaultModel(t *testing.T, name string) *CompactModel {
	t.Helper()
	f, err := DefaultFile()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range f.Apps {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no %s in the default", name)
	return nil
}

func TestCompactRoundTrip(t *testing.T) {
	f, err := DefaultFile()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), defaultProfiles) {
		t.Error("the embedded file is not in the canonical encoding")
	}
	g, err := ParseCompact("again", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Error("round trip changed the file")
	}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	set, err := LoadCompact(path)
	if err != nil || set.Source != path || len(set.Apps) != 6 {
		t.Fatalf("LoadCompact: %v, %v", set, err)
	}
}

func TestParseCompactErrors(t *testing.T) {
	f, err := DefaultFile()
	if err != nil {
		t.Fatal(err)
	}
	base, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(fn func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	app0 := func(m map[string]any) map[string]any { return m["apps"].([]any)[0].(map[string]any) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", []byte("{\n\"format\": \"x\",\n"), "x.json: unexpected EOF"},
		{"wrong type", []byte("{\n  \"format\": 1\n}"), "x.json: line 2"},
		{"syntax", []byte("{\n\n  \"format\": ]"), "x.json: line 3"},
		{"format", mutate(func(m map[string]any) { m["format"] = "other/9" }), `format "other/9"`},
		{"unknown field", mutate(func(m map[string]any) { m["extra"] = 1 }), `unknown field "extra"`},
		{"no apps", mutate(func(m map[string]any) { m["apps"] = []any{} }), "no applications"},
		{"null app", mutate(func(m map[string]any) { m["apps"] = []any{nil} }), "is null"},
		{"duplicate", mutate(func(m map[string]any) { m["apps"] = append(m["apps"].([]any), m["apps"].([]any)[0]) }), "appears twice"},
		{"batch range", mutate(func(m map[string]any) { app0(m)["max_batch"] = 1 }), "batch range 12..1 is empty"},
		{"epochs", mutate(func(m map[string]any) { app0(m)["epochs"] = 0 }), "epochs 0"},
		{"negative param", mutate(func(m map[string]any) { app0(m)["throughput"].(map[string]any)["beta_c"] = -1 }), "throughput.beta_c -1 must be in [0, 1e+06]"},
		{"negative alpha_c", mutate(func(m map[string]any) { app0(m)["throughput"].(map[string]any)["alpha_c"] = -5 }), "throughput.alpha_c -5 must be in [0, 1e+06]"},
		{"gamma", mutate(func(m map[string]any) { app0(m)["throughput"].(map[string]any)["gamma"] = 11 }), "throughput.gamma 11 must be in [1, 10]"},
		{"no throughput", mutate(func(m map[string]any) { delete(app0(m), "throughput") }), `missing "throughput"`},
		{"no gamma", mutate(func(m map[string]any) { delete(app0(m)["throughput"].(map[string]any), "gamma") }), `missing "throughput.gamma"`},
		{"scaler", mutate(func(m map[string]any) { app0(m)["lr_scaler"] = "magic" }), `lr_scaler "magic" is not supported`},
		{"knots", mutate(func(m map[string]any) { app0(m)["noise"].(map[string]any)["epochs"] = []any{1, 0} }), "knots must increase"},
		{"ratios", mutate(func(m map[string]any) { app0(m)["steps"].(map[string]any)["log_ratio"] = []any{1} }), "1 log ratios for 2 epochs"},
		{"correction rows", mutate(func(m map[string]any) { app0(m)["correction"].(map[string]any)["log_factor"] = []any{} }), "correction has 0 rows"},
		{"target", mutate(func(m map[string]any) { app0(m)["target"] = 0 }), "target 0"},
		{"tiny target", mutate(func(m map[string]any) { app0(m)["target"] = 1e-308 }), "target 1e-308 must be in [1, 1e+12]"},
		{"target below an iteration", mutate(func(m map[string]any) { app0(m)["target"] = 0.5 }), "target 0.5 must be in [1, 1e+12]"},
		{"tuned", mutate(func(m map[string]any) { app0(m)["tuned"] = []any{map[string]any{"replicas": 0}} }), "tuned configuration"},
		{"trailing", append(append([]byte(nil), base...), []byte(" {}")...), "after the JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCompact("x.json", c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.json") {
				t.Fatalf("error %v, want one starting with x.json and containing %q", err, c.want)
			}
		})
	}
	if _, err := LoadCompact(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "missing file") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCompact(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file: %v", err)
	}
}

// TestCompactCorrection checks the bilinear surface and its clamping.
func TestCompactCorrection(t *testing.T) {
	c := CompactCorrection{Nodes: []float64{1, 3}, GPUsPerNode: []float64{1, 2},
		LogFactor: [][]float64{{0, math.Log(2)}, {math.Log(4), math.Log(8)}}}
	cases := []struct{ n, g, want float64 }{
		{1, 1, 1}, {1, 2, 2}, {3, 2, 8}, {2, 1, 2}, {2, 1.5, math.Pow(2, 1.5)}, {0, 0, 1}, {9, 9, 8},
	}
	for _, k := range cases {
		if got := c.at(k.n, k.g); math.Abs(got-k.want) > 1e-12 {
			t.Errorf("c(%v, %v) = %v, want %v", k.n, k.g, got, k.want)
		}
	}
	if (&CompactCorrection{}).at(3, 3) != 1 {
		t.Error("empty correction must be 1")
	}
}

// TestCompactThroughputIsTheta: without correction the compact Step is
// θ_sys's T_iter and T_grad.
func TestCompactThroughputIsTheta(t *testing.T) {
	m := *defaultModel(t, "cifar10")
	m.Correction = CompactCorrection{}
	p := m.Throughput.Params()
	step, sync := m.App().Truth.Step([]int{3, 0, 4}, 100)
	if math.Abs(step-p.TIter(2, 7, 100, 0)) > 1e-12 || math.Abs(step-sync-p.TGrad(100)) > 1e-12 {
		t.Errorf("Step = %v, %v; θ: %v, %v", step, sync, p.TIter(2, 7, 100, 0), p.TGrad(100))
	}
	var _ models.Params = p
}

func BenchmarkStepCompact(b *testing.B) {
	tr := Compact().Apps["imagenet"].Truth
	p := []int{4, 4, 4, 4, 3, 4, 4, 4, 4, 2}
	for i := 0; i < b.N; i++ {
		tr.Step(p, 100)
	}
}

func BenchmarkIterationsCompact(b *testing.B) {
	tr := Compact().Apps["cifar10"].Truth
	for i := 0; i < b.N; i++ {
		tr.Iterations(1000, 99)
	}
}
