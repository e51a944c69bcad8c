package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// writeReport writes the report of the tiny sweep and returns its path
// and the number of figures it should hold.
func writeReport(t *testing.T) (string, int) {
	t.Helper()
	exp, runs, missing, err := sweep.OpenSweep(exptest.TinyFull(t), exptest.Ext())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Report(&buf, outputs.Metrics{}, exp, runs, missing); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, len(experiments.PlotsOf(exp))
}

// TestReportContent: the report leads with the headline table, then the
// figures (every one as inline SVG), then the metric tables, and ends with
// the collapsed provenance; it shows labels, not metric names, and loads
// nothing from elsewhere.
func TestReportContent(t *testing.T) {
	path, nfig := writeReport(t)
	data, _ := os.ReadFile(path)
	html := string(data)
	if got := strings.Count(html, `<figure id="plot-`); got != nfig || nfig == 0 {
		t.Errorf("%d figures, want %d", got, nfig)
	}
	if got := strings.Count(html, "<svg"); got != nfig {
		t.Errorf("%d inline SVGs, want %d", got, nfig)
	}
	for _, want := range []string{`<table id="headline"`, "<th>average JCT (", "<th>made-up</th>", "Pollux / Optimus",
		`id="metric-avg_jct_s"`, `<details id="provenance">`, "compact", "interval_s=120 p=1",
		"Do the references apply to these runs? only roughly", "95 % CI"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if h1, head, fig, prov := strings.Index(html, "<h1>"), strings.Index(html, `<table id="headline"`),
		strings.Index(html, `<figure id="plot-`), strings.Index(html, `<details id="provenance">`); !(h1 < head && head < fig && fig < prov) {
		t.Errorf("order: title at %d, headline at %d, first figure at %d, provenance at %d", h1, head, fig, prov)
	}
	// The provenance names the cluster as it is: its GPUs and pools.
	if prov := html[strings.Index(html, `<details id="provenance">`):]; !regexp.MustCompile(`cluster</t[hd]>\s*<td>\d+ GPUs \(`).MatchString(prov) {
		t.Errorf("the provenance does not name the cluster's GPUs and pools")
	}
	if strings.Contains(html, "<?xml") {
		t.Error("an SVG's XML prolog is inlined")
	}
	for _, raw := range []string{"<td>avg_jct_s</td>", `{&#34;`, `{"`} {
		if i := strings.Index(html, raw); i >= 0 && i < strings.Index(html, "<script>") {
			t.Errorf("report shows %q (a raw metric name or JSON)", raw)
		}
	}
	if m := regexp.MustCompile(`(src|href)\s*=\s*"(https?:|//|file:)`).FindString(html); m != "" {
		t.Errorf("report loads %s", m)
	}
}

// chromium finds a Chromium or Chrome binary.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestReportInChromium loads the report from disk in headless Chromium:
// every figure lays out with a non-empty box, nothing is logged to the
// console (the page's Content-Security-Policy makes any outside load an
// error), the headline table lies wholly within the first screen of a
// 1280 × 800 window (the page's script records the table's box from
// getBoundingClientRect), and a screenshot is not blank. It skips, saying so, without
// Chromium (.ci/run installs the Debian package).
func TestReportInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("chromium not found: the browser check of the report needs it (apt-get install chromium; .ci/run installs it)")
	}
	path, nfig := writeReport(t)
	url := "file://" + path
	run := func(args ...string) (stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
		cmd := exec.CommandContext(ctx, bin, append(append(base, args...), url)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, e.String())
		}
		return o.String(), e.String()
	}
	dom, logs := run("--window-size=1280,800", "--dump-dom")
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
	if want := `data-plots-rendered="` + strconv.Itoa(nfig) + `"`; !strings.Contains(dom, want) {
		m := regexp.MustCompile(`data-plots-rendered="\d+"`).FindString(dom)
		t.Errorf("rendered figures: %q, want %s", m, want)
	}
	if got := strings.Count(dom, `data-rendered="yes"`); got != nfig {
		t.Errorf("%d figures rendered, want %d", got, nfig)
	}
	top, bottom := domInt(t, dom, "data-headline-top"), domInt(t, dom, "data-headline-bottom")
	t.Logf("headline table at %d..%d px", top, bottom)
	if !(0 <= top && top < bottom && bottom <= 800) {
		t.Errorf("the headline table spans %d..%d px, want within the first 800", top, bottom)
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	run("--window-size=1100,2400", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	ink, colours := 0, map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xe000 || g < 0xe000 || bl < 0xe000 {
				ink++
			}
			colours[(r>>12)<<8|(g>>12)<<4|bl>>12] = true
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if frac := float64(ink) / float64(total); frac < 0.02 || len(colours) < 8 {
		t.Errorf("screenshot looks blank: %.1f %% ink, %d colours", 100*frac, len(colours))
	}
}

// domInt reads the integer attribute name from a dumped DOM.
func domInt(t *testing.T, dom, name string) int {
	t.Helper()
	m := regexp.MustCompile(name + `="(-?\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page recorded no %s", name)
	}
	v, _ := strconv.Atoi(m[1])
	return v
}
