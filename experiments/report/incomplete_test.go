package report

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// TestReportIncompleteBanner: the report of a sweep missing runs (a
// shard; workloads left out) leads with "incomplete: N of M runs", before
// the headline table; the whole sweep's report has no banner.
func TestReportIncompleteBanner(t *testing.T) {
	report := func(dir string) string {
		t.Helper()
		exp, runs, missing, err := sweep.OpenSweep(dir, exptest.Ext())
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Report(&buf, outputs.Metrics{}, exp, runs, missing); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if html := report(exptest.TinyFull(t)); strings.Contains(html, `id="incomplete"`) || strings.Contains(html, "incomplete:") {
		t.Error("the whole sweep's report says it is incomplete")
	}
	e, _ := exptest.Tiny(t)
	for _, c := range []struct {
		name string
		set  func(*sweep.SweepOptions)
	}{
		{"shard 0/3", func(o *sweep.SweepOptions) { o.Shard = sweep.Shard{Index: 0, Count: 3} }},
		{"workloads 2", func(o *sweep.SweepOptions) { o.WorkloadsOnly = []int{2} }},
	} {
		dir := t.TempDir()
		opt := exptest.TinyOptions(t, dir)
		c.set(&opt)
		rep, err := sweep.Sweep(context.Background(), e, opt)
		if err != nil {
			t.Fatal(err)
		}
		html := report(dir)
		banner := fmt.Sprintf("incomplete: %d of %d runs", rep.Runs, len(e.Runs()))
		at, head := strings.Index(html, banner), strings.Index(html, `<table id="headline"`)
		switch {
		case rep.Runs >= len(e.Runs()):
			t.Fatalf("%s: %d runs of %d, not a partial sweep", c.name, rep.Runs, len(e.Runs()))
		case at < 0:
			t.Errorf("%s: the report lacks %q", c.name, banner)
		case head >= 0 && head < at:
			t.Errorf("%s: the banner comes after the headline table", c.name)
		case at > strings.Index(html, "</h1>")+200:
			t.Errorf("%s: the banner is not right under the title", c.name)
		}
	}
}
