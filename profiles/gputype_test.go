package profiles_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/profiles"
)

func TestCanonicalType(t *testing.T) {
	for in, want := range map[string]string{
		"t4": "t4", "aws": "t4", "V100": "v100", "azure": "v100", "a100": "a100", "dgx-ext": "a100",
		"rtx6000": "rtx6000", "quad": "rtx6000", "rtx2080ti": "rtx2080ti", "rtx": "rtx2080ti",
	} {
		if got, err := profiles.CanonicalType(in); err != nil || got != want {
			t.Errorf("CanonicalType(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "h200", "dgx", "t4 "[:3] + "x"} {
		if _, err := profiles.CanonicalType(bad); err == nil {
			t.Errorf("CanonicalType(%q): no error", bad)
		}
	}
}

// writeApp writes a small application folder in the Sia layout.
func writeApp(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	app := filepath.Join(dir, "traces", "toy")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(app, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const toyValidation = "progress,iteration,metric,grad_sqr,grad_var\n1,10,0.5,1,2\n2,20,0.6,1,2\n"

func TestLoadSiaLayout(t *testing.T) {
	dir := writeApp(t, map[string]string{
		"placements-aws.csv": "local_bsz,step_time,sync_time,placement\n8,0.2,0.01,1\n8,0.3,0.05,2\n",
		// Column order differs; a repeated measurement is averaged.
		"placements-rtx.csv":  "placement,local_bsz,sync_time,step_time\n1,8,0.01,0.1\n1,8,0.03,0.2\n2,8,0.02,0.12\n",
		"placements-dgx.csv":  "local_bsz,step_time,sync_time,placement\n8,9,0.01,1\n",
		"validation-32.csv":   toyValidation,
		"scalability-rtx.csv": "local_bsz,step_time,sync_time,num_nodes,num_replicas\n8,0.1,0.01,1,1\n",
	})
	set, err := profiles.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	app := set.Apps["toy"]
	if got, want := app.Types(), []string{"rtx2080ti", "t4"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("types %v, want %v (dgx is superseded by dgx-ext and skipped)", got, want)
	}
	if app.Type != "t4" || app.ForType("t4") != app {
		t.Errorf("the application's own tables should be the T4 ones, got type %q", app.Type)
	}
	if app.ForType("a100") != nil {
		t.Error("ForType(a100) should be nil without tables")
	}
	step, sync := app.ForType("rtx2080ti").Truth.Step([]int{1}, 8)
	if abs(step-0.15) > 1e-12 || abs(sync-0.02) > 1e-12 {
		t.Errorf("rtx one-GPU step %v sync %v, want the mean of the repeated rows 0.15, 0.02", step, sync)
	}
	step, _ = app.Truth.Step([]int{1}, 8)
	if abs(step-0.2) > 1e-12 {
		t.Errorf("t4 step %v, want 0.2", step)
	}
}

func TestLoadSiaLayoutUnknownSuffix(t *testing.T) {
	dir := writeApp(t, map[string]string{
		"placements-h200.csv": "local_bsz,step_time,sync_time,placement\n8,0.2,0.01,1\n",
		"validation-32.csv":   toyValidation,
	})
	_, err := profiles.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "placements-h200.csv") || !strings.Contains(err.Error(), "unknown GPU type") {
		t.Fatalf("want an error naming the file and the unknown type, got %v", err)
	}
}

// TestLoadSiaReference reads the Sia artifact's tables: every model has
// the five GPU types, and its T4 tables give the same step times as the
// unsuffixed (adaptdl) ones.
func TestLoadSiaReference(t *testing.T) {
	dir := refdata.SiaDir(t)
	set, err := profiles.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a100", "rtx2080ti", "rtx6000", "t4", "v100"}
	for name, app := range set.Apps {
		if got := app.Types(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: types %v, want %v", name, got, want)
		}
		a, b := app.ForType("t4"), app
		for _, pl := range [][]int{{1}, {2}, {4}, {4, 4}} {
			s1, _ := a.Truth.Step(pl, float64(a.Limits.MinLocal))
			s2, _ := b.Truth.Step(pl, float64(b.Limits.MinLocal))
			if s1 != s2 {
				t.Errorf("%s: T4 step on %v differs between the -aws and unsuffixed tables: %v vs %v", name, pl, s1, s2)
			}
		}
	}
	// An A100 computes faster than a T4 on one GPU.
	im := set.Apps["imagenet"]
	ta, _ := im.ForType("a100").Truth.Step([]int{1}, 64)
	tt, _ := im.ForType("t4").Truth.Step([]int{1}, 64)
	if !(ta < tt) {
		t.Errorf("imagenet at 64 per GPU: A100 step %v not below T4's %v", ta, tt)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
