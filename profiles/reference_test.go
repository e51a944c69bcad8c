package profiles

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/models"
)

// loadReference loads the reference data set or skips the test.
func loadReference(t testing.TB) *Set {
	t.Helper()
	set, err := Load(refdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// BenchmarkLoadReference measures reading the six applications' tables
// (about 0.2 s on a quiet 2-core machine).
func BenchmarkLoadReference(b *testing.B) {
	dir := refdata.Dir(b)
	for b.Loop() {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLoadReference(t *testing.T) {
	dir := refdata.Dir(t)
	start := time.Now()
	set, err := Load(dir)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d applications in %v", len(set.Apps), elapsed)
	// FORMAT.md's table of per-application constants.
	want := map[string]struct {
		lim           models.Limits
		epochs, fixed int
		maxGPUs       int
		batches       int
	}{
		"bert":        {models.Limits{InitBatch: 12, MaxBatch: 384, MinLocal: 4, MaxLocal: 12}, 2, 0, 0, 6},
		"cifar10":     {models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 1024}, 100, 0, 0, 6},
		"deepspeech2": {models.Limits{InitBatch: 20, MaxBatch: 640, MinLocal: 10, MaxLocal: 80}, 80, 0, 0, 6},
		"imagenet":    {models.Limits{InitBatch: 200, MaxBatch: 12800, MinLocal: 20, MaxLocal: 200}, 90, 0, 0, 7},
		"ncf":         {models.Limits{InitBatch: 256, MaxBatch: 32768, MinLocal: 32, MaxLocal: 32768}, 10, 32768, 1, 8},
		"yolov3":      {models.Limits{InitBatch: 8, MaxBatch: 512, MinLocal: 4, MaxLocal: 8}, 50, 0, 0, 7},
	}
	if len(set.Apps) != len(want) {
		t.Fatalf("apps %v", set.Names())
	}
	for name, w := range want {
		a := set.Apps[name]
		if a == nil {
			t.Fatalf("missing %s", name)
		}
		if a.Limits != w.lim || a.Epochs != w.epochs || a.FixedBatch != w.fixed || a.MaxGPUs != w.maxGPUs ||
			len(a.ValidatedBatches) != w.batches {
			t.Errorf("%s: limits %+v epochs %d fixed %d maxGPUs %d batches %v", name, a.Limits,
				a.Epochs, a.FixedBatch, a.MaxGPUs, a.ValidatedBatches)
		}
	}
	// The traces/ folder itself works as well.
	again, err := Load(filepath.Join(dir, "traces"))
	if err != nil || !reflect.DeepEqual(again.Names(), set.Names()) {
		t.Errorf("Load(traces/) = %v, %v", again.Names(), err)
	}
}

// TestMeasuredPointsExact: at every measured point the Truth returns the
// measurement itself, for placements in any rotation and with idle nodes,
// and for the scalability rows' (nodes, replicas, local) points.
func TestMeasuredPointsExact(t *testing.T) {
	set := loadReference(t)
	for _, name := range set.Names() {
		tt := set.Apps[name].Truth.(*TableTruth)
		for _, r := range tt.Placements {
			p := r.Placement
			variants := [][]int{p, append([]int{0}, p...), append(append([]int(nil), p[1:]...), p[0])}
			for _, v := range variants {
				step, sync := tt.Step(v, r.Local)
				if step != r.Step || sync != r.Sync {
					t.Fatalf("%s line %d: Step(%v, %v) = %v, %v, want %v, %v", name, r.Line, v, r.Local, step, sync, r.Step, r.Sync)
				}
			}
			if !tt.Measured(p) {
				t.Fatalf("%s: placement %v not reported as measured", name, p)
			}
		}
		for _, r := range tt.Scalability {
			for _, p := range [][]int{SpreadPlacement(r.Replicas, r.Nodes), PackedPlacementOn(r.Replicas, r.Nodes)} {
				step, sync := tt.Step(p, r.Local)
				if step != r.Step || sync != r.Sync {
					t.Fatalf("%s scalability line %d: Step(%v, %v) = %v, %v, want %v, %v", name, r.Line, p, r.Local, step, sync, r.Step, r.Sync)
				}
			}
		}
	}
}

// PackedPlacementOn puts gpus GPUs on exactly nodes nodes, filling the
// first ones up to 4 (for tests: another split with the same counts).
func PackedPlacementOn(gpus, nodes int) []int {
	p := make([]int, nodes)
	left := gpus - nodes
	for i := range p {
		p[i] = 1 + min(left, 3)
		left -= p[i] - 1
	}
	return p
}

// TestStepInterpolation: between measured per-GPU sizes the step is linear;
// outside it is clamped for measured placements.
func TestStepInterpolation(t *testing.T) {
	set := loadReference(t)
	tt := set.Apps["imagenet"].Truth.(*TableTruth)
	s1, y1 := tt.Step([]int{2, 4}, 20)
	s2, y2 := tt.Step([]int{2, 4}, 28)
	s, y := tt.Step([]int{4, 2}, 23)
	w := 3.0 / 8
	if math.Abs(s-(s1+w*(s2-s1))) > 1e-12 || math.Abs(y-(y1+w*(y2-y1))) > 1e-12 {
		t.Errorf("interpolation at 23: %v, %v", s, y)
	}
	lo, _ := tt.Step([]int{2, 4}, 1)
	hi, _ := tt.Step([]int{2, 4}, 1000)
	last, _ := tt.Step([]int{2, 4}, 200)
	if lo != s1 || hi != last {
		t.Errorf("clamping: %v vs %v, %v vs %v", lo, s1, hi, last)
	}
}

// TestStepRobust: any placement (8-GPU nodes, more than 16 nodes, 100+
// GPUs, odd batch sizes) gives finite times with 0 ≤ sync ≤ step, the same
// answer every time, and step times that do not fall when GPUs are added
// beyond the measured range.
func TestStepRobust(t *testing.T) {
	set := loadReference(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range set.Names() {
		app := set.Apps[name]
		tr := app.Truth
		for i := 0; i < 3000; i++ {
			n := 1 + rng.IntN(24)
			p := make([]int, n)
			for j := range p {
				p[j] = rng.IntN(9)
			}
			local := math.Exp(rng.Float64()*8) - 1
			step, sync := tr.Step(p, local)
			step2, sync2 := tr.Step(p, local)
			if math.IsNaN(step) || math.IsInf(step, 0) || sync < 0 || sync > step || step < 0 {
				t.Fatalf("%s: Step(%v, %v) = %v, %v", name, p, local, step, sync)
			}
			if step != step2 || sync != sync2 {
				t.Fatalf("%s: Step not deterministic", name)
			}
			if sum(p) > 0 && !(step > 0) {
				t.Fatalf("%s: Step(%v, %v) = %v", name, p, local, step)
			}
		}
		if s, y := tr.Step(nil, 8); s != 0 || y != 0 {
			t.Errorf("%s: empty placement costs %v, %v", name, s, y)
		}
		// Outside the measured hull: monotone in GPUs per node, in GPUs
		// beyond 64 and in the per-GPU batch beyond the largest measured.
		m := float64(app.Limits.MinLocal)
		for _, pair := range [][2][]int{
			{{4}, {8}}, {{4, 4}, {8, 8}}, {{4, 4, 4, 4, 4, 4}, {8, 8, 8, 8, 8, 8}},
			{repeat(4, 16), repeat(4, 20)}, {repeat(4, 16), repeat(8, 16)}, {repeat(2, 10), repeat(8, 10)},
		} {
			a, _ := tr.Step(pair[0], m)
			b, _ := tr.Step(pair[1], m)
			if b < a {
				t.Errorf("%s: Step(%v) = %v < Step(%v) = %v", name, pair[1], b, pair[0], a)
			}
		}
		prev := 0.0
		for l := m; l < 40*float64(app.Limits.MaxLocal); l *= 1.5 {
			s, _ := tr.Step(repeat(4, 10), l)
			if l > 2*float64(app.Limits.MaxLocal) && s < prev {
				t.Errorf("%s: step falls beyond the measured batch sizes: %v at %v after %v", name, s, l, prev)
			}
			prev = s
		}
	}
}

func repeat(g, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = g
	}
	return p
}

// TestStepConcurrent: one Truth serves parallel simulations.
func TestStepConcurrent(t *testing.T) {
	set := loadReference(t)
	tr := set.Apps["cifar10"].Truth
	want, _ := tr.Step([]int{4, 4, 4, 4, 4}, 100)
	var wg sync.WaitGroup
	errs := make(chan float64, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				if s, _ := tr.Step([]int{4, 4, 4, 4, 4}, 100); s != want {
					errs <- s
					return
				}
				tr.Step([]int{1, 2}, float64(32+i%900))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Fatalf("concurrent Step = %v, want %v", s, want)
	}
}

func TestTrainingCurves(t *testing.T) {
	set := loadReference(t)
	for _, name := range set.Names() {
		app := set.Apps[name]
		tt := app.Truth.(*TableTruth)
		for _, b := range app.ValidatedBatches {
			rows := tt.Validation[b]
			for e, r := range rows {
				g := tt.Grad(float64(b), e)
				if g.Sqr != r.GradSqr || g.Var != r.GradVar || tt.Iterations(float64(b), e) != r.Iteration {
					t.Fatalf("%s B=%d epoch %d: %+v, %v", name, b, e, g, tt.Iterations(float64(b), e))
				}
			}
			// Epochs past the end use the last row.
			last := rows[len(rows)-1]
			if g := tt.Grad(float64(b), len(rows)+5); g.Sqr != last.GradSqr {
				t.Errorf("%s: epoch past the end not clamped", name)
			}
		}
		// Between two validated sizes: linear in the batch size.
		b0, b1 := app.ValidatedBatches[0], app.ValidatedBatches[1]
		mid := float64(b0+b1) / 2
		want := (tt.Validation[b0][1].GradVar + tt.Validation[b1][1].GradVar) / 2
		if got := tt.Grad(mid, 1).Var; math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: Grad var at %v = %v, want %v", name, mid, got, want)
		}
		// Outside: clamped.
		if tt.Grad(1, 0) != tt.Grad(float64(b0), 0) || tt.Grad(1e9, 0) != tt.Grad(float64(app.Limits.MaxBatch), 0) {
			t.Errorf("%s: Grad not clamped outside the validated sizes", name)
		}
		// Progress: 0, then the minimum over runs.
		if tt.Progress(0) != 0 {
			t.Errorf("%s: Progress(0) = %v", name, tt.Progress(0))
		}
		for e := 1; e <= app.Epochs; e++ {
			m := math.Inf(1)
			for _, rows := range tt.Validation {
				m = math.Min(m, rows[e-1].Progress)
			}
			if tt.Progress(e) != m {
				t.Fatalf("%s: Progress(%d) = %v, want %v", name, e, tt.Progress(e), m)
			}
		}
	}
}

// TestTunedConfigsReference reproduces FORMAT.md's "Resulting configs".
func TestTunedConfigsReference(t *testing.T) {
	set := loadReference(t)
	want := map[string][][2]int{
		"bert":        {{6, 384}, {8, 384}, {12, 384}, {16, 384}},
		"cifar10":     {{6, 2048}, {8, 2048}, {12, 4096}, {16, 4096}},
		"deepspeech2": {{6, 320}, {8, 320}, {12, 640}},
		"imagenet":    {{24, 3200}, {32, 6400}, {48, 6400}},
		"ncf":         {{1, 32768}},
		"yolov3":      {{4, 64}},
	}
	for name, w := range want {
		got := TunedConfigs(set.Apps[name], 4)
		var pairs [][2]int
		for _, c := range got {
			pairs = append(pairs, [2]int{c.Replicas, c.Batch})
			if !(c.JCT > 0 && c.JCT < 12*3600) {
				t.Errorf("%s: JCT %v", name, c.JCT)
			}
		}
		if !reflect.DeepEqual(pairs, w) {
			t.Errorf("%s: TunedConfigs = %v, want %v", name, pairs, w)
		}
	}
}

func TestPlacements(t *testing.T) {
	if got := models.PackedPlacement(10, 4); !reflect.DeepEqual(got, []int{4, 4, 2}) {
		t.Errorf("models.PackedPlacement(10, 4) = %v", got)
	}
	if got := SpreadPlacement(10, 4); !reflect.DeepEqual(got, []int{3, 3, 2, 2}) {
		t.Errorf("SpreadPlacement(10, 4) = %v", got)
	}
	if models.PackedPlacement(0, 4) != nil || SpreadPlacement(3, 4) != nil {
		t.Error("impossible placements must be nil")
	}
}

// TestLeaveOneOut logs the leave-one-out error of the interpolation of
// unmeasured placements (the table in docs/data.md).
func TestLeaveOneOut(t *testing.T) {
	set := loadReference(t)
	t.Log("leave-one-out relative error of the step time (mean / median / p90 / max):")
	t.Log("app          | pairs held out                  | node levels 6, 8, 12 held out")
	for _, name := range set.Names() {
		res, err := LeaveOneOutError(set.Apps[name])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-12s | %s | %s", name, fmtStats(res.Pairs), fmtStats(res.Levels))
		if res.Pairs.N == 0 || res.Levels.N == 0 {
			t.Errorf("%s: nothing held out", name)
		}
		if res.Pairs.Mean > 0.15 || res.Levels.Mean > 0.15 {
			t.Errorf("%s: leave-one-out error too large: %+v", name, res)
		}
	}
}

func fmtStats(s ErrorStats) string {
	return fmt.Sprintf("%5.1f%% / %5.1f%% / %5.1f%% / %5.1f%%", 100*s.Mean, 100*s.Median, 100*s.P90, 100*s.Max)
}

func BenchmarkStepMeasured(b *testing.B) {
	set := loadReference(b)
	tr := set.Apps["imagenet"].Truth
	p := []int{0, 4, 2, 4}
	for i := 0; i < b.N; i++ {
		tr.Step(p, 100)
	}
}

func BenchmarkStepInterpolated(b *testing.B) {
	set := loadReference(b)
	tr := set.Apps["imagenet"].Truth
	p := []int{4, 4, 4, 4, 3, 4, 4, 4, 4, 2}
	for i := 0; i < b.N; i++ {
		tr.Step(p, 100)
	}
}

func BenchmarkLoad(b *testing.B) {
	dir := refdata.Dir(b)
	for i := 0; i < b.N; i++ {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
