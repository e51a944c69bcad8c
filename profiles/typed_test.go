package profiles

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

// embeddedTypes are the GPU types the embedded per-type models cover.
var embeddedTypes = []string{"a100", "rtx2080ti", "rtx6000", "v100"}

// TestEmbeddedTypes: on every GPU type, every built-in set's application
// has a profile; its step times are positive, finite, grow with the
// per-GPU batch and with synchronisation, and its training curve is the
// application's own.
func TestEmbeddedTypes(t *testing.T) {
	for _, set := range []*Set{Default(), Compact()} {
		for _, name := range set.Names() {
			base := set.Apps[name]
			if got := base.Types(); !reflect.DeepEqual(got, []string{"a100", "rtx2080ti", "rtx6000", "t4", "v100"}) {
				t.Errorf("%s %s: types %v", set.Source, name, got)
			}
			if base.ForType(T4) != base {
				t.Errorf("%s %s: T4 is not the application's own profile", set.Source, name)
			}
			for _, typ := range embeddedTypes {
				a := base.ForType(typ)
				if a == nil || a.Type != typ || a.Name != name {
					t.Fatalf("%s %s: no profile on %s: %+v", set.Source, name, typ, a)
				}
				checkTypedApp(t, set.Source, base, a)
			}
		}
	}
	// A100s compute faster than T4s: imagenet at 64 images per GPU.
	im := Default().Apps["imagenet"]
	ta, _ := im.ForType("a100").Truth.Step([]int{1}, 64)
	tt, _ := im.Truth.Step([]int{1}, 64)
	if !(ta < tt/2) {
		t.Errorf("imagenet at 64 per GPU: A100 step %v, T4 %v; want the A100 at least twice as fast", ta, tt)
	}
}

func checkTypedApp(t *testing.T, source string, base, a *App) {
	t.Helper()
	lim, blim := a.Limits, base.Limits
	if lim.InitBatch != blim.InitBatch || lim.MaxBatch != blim.MaxBatch || lim.MinLocal < 1 || lim.MaxLocal < lim.MinLocal ||
		a.Epochs != base.Epochs || a.FixedBatch != base.FixedBatch || a.MaxGPUs != base.MaxGPUs {
		t.Errorf("%s %s on %s: limits %+v (base %+v)", source, a.Name, a.Type, lim, blim)
	}
	prev := 0.0
	for _, m := range []int{lim.MinLocal, (lim.MinLocal + lim.MaxLocal) / 2, lim.MaxLocal} {
		one, oneSync := a.Truth.Step([]int{1}, float64(m))
		if !(one > 0) || math.IsInf(one, 0) || oneSync < 0 || oneSync > 0.01*one || one < prev {
			t.Errorf("%s %s on %s: one-GPU step at %d: %v (sync %v, previous %v)", source, a.Name, a.Type, m, one, oneSync, prev)
		}
		prev = one
		for _, p := range [][]int{{2}, {4}, {8}, {8, 8}, {4, 4, 4}} {
			step, sync := a.Truth.Step(p, float64(m))
			if !(step > 0) || math.IsInf(step, 0) || sync < 0 || sync > step || step > 20*one {
				t.Errorf("%s %s on %s: step on %v at %d: %v (sync %v; one GPU %v)", source, a.Name, a.Type, p, m, step, sync, one)
			}
		}
	}
	b := float64(lim.MaxBatch)
	for _, e := range []int{0, a.Epochs / 2, a.Epochs - 1} {
		if a.Truth.Grad(b, e) != base.Truth.Grad(b, e) || a.Truth.Iterations(b, e) != base.Truth.Iterations(b, e) ||
			a.Truth.Progress(e+1) != base.Truth.Progress(e+1) {
			t.Errorf("%s %s on %s: training curve differs from the application's at epoch %d", source, a.Name, a.Type, e)
		}
	}
}

// TestEmbeddedTypesUpToDate: where the Sia artifact's tables are present,
// deriving the per-type models again gives exactly the embedded figures
// (to their 6 significant digits), so the two cannot drift apart.
func TestEmbeddedTypesUpToDate(t *testing.T) {
	set, err := Load(refdata.SiaDir(t))
	if err != nil {
		t.Fatal(err)
	}
	emb, err := DefaultTypesFile()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(emb.Provenance.Source, "siasosp23/artifacts") || emb.Provenance.Method != DeriveTypesMethod {
		t.Errorf("provenance %+v", emb.Provenance)
	}
	fresh, err := DeriveTypes(set, embeddedTypes, Provenance{Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh.Apps) != len(emb.Apps) {
		t.Fatalf("%d applications derived, %d embedded", len(fresh.Apps), len(emb.Apps))
	}
	for i, fa := range fresh.Apps {
		ea := emb.Apps[i]
		if fa.Name != ea.Name || len(fa.Types) != len(ea.Types) {
			t.Fatalf("application %d: derived %s with %d types, embedded %s with %d", i, fa.Name, len(fa.Types), ea.Name, len(ea.Types))
		}
		for j, ft := range fa.Types {
			if !sameFigures(reflect.ValueOf(*ft), reflect.ValueOf(*ea.Types[j])) {
				t.Errorf("%s on %s: embedded %+v, derived now %+v; rerun `polluxsim profiles derive --types` (see profiles/README.md)",
					fa.Name, ft.Type, *ea.Types[j], *ft)
			}
		}
	}
}

// sameFigures compares two values field by field, floats to a relative
// 1e-5 (the files round to 6 significant digits).
func sameFigures(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || math.Abs(x-y) <= 1e-5*math.Max(math.Abs(x), math.Abs(y))
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameFigures(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameFigures(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	default:
		return a.Interface() == b.Interface()
	}
}

// TestEmbeddedTypesVsTables: where the Sia artifact's tables are present,
// the relative error of the embedded per-type step times over every table
// row with a usable per-GPU batch size, per application and type (the
// table of docs/heterogeneous.md), stays in the documented band.
func TestEmbeddedTypesVsTables(t *testing.T) {
	set, err := Load(refdata.SiaDir(t))
	if err != nil {
		t.Fatal(err)
	}
	emb := Default()
	t.Log("app          type       rows   rms    mean   p90    max")
	for _, name := range set.Names() {
		for _, typ := range embeddedTypes {
			real, model := set.Apps[name].ForType(typ), emb.Apps[name].ForType(typ)
			if real.Limits != model.Limits {
				t.Errorf("%s on %s: limits %+v, tables %+v", name, typ, model.Limits, real.Limits)
			}
			e, err := CompareSteps(real, model)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-12s %-10s %4d  %5.1f%% %5.1f%% %5.1f%% %5.1f%%", name, typ, e.N, 100*e.RMS, 100*e.Mean, 100*e.P90, 100*e.Max)
			// The V100 imagenet table is inconsistent (see the docs);
			// everywhere else the mean error is at most 25 %.
			limit := 0.25
			if name == "imagenet" && typ == "v100" {
				limit = 0.40
			}
			if e.N < 20 || e.Mean > limit {
				t.Errorf("%s on %s: %d rows, mean step time error %.3f above %.2f", name, typ, e.N, e.Mean, limit)
			}
		}
	}
}

// TestParseTypesErrors: malformed per-type files are refused with a message
// naming the file and what is wrong.
func TestParseTypesErrors(t *testing.T) {
	f, err := DefaultTypesFile()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if _, err := ParseTypes("x.json", []byte(good)); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	for name, c := range map[string]struct{ old, new, want string }{
		"format":           {`"polluxsim-compact-types/1"`, `"v0"`, `format "v0"`},
		"alias type":       {`"type": "a100"`, `"type": "dgx-ext"`, `type "dgx-ext" is not a canonical GPU type name`},
		"unknown type":     {`"type": "a100"`, `"type": "h200"`, `type "h200" is not a canonical`},
		"duplicate type":   {`"type": "rtx2080ti"`, `"type": "a100"`, "type a100 appears twice"},
		"empty range":      {`"min_local": 4`, `"min_local": 0`, "type a100: per-GPU batch range 0..48 is empty"},
		"negative param":   {`"alpha_c": 0.`, `"alpha_c": -0.`, "throughput.alpha_c"},
		"unknown field":    {`"min_local"`, `"min_locale"`, `unknown field "min_locale"`},
		"duplicate app":    {`"name": "cifar10"`, `"name": "bert"`, `application "bert" appears twice`},
		"syntax with line": {`"apps": [`, `"apps": [,`, "x.json: line "},
	} {
		bad := strings.Replace(good, c.old, c.new, 1)
		if bad == good {
			t.Fatalf("%s: %q not in the file", name, c.old)
		}
		if _, err := ParseTypes("x.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.json: ") {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

// TestAttachErrors: Attach refuses applications a set lacks and types an
// application already has, and then leaves the set unchanged.
func TestAttachErrors(t *testing.T) {
	f, err := DefaultTypesFile()
	if err != nil {
		t.Fatal(err)
	}
	set := Default() // already has the models
	if err := f.Attach(set); err == nil || !strings.Contains(err.Error(), "already has a profile on a100") {
		t.Errorf("second attach: %v", err)
	}
	set = Embedded()
	delete(set.Apps, "yolov3")
	for _, a := range set.Apps {
		a.ByType = nil
	}
	if err := f.Attach(set); err == nil || !strings.Contains(err.Error(), `application "yolov3" is not in profiles embedded`) {
		t.Errorf("missing application: %v", err)
	}
	for _, a := range set.Apps {
		if a.ByType != nil {
			t.Errorf("%s: a failed Attach changed the set", a.Name)
		}
	}
}
