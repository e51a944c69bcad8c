package profiles

import (
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/models"
)

// TestEmbedded: the default set is the measured tables, with the limits
// and training lengths of the reference simulator (FORMAT's per-app table).
func TestEmbedded(t *testing.T) {
	set := Default()
	if set.Source != EmbeddedSource || DefaultSource != EmbeddedSource {
		t.Fatalf("Default() from %q", set.Source)
	}
	want := map[string]struct {
		lim    models.Limits
		epochs int
	}{
		"bert":        {models.Limits{InitBatch: 12, MaxBatch: 384, MinLocal: 4, MaxLocal: 12}, 2},
		"cifar10":     {models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 1024}, 100},
		"deepspeech2": {models.Limits{InitBatch: 20, MaxBatch: 640, MinLocal: 10, MaxLocal: 80}, 80},
		"imagenet":    {models.Limits{InitBatch: 200, MaxBatch: 12800, MinLocal: 20, MaxLocal: 200}, 90},
		"ncf":         {models.Limits{InitBatch: 256, MaxBatch: 32768, MinLocal: 32, MaxLocal: 32768}, 10},
		"yolov3":      {models.Limits{InitBatch: 8, MaxBatch: 512, MinLocal: 4, MaxLocal: 8}, 50},
	}
	if len(set.Apps) != len(want) {
		t.Fatalf("apps %v", set.Names())
	}
	for name, w := range want {
		a := set.Apps[name]
		if a == nil || a.Limits != w.lim || a.Epochs != w.epochs {
			t.Errorf("%s: %+v", name, a)
			continue
		}
		if _, ok := a.Truth.(*TableTruth); !ok {
			t.Errorf("%s: truth %T, want the measured tables", name, a.Truth)
		}
	}
	// A measured row read back exactly: bert, 1 node × 1 GPU, local batch 4
	// (the first row of placements.csv).
	step, sync := set.Apps["bert"].Truth.Step([]int{1}, 4)
	if step <= 0 || sync < 0 || sync > step {
		t.Errorf("bert step %v sync %v", step, sync)
	}
}

// TestEmbeddedEqualsReference: where the reference folder is present, the
// embedded set answers exactly as the folder does.
func TestEmbeddedEqualsReference(t *testing.T) {
	ref, err := Load(refdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	emb := Embedded()
	if !reflect.DeepEqual(ref.Names(), emb.Names()) {
		t.Fatalf("names %v vs %v", emb.Names(), ref.Names())
	}
	for _, name := range ref.Names() {
		r, e := ref.Apps[name], emb.Apps[name]
		if r.Limits != e.Limits || r.Epochs != e.Epochs || !reflect.DeepEqual(r.ValidatedBatches, e.ValidatedBatches) {
			t.Errorf("%s: %+v vs %+v", name, e, r)
		}
		for _, p := range [][]int{{1}, {4}, {2, 2}, {4, 4, 4, 4}, {4, 4, 4, 4, 4, 4, 4, 4}, {3, 1, 2}} {
			for _, local := range []float64{float64(r.Limits.MinLocal), float64(r.Limits.MaxLocal)} {
				rs, rc := r.Truth.Step(p, local)
				es, ec := e.Truth.Step(p, local)
				if rs != es || rc != ec {
					t.Errorf("%s %v %v: step %v/%v vs %v/%v", name, p, local, es, ec, rs, rc)
				}
			}
		}
		for ep := 0; ep < r.Epochs; ep += max(1, r.Epochs/7) {
			b := float64(r.Limits.MaxBatch)
			if r.Truth.Grad(b, ep) != e.Truth.Grad(b, ep) || r.Truth.Progress(ep+1) != e.Truth.Progress(ep+1) ||
				r.Truth.Iterations(b, ep) != e.Truth.Iterations(b, ep) {
				t.Errorf("%s epoch %d differs", name, ep)
			}
		}
	}
}

// TestNamedSets: every built-in set loads by name, says where its figures
// come from, and is its own Source.
func TestNamedSets(t *testing.T) {
	sets := NamedSets()
	if len(sets) != 3 || sets[0].Name != DefaultSource || sets[2].Name != LLMSource {
		t.Fatalf("%+v", sets)
	}
	for _, n := range sets {
		set, ok := Named(n.Name)
		apps, source := 6, "petuum/adaptdl"
		if n.Name == LLMSource {
			apps, source = 20, "llm-foundry"
		}
		if !ok || set.Source != n.Name || len(set.Apps) != apps {
			t.Errorf("%s: %v %+v", n.Name, ok, set)
		}
		if !strings.Contains(n.Description, source) || !strings.Contains(n.Description, "Apache-2.0") {
			t.Errorf("%s: description %q", n.Name, n.Description)
		}
	}
	if _, ok := Named("nosuch"); ok {
		t.Error("unknown name accepted")
	}
	if _, ok := Compact().Apps["bert"].Truth.(*TableTruth); ok {
		t.Error("compact set holds tables")
	}
}
