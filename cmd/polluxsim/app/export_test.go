package app

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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

// TestExportRefusesItsInputs: export --out onto a file of the folder it
// reads (a table, summary.json, a sweep's cell), directly or through a
// symbolic or hard link, or a new file there that is not an export's, is
// refused in one line naming --out, and the folder is byte for byte as
// before (export --table jobs --out RUN/jobs.parquet replaced the table
// with CSV, exit 0). Exports into the folder itself or a folder inside it
// are fine: they replace nothing of it.
func TestExportRefusesItsInputs(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	if r := runBinary(t, dir, nil, "run", "--policy", "fifo", "--jobs", "4", "--nodes", "2", "--quiet", "--out", "run"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	if r := runBinary(t, dir, nil, "sweep", "--experiment", tinySpecPath(t), "--shard", "0/20", "--quiet", "--no-timing", "--out", "sw"); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	if err := os.Symlink(filepath.Join("run", "summary.json"), filepath.Join(dir, "link.csv")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Link(filepath.Join(dir, "run", "jobs.parquet"), filepath.Join(dir, "hard.csv")); err != nil {
		t.Skip("no hard links here:", err)
	}
	os.Mkdir(filepath.Join(dir, "o"), 0o755)
	os.Symlink(filepath.Join("..", "run", "jobs.parquet"), filepath.Join(dir, "o", "jobs.csv"))
	before := treeBytes(t, dir)
	for _, tc := range []struct{ in, table, out, want string }{
		{"run", "jobs", "run/jobs.parquet", "--out run/jobs.parquet is a file of --in run, an input folder, which it would overwrite"},
		{"run", "jobs", "run/summary.json", "--out run/summary.json is a file of --in run"},
		{"run", "rounds", "run/rounds.parquet", "--out run/rounds.parquet is a file of --in run"},
		{"run", "jobs", "run/nodes.parquet", "--out run/nodes.parquet would add a file to --in run, an input folder"},
		{"run", "jobs", "link.csv", "--out link.csv (a link to "},
		{"run", "jobs", "hard.csv", "--out hard.csv is the same file as run/jobs.parquet in --in run"},
		{"run", "", "o", "--out o: o/jobs.csv (a link to "},
		{"sw", "results", "sw/cells/pollux.w1.json", "--out sw/cells/pollux.w1.json is a file of --in sw"},
		{"sw", "jobs", "sw/results.parquet", "--out sw/results.parquet is a file of --in sw"},
	} {
		args := []string{"export", "--in", tc.in, "--format", "csv", "--out", tc.out}
		if tc.table != "" {
			args = append(args, "--table", tc.table)
		}
		oneLineError(t, runBinary(t, dir, nil, args...), tc.want)
	}
	if after := treeBytes(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused export changed the files:\nbefore %v\nafter  %v", keysOf(before), keysOf(after))
	}
	for _, out := range []string{"run", "run/csv", "sw", "sw/cells"} {
		if r := runBinary(t, dir, nil, "export", "--in", strings.Split(out, "/")[0], "--format", "jsonl", "--out", out); r.code != 0 {
			t.Errorf("export --out %s: exit %d: %s", out, r.code, r.stderr)
		}
	}
	after := treeBytes(t, dir)
	for path, data := range before {
		if string(after[path]) != string(data) {
			t.Errorf("an export into the input folder changed %s", path)
		}
	}
}

// treeBytes is the content of every regular file under dir (links not
// followed), by path relative to dir.
func treeBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
