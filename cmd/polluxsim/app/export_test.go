package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportBadInput: export refuses what it cannot do in one line, and
// writes nothing.
func TestExportBadInput(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	if r := runBinary(t, dir, nil, "run", "--policy", "fifo", "--jobs", "4", "--nodes", "2", "--rounds", "none", "--quiet", "--out", "run"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "afile"), []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--in", "nowhere", "--out", "x"}, "--in nowhere: not a folder"},
		{[]string{"--in", ".", "--out", "x"}, "--in .: no output table there"},
		{[]string{"--in", "run", "--format", "xml", "--out", "x"}, `--format "xml": want csv or jsonl`},
		{[]string{"--in", "run", "--table", "results", "--out", "x"}, "--table results: run has no such table (it has jobs, cluster, types)"},
		{[]string{"--in", "run", "--out", "afile"}, "--out afile: a file; without --table the export is a folder of tables"},
		{[]string{"--in", "run"}, "--in and --out are required"},
	} {
		oneLineError(t, runBinary(t, dir, nil, append([]string{"export"}, tc.args...)...), tc.want)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused export left x")
	}
}

// TestExportReadsInPandas: a sweep's export (CSV with its dtypes sidecars,
// and JSON Lines) read by Debian's pandas alone gives every value DuckDB
// reads from the Parquet tables, and results.csv's mean avg JCT per cell
// is the sweep's (the report's). Skips, saying why, without python3 and
// pandas (.ci/run installs python3-pandas); the DuckDB comparison needs
// node and npm @duckdb/node-api as TestDuckDBReadsTables does, and is
// left out, saying so, without them.
func TestExportReadsInPandas(t *testing.T) {
	python := pandasPython()
	if python == "" {
		t.Skip("no python3 imports pandas: apt-get install python3-pandas (.ci/run does)")
	}
	polluxsimBinary(t)
	dir := t.TempDir()
	if r := runBinary(t, dir, nil, "sweep", "--experiment", "ci", "--no-timing", "--job-rounds", "--quiet", "--out", "s"); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	for _, f := range []string{"csv", "jsonl"} {
		if r := runBinary(t, dir, nil, "export", "--in", "s", "--format", f, "--out", f); r.code != 0 {
			t.Fatalf("export --format %s: exit %d: %s", f, r.code, r.stderr)
		}
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "s", "*.parquet"))
	if len(tables) != 6 {
		t.Fatalf("sweep tables %v: want results, apps, jobs, cluster, types and rounds", tables)
	}
	args := []string{filepath.Join("testdata", "export_pandas.py"), filepath.Join(dir, "csv"), filepath.Join(dir, "jsonl"), filepath.Join(dir, "s", "summary.json")}
	if node, err := exec.LookPath("node"); err != nil || exec.Command(node, "-e", "require.resolve('@duckdb/node-api')").Run() != nil {
		t.Log("no node with npm @duckdb/node-api: pandas' values are not compared with DuckDB's")
	} else {
		dump := filepath.Join(dir, "duckdb.json")
		out, err := exec.Command(node, append([]string{filepath.Join("testdata", "duckdb_dump.cjs"), dump}, tables...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("DuckDB: %v: %s", err, out)
		}
		args = append(args, dump)
	}
	out, err := exec.Command(python, args...).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("pandas check failed: %v", err)
	}
	if !strings.Contains(string(out), "pollux: avg JCT") {
		t.Error("no per-cell average JCT printed")
	}
}

// pandasPython is a python3 that imports pandas: the one on PATH, else
// Debian's (/usr/bin/python3, where python3-pandas installs it); "" when
// neither does.
func pandasPython() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import pandas").Run() == nil {
			return path
		}
	}
	return ""
}
