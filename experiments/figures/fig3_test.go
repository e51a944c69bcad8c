package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/profiles"
)

// TestPlotProfileFit: θ_sys fitted to the measured tables follows them
// (RMS log error of the step time within 15 % for every application), and
// Fig 3 is drawn with its measured marks, model lines and caption; the
// compact model has no measurements to draw and is refused.
func TestPlotProfileFit(t *testing.T) {
	set := profiles.Default()
	for _, name := range set.Names() {
		app, _ := set.App(name)
		fit, err := FitProfile(app)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: RMS log error %.3f over %d rows", name, fit.RMSLogError, len(fit.Obs))
		if fit.RMSLogError > 0.15 || len(fit.Obs) < 100 {
			t.Errorf("%s: RMS log error %.3f over %d rows", name, fit.RMSLogError, len(fit.Obs))
		}
	}
	app, _ := set.App("imagenet")
	out := t.TempDir()
	rep, err := PlotProfile(exptest.Ext(), KindProfileFit, app, set.Source, out, PlotOptions{Formats: []string{"svg", "pdf"}})
	if err != nil || len(rep.Files) != 2 {
		t.Fatalf("%v %v", rep, err)
	}
	svg, _ := os.ReadFile(filepath.Join(out, ProfileFitFile+"-imagenet.svg"))
	for _, want := range []string{"batch 20 per GPU", "batch 200 per GPU", "1 GPU on 1 node", "64 GPUs on 16 nodes", "RMS log error", "throughput (samples/s)"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("fig3 SVG lacks %q", want)
		}
	}
	capp, _ := profiles.Compact().App("imagenet")
	if _, err := PlotProfile(exptest.Ext(), KindProfileFit, capp, "compact", t.TempDir(), PlotOptions{}); err == nil || !strings.Contains(err.Error(), "measured tables") {
		t.Errorf("compact: %v", err)
	}
}
