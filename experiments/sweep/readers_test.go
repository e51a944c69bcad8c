package sweep_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// TestDuckDBReadsTables: DuckDB (npm @duckdb/node-api, through node) reads
// every table of a run, of a second run and of a sweep with the
// documented types, no null in a non-nullable column and no NaN, and
// concatenates the same table of all of them. It skips, saying why, when
// node or the package is absent (.ci/run installs it in a scratch folder
// and sets NODE_PATH).
func TestDuckDBReadsTables(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: the DuckDB check needs node and npm @duckdb/node-api (.ci/run installs them)")
	}
	if err := exec.Command(node, "-e", "require.resolve('@duckdb/node-api')").Run(); err != nil {
		t.Skipf("node cannot load npm @duckdb/node-api with NODE_PATH=%q: install it and point NODE_PATH at its node_modules, as .ci/run does",
			os.Getenv("NODE_PATH"))
	}
	a, b := t.TempDir(), t.TempDir()
	exptest.RunWithOptions(t, "pollux", "", a)
	exptest.RunWithOptions(t, "tiresias", "", b)
	sweepDir := exptest.TinyFull(t)

	type col struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Nullable bool   `json:"nullable"`
		// Conditional columns are in a file only when a row has them.
		Conditional bool `json:"conditional"`
	}
	schema := map[string][]col{}
	for _, tb := range outputs.Tables() {
		for _, c := range tb.Columns {
			schema[tb.File] = append(schema[tb.File], col{c.Name, c.Type, c.Nullable, c.Conditional})
		}
	}
	data, _ := json.Marshal(schema)
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join("testdata", "readers", "duckdb.cjs"), schemaFile}
	for _, dir := range []string{a, b} {
		for _, f := range []string{sweep.JobsFile, "rounds.parquet", sweep.ClusterFile, sweep.TypesFile} {
			args = append(args, filepath.Join(dir, f))
		}
	}
	for _, f := range []string{sweep.JobsFile, sweep.ClusterFile, sweep.TypesFile, sweep.ResultsFile, sweep.AppsFile, sweep.RoundsFile} {
		args = append(args, filepath.Join(sweepDir, f))
	}
	out, err := exec.Command(node, args...).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("DuckDB check failed: %v", err)
	}
}
