// The extensions of issue 41 as a new user writes them, each in one file
// of its own and no edit elsewhere: a policy with options (least-served), a
// workload source named from a sweep spec (mini), a figure kind with a
// parameter (box), a run-level metric (pending), a binary with them
// (cmd/polluxsim-ext) and one without the built-ins (cmd/polluxsim-bare).
// The stock polluxsim reports and plots a sweep that used them, saying
// what it skips.
package extensions_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/examples/extensions/box"
	"github.com/polluxsim/polluxsim/examples/extensions/leastserved"
	"github.com/polluxsim/polluxsim/examples/extensions/mini"
	"github.com/polluxsim/polluxsim/examples/extensions/pending"
	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/buildtest"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// The policy passes the conformance suite, its option bounds included.
func TestLeastServedConformance(t *testing.T) {
	conformance.Run(t, policies.MustRegistry(leastserved.Registration()), "least-served")
}

// A library user passes the same value to spec parsing: the spec names the
// source and the kind, whose parameters each decodes strictly itself.
func TestSpecWithExtensions(t *testing.T) {
	ext, err := intree.With(extensions.WithPolicy(leastserved.Registration()), extensions.WithSource(mini.Source), figures.WithKind(box.Kind))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "ext.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiments.ParseExperiment(data, "ext", ext); err != nil {
		t.Fatal(err)
	}
	for bad, want := range map[string]string{
		`"whisker": 1.0`:    `"wisker": 1.0`,
		`"time_scale": 0.5`: `"time_scale": 0.5, "speed": 2`,
	} {
		spec := strings.Replace(string(data), bad, want, 1)
		e, err := experiments.ParseExperiment([]byte(spec), "bad", ext)
		if strings.Contains(want, "wisker") {
			if err == nil || !strings.Contains(err.Error(), "wisker") {
				t.Errorf("box params %s: %v", want, err)
			}
			continue
		}
		// A source's params are decoded when the workloads are made.
		if err != nil {
			t.Fatal(err)
		}
		_ = e
	}
	if _, err := experiments.ParseExperiment(data, "ext", intree.Extensions()); err == nil || !strings.Contains(err.Error(), "mini") {
		t.Errorf("a binary without the source: %v", err)
	}
}

func TestBinaries(t *testing.T) {
	dir := t.TempDir()
	ext := buildtest.Must(t, dir, "polluxsim-ext", "./cmd/polluxsim-ext")
	bare := buildtest.Must(t, dir, "polluxsim-bare", "./cmd/polluxsim-bare")
	stock := buildtest.Must(t, dir, "polluxsim", "../../cmd/polluxsim")

	// The binary without the built-ins knows only its own.
	if out, _ := buildtest.Run(t, bare, "policies"); !strings.Contains(out, "least-served") || strings.Contains(out, "pollux") || strings.Contains(out, "fifo") {
		t.Errorf("bare policies:\n%s", out)
	}
	if out, _ := buildtest.Run(t, bare, "workload", "sources"); !strings.Contains(out, "mini") || strings.Contains(out, "paper") {
		t.Errorf("bare workload sources:\n%s", out)
	}
	// It lists no built-in experiment, and says which it leaves out.
	if out, errs := buildtest.Run(t, bare, "sweep", "--list"); strings.Contains(out, "fig7") || !strings.Contains(errs, `polluxsim-bare: skipped: experiment fig7: cell "pollux-p1": unknown policy "pollux"`) {
		t.Errorf("bare sweep --list:\n%s\nstderr:\n%s", out, errs)
	}
	out, _ := buildtest.Run(t, bare, "run", "--policy-opt", "age_weight=0.5", "--workload", "mini:testdata/mini-1.csv", "--quiet", "--out", filepath.Join(dir, "bare-run"))
	if !strings.Contains(out, "policy least-served: 10 jobs") {
		t.Errorf("bare run printed %q", out)
	}

	// The binary with them sweeps a spec naming all three.
	sw := filepath.Join(dir, "sweep")
	buildtest.Run(t, ext, "sweep", "--experiment", filepath.Join("testdata", "ext.json"), "--quiet", "--out", sw)
	checkPendingMetric(t, dir, ext, stock, sw)
	checkHoldTable(t, dir, ext, stock, sw)
	plots := filepath.Join(dir, "ext-plots")
	buildtest.Run(t, ext, "plot", "--in", sw, "--out", plots)
	for _, f := range []string{"jct-box.svg", "jct.svg"} {
		if st, err := os.Stat(filepath.Join(plots, f)); err != nil || st.Size() == 0 {
			t.Errorf("ext plot %s: %v", f, err)
		}
	}

	// The stock binary reports and plots that sweep, naming what it skips.
	page := filepath.Join(dir, "stock.html")
	_, errs := buildtest.Run(t, stock, "report", "--in", sw, "--out", page)
	for _, want := range []string{`policy "least-served"`, `figure kind "box"`, `workload source "mini"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stock report's stderr does not name %s:\n%s", want, errs)
		}
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Least-served / FIFO", "least-served", "<svg"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("stock report lacks %q", want)
		}
	}
	stockPlots := filepath.Join(dir, "stock-plots")
	_, errs = buildtest.Run(t, stock, "plot", "--in", sw, "--out", stockPlots)
	if !strings.Contains(errs, `"box"`) {
		t.Errorf("stock plot's stderr does not name the box kind:\n%s", errs)
	}
	if st, err := os.Stat(filepath.Join(stockPlots, "jct.svg")); err != nil || st.Size() == 0 {
		t.Errorf("stock plot jct.svg: %v", err)
	}
	if _, err := os.Stat(filepath.Join(stockPlots, "jct-box.svg")); err == nil {
		t.Error("the stock binary drew a kind it does not know")
	}
	// It merges that sweep too (a shard of it into a folder of its own),
	// naming what it does not know.
	merged := filepath.Join(dir, "stock-merged")
	outText, errs := buildtest.Run(t, stock, "merge", "--out", merged, sw)
	for _, want := range []string{`policy "least-served"`, `figure kind "box"`, `workload source "mini"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stock merge's stderr does not name %s:\n%s", want, errs)
		}
	}
	if !strings.Contains(outText, "merged 1 folders") {
		t.Errorf("stock merge: %s", outText)
	}
}

// readJSON decodes the JSON file path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkPendingMetric: the metric of one's own, one entry registered in
// the ext binary, is a key of its run's summary.json (and not of the
// stock binary's), a column of its sweep's results.parquet, the largest
// of that column per cell in the sweep's summary.json and a table of its
// report; the stock binary reports the same sweep without it.
func checkPendingMetric(t *testing.T, dir, ext, stock, sw string) {
	t.Helper()
	name := pending.Metric.Name
	for bin, want := range map[string]bool{ext: true, stock: false} {
		out := filepath.Join(dir, "pending-run-"+filepath.Base(bin))
		buildtest.Run(t, bin, "run", "--policy", "fifo", "--workload", "paper:1", "--no-timing", "--quiet", "--out", out)
		var sum map[string]any
		readJSON(t, filepath.Join(out, "summary.json"), &sum)
		v, ok := sum[name].(float64)
		if ok != want || (want && !(v > 0)) {
			t.Errorf("%s run: summary.json %s = %v, want present %v and positive", filepath.Base(bin), name, sum[name], want)
		}
	}

	tc, err := outputs.ReadTableColumns(filepath.Join(sw, sweep.ResultsFile), "cell", name)
	if err != nil {
		t.Fatal(err)
	}
	largest := map[string]float64{}
	for i, c := range tc.Strs["cell"] {
		largest[c] = math.Max(largest[c], tc.Nums[name][i])
	}
	var sum struct {
		Cells []struct {
			Cell    string
			Metrics map[string]struct {
				Value     *float64
				Aggregate string
				N         int
			}
		}
	}
	readJSON(t, filepath.Join(sw, sweep.SummaryFile), &sum)
	if len(sum.Cells) != 2 {
		t.Fatalf("sweep summary.json: %d cells, want 2", len(sum.Cells))
	}
	for _, c := range sum.Cells {
		st, ok := c.Metrics[name]
		// (The mini workloads leave no job waiting: the values are 0.)
		if !ok || st.Aggregate != "max" || st.Value == nil || *st.Value != largest[c.Cell] || st.N != 2 {
			t.Errorf("sweep summary.json cell %s %s: %+v, want the largest of results.parquet's, %v", c.Cell, name, st, largest[c.Cell])
		}
	}

	for bin, want := range map[string]bool{ext: true, stock: false} {
		page := filepath.Join(dir, "pending-"+filepath.Base(bin)+".html")
		buildtest.Run(t, bin, "report", "--in", sw, "--out", page)
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(html, []byte(pending.Metric.Label)); got != want {
			t.Errorf("%s report has a table of %s: %v, want %v", filepath.Base(bin), name, got, want)
		}
	}
}

// checkHoldTable: the table of one's own is written by a run and by a
// sweep (over all its runs, each row led by the run columns), and export
// converts it: per run its jobs add up to jobs.parquet's and its shares
// to 1. The stock binary's export leaves it out and converts the rest.
func checkHoldTable(t *testing.T, dir, ext, stock, sw string) {
	t.Helper()
	run := filepath.Join(dir, "holds-run")
	buildtest.Run(t, ext, "run", "--policy", "fifo", "--workload", "paper:1", "--quiet", "--out", run)
	for _, folder := range []string{run, sw} {
		csvDir := filepath.Join(folder + "-csv")
		buildtest.Run(t, ext, "export", "--in", folder, "--format", "csv", "--out", csvDir)
		holds, jobs := readCSV(t, filepath.Join(csvDir, "holds.csv")), readCSV(t, filepath.Join(csvDir, "jobs.csv"))
		if len(holds) < 2 || strings.Join(holds[0][len(holds[0])-4:], ",") != "application,jobs,gpu_hours,share" || holds[0][0] != "run_id" {
			t.Fatalf("%s holds.csv header %q", folder, holds[0])
		}
		want := map[string]int{}
		for _, r := range jobs[1:] {
			want[r[0]]++
		}
		got, share := map[string]int{}, map[string]float64{}
		n := len(holds[0])
		for _, r := range holds[1:] {
			k, _ := strconv.Atoi(r[n-3])
			s, _ := strconv.ParseFloat(r[n-1], 64)
			got[r[0]] += k
			share[r[0]] += s
		}
		if len(want) == 0 || len(got) != len(want) {
			t.Errorf("%s: holds.csv has %d runs, jobs.csv %d", folder, len(got), len(want))
		}
		for id, k := range want {
			if got[id] != k || math.Abs(share[id]-1) > 1e-9 {
				t.Errorf("%s run %s: %d jobs with shares summing to %v, want %d and 1", folder, id, got[id], share[id], k)
			}
		}
	}
	stockCSV := filepath.Join(dir, "stock-csv")
	buildtest.Run(t, stock, "export", "--in", sw, "--format", "csv", "--out", stockCSV)
	if _, err := os.Stat(filepath.Join(stockCSV, "holds.csv")); err == nil {
		t.Error("the stock binary exported a table it does not know")
	}
	if _, err := os.Stat(filepath.Join(stockCSV, "jobs.csv")); err != nil {
		t.Errorf("the stock binary's export: %v", err)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}
