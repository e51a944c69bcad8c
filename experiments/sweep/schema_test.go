package sweep_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/parquettest"
)

// checkTable reads a written table and checks it against its
// documentation: the same columns in the same order, with the documented
// types, nullability and units; no null in a non-nullable column, no NaN
// or infinity anywhere; the schema version in the metadata. Conditional
// columns the table does not have are left out of the comparison.
func checkTable(t *testing.T, path string) arrow.Table {
	t.Helper()
	doc := outputs.Schema(filepath.Base(path))
	tbl := parquettest.ReadTable(t, path)
	sc := tbl.Schema()
	// A conditional column is documented and written only where a row
	// has it (outputs.Field.When).
	cols := doc.Columns[:0:0]
	for _, c := range doc.Columns {
		if !c.Conditional || sc.HasField(c.Name) {
			cols = append(cols, c)
		}
	}
	doc.Columns = cols
	if sc.NumFields() != len(doc.Columns) {
		t.Fatalf("%s: %d columns, documented %d", path, sc.NumFields(), len(doc.Columns))
	}
	if v, ok := sc.Metadata().GetValue("polluxsim.schema_version"); ok && v != strconv.Itoa(outputs.SchemaVersion) {
		t.Errorf("%s: schema version %q", path, v)
	}
	for i, f := range sc.Fields() {
		d := doc.Columns[i]
		if f.Name != d.Name || outputs.SQLType(f.Type) != d.Type || f.Nullable != d.Nullable {
			t.Errorf("%s: column %d is %s %s nullable=%v, documented %s %s nullable=%v", path, i, f.Name, outputs.SQLType(f.Type), f.Nullable, d.Name, d.Type, d.Nullable)
		}
		if d.Type == outputs.TypeString && f.Type.ID() != arrow.DICTIONARY {
			t.Errorf("%s: %s is %s in memory, want dictionary-encoded (categorical)", path, f.Name, f.Type)
		}
		if unit, _ := f.Metadata.GetValue("unit"); unit != d.Unit {
			t.Errorf("%s: %s has unit %q, documented %q", path, f.Name, unit, d.Unit)
		}
		for _, ch := range tbl.Column(i).Data().Chunks() {
			if !d.Nullable && ch.NullN() > 0 {
				t.Errorf("%s: %d nulls in non-nullable %s", path, ch.NullN(), f.Name)
			}
			if fa, ok := ch.(*array.Float64); ok {
				for k := 0; k < fa.Len(); k++ {
					if fa.IsValid(k) && (math.IsNaN(fa.Value(k)) || math.IsInf(fa.Value(k), 0)) {
						t.Errorf("%s: %s row %d is %v", path, f.Name, k, fa.Value(k))
						break
					}
				}
			}
		}
	}
	return tbl
}

// rows reads a table as one map per row (null → nil) for property checks.
func rows(tbl arrow.Table) []map[string]any {
	n := int(tbl.NumRows())
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{}
	}
	for c, f := range tbl.Schema().Fields() {
		r := 0
		for _, ch := range tbl.Column(c).Data().Chunks() {
			for k := 0; k < ch.Len(); k, r = k+1, r+1 {
				if ch.IsNull(k) {
					out[r][f.Name] = nil
					continue
				}
				switch a := ch.(type) {
				case *array.String:
					out[r][f.Name] = a.Value(k)
				case *array.Dictionary:
					out[r][f.Name] = a.Dictionary().(*array.String).Value(a.GetValueIndex(k))
				case *array.Int64:
					out[r][f.Name] = a.Value(k)
				case *array.Float64:
					out[r][f.Name] = a.Value(k)
				case *array.Boolean:
					out[r][f.Name] = a.Value(k)
				}
			}
		}
	}
	return out
}

// TestRunTables: every table of a run matches its documentation; rows sum
// correctly over time; nulls stand where values do not apply; two runs
// that differ only in a policy option have different run ids.
func TestRunTables(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	res := exptest.RunWithOptions(t, "pollux", "", a)
	exptest.RunWithOptions(t, "pollux", "p=1", b)
	ids := map[string]bool{}
	for _, dir := range []string{a, b} {
		for _, f := range []string{"jobs.parquet", "rounds.parquet", "cluster.parquet", "types.parquet"} {
			tbl := checkTable(t, filepath.Join(dir, f))
			for _, r := range rows(tbl) {
				ids[r["run_id"].(string)] = true
				if r["experiment"] != nil || r["cell"] != nil || r["workload"] != nil {
					t.Fatalf("%s: a plain run has sweep columns %v %v %v", f, r["experiment"], r["cell"], r["workload"])
				}
			}
			tbl.Release()
		}
	}
	if len(ids) != 2 {
		t.Errorf("run ids %v: want one per run, two in all", ids)
	}

	// A job's rounds last from its first round to its finish.
	finish := map[string]float64{}
	for _, j := range res.Jobs {
		finish[j.Name] = j.Finish
	}
	rt := parquettest.ReadTable(t, filepath.Join(a, "rounds.parquet"))
	defer rt.Release()
	first, total := map[string]float64{}, map[string]float64{}
	pending := 0
	for _, r := range rows(rt) {
		name := r["name"].(string)
		if _, ok := first[name]; !ok {
			first[name] = r["time_s"].(float64)
		}
		total[name] += r["duration_s"].(float64)
		if r["phase"] == "pending" {
			pending++
			if r["batch"] != nil || r["efficiency"] != nil || r["goodput"] != nil || r["local_batch"] != nil {
				t.Fatalf("pending row with a configuration: %v", r)
			}
		} else if b := r["batch"].(int64); b != r["local_batch"].(int64)*r["gpus"].(int64)*(r["accum_steps"].(int64)+1) {
			t.Fatalf("batch %d != local_batch × gpus × (accum_steps + 1) in %v", b, r)
		}
		if p, ok := r["pgns"].(float64); ok && !(p > 0) {
			t.Fatalf("pgns %v: want null or positive", p)
		}
	}
	for name, f := range finish {
		if d := total[name] - (f - first[name]); math.Abs(d) > 1e-6*f {
			t.Errorf("%s: rounds sum to %v s, finish − first round = %v s", name, total[name], f-first[name])
		}
	}

	// The cluster's rounds cover [0, makespan] without gaps, idle ones too.
	ct := parquettest.ReadTable(t, filepath.Join(a, "cluster.parquet"))
	defer ct.Release()
	sum, idle := 0.0, 0
	for n, r := range rows(ct) {
		if r["round"].(int64) != int64(n) || r["time_s"].(float64) != 60*float64(n) {
			t.Fatalf("row %d is round %v at %v s", n, r["round"], r["time_s"])
		}
		sum += r["duration_s"].(float64)
		if r["active_jobs"].(int64) == 0 {
			idle++
			if r["policy_wall_s"] != nil || r["gpus"].(int64) != 0 {
				t.Fatalf("idle round with a policy call or GPUs: %v", r)
			}
		} else if r["policy_wall_s"] == nil {
			t.Fatalf("active round without policy time: %v", r)
		}
	}
	if math.Abs(sum-res.Summary.Makespan) > 1e-6*sum {
		t.Errorf("cluster rounds sum to %v s, makespan %v s", sum, res.Summary.Makespan)
	}
	if idle < 100 {
		t.Errorf("%d idle rounds, want the gap's (> 100)", idle)
	}
}

// TestSweepTables: every table of a sweep matches its documentation, and
// its per-job rows are the runs' jobs.
func TestSweepTables(t *testing.T) {
	dir := exptest.TinyFull(t)
	counts := map[string]int64{}
	for _, f := range []string{sweep.ResultsFile, sweep.AppsFile, sweep.JobsFile, sweep.ClusterFile, sweep.TypesFile, sweep.RoundsFile} {
		tbl := checkTable(t, filepath.Join(dir, f))
		counts[f] = tbl.NumRows()
		ids := map[any]bool{}
		for _, r := range rows(tbl) {
			ids[r["run_id"]] = true
			if r["experiment"] == nil || r["cell"] == nil || r["workload"] == nil {
				t.Fatalf("%s: a sweep row without its run: %v", f, r)
			}
		}
		if len(ids) != 20 {
			t.Errorf("%s: rows of %d runs, want 20", f, len(ids))
		}
		tbl.Release()
	}
	if counts[sweep.ResultsFile] != 20 || counts[sweep.JobsFile] == 0 || counts[sweep.ClusterFile] < counts[sweep.ResultsFile] || counts[sweep.AppsFile] < counts[sweep.ResultsFile] || counts[sweep.RoundsFile] < counts[sweep.ClusterFile]/2 || counts[sweep.TypesFile] != 20 {
		t.Errorf("row counts %v", counts)
	}
	res := parquettest.ReadTable(t, filepath.Join(dir, sweep.ResultsFile))
	defer res.Release()
	jobs := int64(0)
	for _, r := range rows(res) {
		jobs += r["jobs"].(int64)
		if n, g := r["nodes"].(int64), r["gpus_per_node"].(int64); r["cluster"] != fmt.Sprintf("%dx%d", n, g) || r["cluster_gpus"] != n*g {
			t.Errorf("cluster %v of %v GPUs, %d nodes of %d GPUs", r["cluster"], r["cluster_gpus"], n, g)
		}
		if r["wall_s"] != nil {
			t.Errorf("wall_s %v with no timing: want null", r["wall_s"])
		}
	}
	if jobs != counts[sweep.JobsFile] {
		t.Errorf("jobs.parquet has %d rows, the runs %d jobs", counts[sweep.JobsFile], jobs)
	}
}
