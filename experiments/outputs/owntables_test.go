package outputs

import (
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/sim"
)

// TestCheckFile: a table of one's own takes a plain .parquet name that no
// built-in table has.
func TestCheckFile(t *testing.T) {
	for name, ok := range map[string]bool{
		"holds.parquet": true, "jobs.parquet": false, "results.parquet": false, "a/b.parquet": false,
		".parquet": false, ".hidden.parquet": false, "holds.csv": false, "../x.parquet": false,
	} {
		if err := CheckFile(name); (err == nil) != ok {
			t.Errorf("CheckFile(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

// TestRunTableWrite: a table of one's own over two runs has each run's
// rows, led by its run columns, and documents them.
func TestRunTableWrite(t *testing.T) {
	tab := NewRunTable("n.parquet", "jobs per run", func(d *RunData) []int { return []int{len(d.Jobs)} },
		I64("n", "", "jobs", func(n int) int64 { return int64(n) }))
	doc := tab.Schema()
	if doc.File != "n.parquet" || doc.Columns[0].Name != "run_id" || doc.Columns[len(doc.Columns)-1].Name != "n" {
		t.Fatalf("schema %+v", doc)
	}
	runs := []KeyedRun{
		{&RunKey{ID: "a", Policy: "fifo"}, &RunData{Summary: &sim.Summary{}, Jobs: make([]sim.JobResult, 3)}},
		{&RunKey{ID: "b", Policy: "srtf"}, &RunData{Summary: &sim.Summary{}, Jobs: make([]sim.JobResult, 5)}},
	}
	path := filepath.Join(t.TempDir(), "n.parquet")
	if err := tab.Write(path, runs, nil, nil); err != nil {
		t.Fatal(err)
	}
	tc, err := ReadTableColumns(path, "run_id", "policy", "n")
	if err != nil {
		t.Fatal(err)
	}
	if got := tc.Strs["run_id"]; len(got) != 2 || got[0] != "a" || got[1] != "b" || tc.Strs["policy"][1] != "srtf" || tc.Nums["n"][0] != 3 || tc.Nums["n"][1] != 5 {
		t.Errorf("rows %v %v %v", tc.Strs["run_id"], tc.Strs["policy"], tc.Nums["n"])
	}
}
