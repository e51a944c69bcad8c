// Package python_test runs the Python package's tests, the README's Python
// section and the example jct_cdf.py against a freshly built binary, with
// python3 (the one on PATH, or Debian's /usr/bin/python3 when only it
// imports pandas). Each test skips, saying so, without python3; the
// DataFrame checks skip without pandas (.ci/run installs python3 and
// python3-pandas).
package python_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/polluxsim/polluxsim/internal/buildtest"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds polluxsim once for the package's tests.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "polluxsim-python-test-")
		if err != nil {
			binErr = err
			return
		}
		binPath, binErr = buildtest.Build(dir, "polluxsim", "../../cmd/polluxsim")
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// python returns a python3 and whether it imports pandas, preferring
// one that does; it skips t without python3.
func python(t *testing.T) (string, bool) {
	t.Helper()
	first := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import pandas").Run() == nil {
			return path, true
		}
		if first == "" {
			first = path
		}
	}
	if first == "" {
		t.Skip("no python3 (.ci/run installs it)")
	}
	return first, false
}

// repo is the repository's root.
func repo(t *testing.T) string {
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// runPython runs python with args in dir, the package importable from
// the repository's python/ folder and the test's binary as $POLLUXSIM,
// and returns its standard output; a failure ends t, quoting both
// outputs.
func runPython(t *testing.T, py, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(py, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(repo(t), "python"), "POLLUXSIM="+binary(t))
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", py, strings.Join(args, " "), err, out.String(), errs.String())
	}
	return out.String()
}

// TestPackage runs python/tests/test_polluxsim.py: runs and sweeps, the
// tables in the dtypes the binary declares with pandas and as typed
// dicts without, policy classes from a file and from a notebook cell
// deciding as the Go FIFO does.
func TestPackage(t *testing.T) {
	py, pandas := python(t)
	if !pandas {
		t.Log("python3 without pandas: the DataFrame tests skip")
	}
	cmd := exec.Command(py, filepath.Join(repo(t), "python", "tests", "test_polluxsim.py"), "-v")
	cmd.Env = append(os.Environ(), "POLLUXSIM="+binary(t))
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^OK\b`).Match(out) {
		t.Fatalf("the package's tests: %v\n%s", err, out)
	}
	if pandas && strings.Contains(string(out), "test_jobs_with_pandas (__main__.TestRun.test_jobs_with_pandas) ... skipped") {
		t.Errorf("the pandas test skipped with pandas:\n%s", out)
	}
}

// readmeSection is the README's "## Python" section.
func readmeSection(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(repo(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Python\n")
	if !ok {
		t.Fatal("README.md has no section ## Python")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec
}

// TestREADME runs the README's Python section as written: first.py (its
// python block) with the package from python/ against Tiresias on the
// reference workloads paper:1..8; the printed mean JCT per cell is the
// mean over the sweep's 8 runs of each (all jobs finish, 160 per run).
func TestREADME(t *testing.T) {
	py, pandas := python(t)
	if !pandas {
		t.Skip("python3 without pandas: the README's section uses a DataFrame (.ci/run installs python3-pandas)")
	}
	sec := readmeSection(t)
	for _, line := range []string{"make build ", "export PYTHONPATH=$PWD/python ", "python3 first.py "} {
		if !strings.Contains(sec, "\n"+line) {
			t.Errorf("the README's commands changed (no line %q): update the test", line)
		}
	}
	_, block, _ := strings.Cut(sec, "```python\n")
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "first.py"), []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runPython(t, py, dir, "first.py")
	var sum struct {
		Runs  int `json:"runs"`
		Cells []struct {
			Cell    string `json:"cell"`
			Metrics map[string]struct {
				Mean      float64 `json:"mean"`
				Workloads []int   `json:"workloads"`
			} `json:"metrics"`
		} `json:"cells"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "first", "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil || sum.Runs != 16 || len(sum.Cells) != 2 {
		t.Fatalf("out/first/summary.json: %v, %d runs, %d cells; want 16 and 2", err, sum.Runs, len(sum.Cells))
	}
	for _, c := range sum.Cells {
		m := c.Metrics["avg_jct_s"]
		if len(m.Workloads) != 8 || m.Workloads[0] != 1 || m.Workloads[7] != 8 {
			t.Errorf("cell %s: workloads %v, want 1..8", c.Cell, m.Workloads)
		}
		re := regexp.MustCompile(`(?m)^` + c.Cell + `\s+([0-9.]+)$`)
		got := re.FindStringSubmatch(out)
		if got == nil {
			t.Errorf("no mean JCT printed for %s:\n%s", c.Cell, out)
			continue
		}
		if v, _ := strconv.ParseFloat(got[1], 64); v < m.Mean-1e-3 || v > m.Mean+1e-3 {
			t.Errorf("cell %s: printed mean JCT %v, the sweep's %v", c.Cell, v, m.Mean)
		}
	}
}

// TestExample runs examples/python/jct_cdf.py on two workloads (the
// README's paper:1..8 run is TestREADME's): one line per policy with its
// 320 jobs, and the JCT CDF as a PNG with matplotlib or as CSV without,
// each cell's fractions rising to 1 over its 320 jobs.
func TestExample(t *testing.T) {
	py, _ := python(t)
	dir := t.TempDir()
	out := runPython(t, py, dir, filepath.Join(repo(t), "examples", "python", "jct_cdf.py"), "2", "ex")
	for _, cell := range []string{"fewest-gpus-first", "tiresias", "pollux"} {
		if !regexp.MustCompile(`(?m)^` + cell + `\s+320 jobs  mean JCT\s+[0-9]+ s$`).MatchString(out) {
			t.Errorf("no line for %s with 320 jobs:\n%s", cell, out)
		}
	}
	if strings.Contains(out, "wrote ex/jct_cdf.png") {
		if st, err := os.Stat(filepath.Join(dir, "ex", "jct_cdf.png")); err != nil || st.Size() == 0 {
			t.Errorf("jct_cdf.png: %v", err)
		}
		return
	}
	f, err := os.Open(filepath.Join(dir, "ex", "jct_cdf.csv"))
	if err != nil {
		t.Fatalf("neither the PNG nor the CSV: %v\n%s", err, out)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 1+3*320 {
		t.Fatalf("jct_cdf.csv: %v, %d rows; want a header and 960", err, len(rows))
	}
	last := map[string]float64{}
	n := map[string]int{}
	for _, r := range rows[1:] {
		x, _ := strconv.ParseFloat(r[2], 64)
		if x <= last[r[0]] {
			t.Fatalf("cell %s: fraction %v after %v", r[0], x, last[r[0]])
		}
		last[r[0]] = x
		n[r[0]]++
	}
	for c, x := range last {
		if x != 1 || n[c] != 320 {
			t.Errorf("cell %s: %d points ending at %v; want 320 ending at 1", c, n[c], x)
		}
	}
}

// TestPipInstallOffline: pip installs the package from python/ with no
// index (offline) into a virtual environment that sees the system's
// packages, and the installed package and polluxsim_policy import from
// there. Skips without venv or pip (Debian: python3-venv).
func TestPipInstallOffline(t *testing.T) {
	py, _ := python(t)
	dir := t.TempDir()
	venv := filepath.Join(dir, "venv")
	if out, err := exec.Command(py, "-m", "venv", "--system-site-packages", venv).CombinedOutput(); err != nil {
		t.Skipf("no venv (python3-venv): %v: %s", err, out)
	}
	src := filepath.Join(dir, "src") // a copy: pip builds in the source folder
	if out, err := exec.Command("cp", "-r", filepath.Join(repo(t), "python"), src).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	pip := filepath.Join(venv, "bin", "pip")
	if out, err := exec.Command(pip, "install", "--no-index", "--no-build-isolation", src).CombinedOutput(); err != nil {
		if strings.Contains(string(out), "No module named") || strings.Contains(string(out), "setuptools") && strings.Contains(string(out), "not") {
			t.Skipf("pip cannot build without setuptools and wheel (python3-setuptools, python3-wheel): %s", out)
		}
		t.Fatalf("pip install --no-index --no-build-isolation: %v\n%s", err, out)
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), "-c", "import polluxsim, polluxsim_policy; print(polluxsim.__file__); print(polluxsim_policy.__file__)")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("import after install: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(line, venv) {
			t.Errorf("imported from %s, not the virtual environment", line)
		}
	}
}

// TestRunningRecipe runs docs/running.md's Python block as written on a
// Pollux run in out/pollux: the jobs per application add up to the run's
// jobs, and the mean GPUs allocated lies in (0, 64].
func TestRunningRecipe(t *testing.T) {
	py, pandas := python(t)
	if !pandas {
		t.Skip("python3 without pandas (.ci/run installs python3-pandas)")
	}
	b, err := os.ReadFile(filepath.Join(repo(t), "docs", "running.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "```python\nimport polluxsim\n")
	if !ok {
		t.Fatal("docs/running.md has no Python block starting with import polluxsim")
	}
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	buildtest.Run(t, binary(t), "run", "--quiet", "--out", filepath.Join(dir, "out", "pollux"))
	if err := os.WriteFile(filepath.Join(dir, "recipe.py"), []byte("import polluxsim\n"+block), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runPython(t, py, dir, "recipe.py")
	m := regexp.MustCompile(`(?m)^([0-9.]+) GPUs allocated on average$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no mean GPUs printed:\n%s", out)
	}
	if v, _ := strconv.ParseFloat(m[1], 64); v <= 0 || v > 64 {
		t.Errorf("mean GPUs allocated %v, want in (0, 64]", v)
	}
	n := 0
	for _, l := range regexp.MustCompile(`(?m)^[a-z0-9]+\s+([0-9.]+)\s`).FindAllStringSubmatch(out, -1) {
		c, _ := strconv.ParseFloat(l[1], 64)
		n += int(c)
	}
	if n != 160 {
		t.Errorf("jobs per application add up to %d, want the run's 160:\n%s", n, out)
	}
}
