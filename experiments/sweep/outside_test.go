package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/profiles"
)

// The guard against an output inside an input is the library's: a folder
// inside --profiles or --workloads is refused, a built-in set's name and
// the generated workloads name no folder.
func TestCheckOutsideInputs(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "profiles")
	wl := filepath.Join(dir, "workloads")
	for _, d := range []string{prof, wl} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		out, prof, wl, bad string
	}{
		{filepath.Join(prof, "out"), prof, "", "inside --profiles"},
		{filepath.Join(wl, "a", "b"), "", wl, "inside --workloads"},
		{wl, "", wl, "inside --workloads"},
		{filepath.Join(dir, "out"), prof, wl, ""},
		{"embedded/out", "embedded", GeneratedWorkloads, ""},
	} {
		err := CheckOutsideInputs(c.out, c.prof, c.wl)
		if (c.bad == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.bad) {
			t.Errorf("out %s, profiles %q, workloads %q: %v, want %q", c.out, c.prof, c.wl, err, c.bad)
		}
	}
	// Sweep checks it itself, before anything is written.
	exp, _, err := experiments.LoadExperiment("ci", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(prof, "sweep")
	_, err = Sweep(t.Context(), exp, SweepOptions{Out: out, ProfilesPath: prof, Profiles: profiles.Compact(), Parallel: 1})
	if err == nil || !strings.Contains(err.Error(), "inside --profiles") {
		t.Fatalf("a sweep into its profiles folder: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused sweep made its folder")
	}
}
