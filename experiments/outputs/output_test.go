package outputs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/internal/parquettest"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

func smallRun(t *testing.T, policy string, workers int, dir string) {
	t.Helper()
	set := profiles.Compact()
	w, err := runspec.GenerateWorkload(nil, set, 24, 3, "tuned", 4)
	if err != nil {
		t.Fatal(err)
	}
	spec := runspec.DefaultSpec(policy)
	spec.Nodes = 4
	p, err := known.Policies.Build(spec.Policy, spec.Options, spec.Env(workers))
	if err != nil {
		t.Fatal(err)
	}
	// Jobs larger than the small cluster are shrunk to fit it.
	for i := range w.Jobs {
		w.Jobs[i].Replicas = min(w.Jobs[i].Replicas, 16)
	}
	res, err := sim.Run(spec.SimConfig(), set, w, p)
	if err != nil {
		t.Fatal(err)
	}
	meta := RunMeta{Version: "test", Seed: spec.Seed, InputsHash: digest.Parts([]byte("x"))}
	if err := WriteRun(dir, res, spec, meta, OutputOptions{NoTiming: true}); err != nil {
		t.Fatal(err)
	}
}

// TestOutputsByteIdentical: the same inputs and seed give byte-identical
// summary.json and Parquet files, with one or several search workers.
func TestOutputsByteIdentical(t *testing.T) {
	for _, policy := range []string{"pollux", "tiresias"} {
		a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
		smallRun(t, policy, 1, a)
		smallRun(t, policy, 1, b)
		smallRun(t, policy, 3, c)
		for _, f := range []string{"summary.json", "jobs.parquet", "rounds.parquet", "cluster.parquet"} {
			x, err := os.ReadFile(filepath.Join(a, f))
			if err != nil {
				t.Fatal(err)
			}
			y, _ := os.ReadFile(filepath.Join(b, f))
			z, _ := os.ReadFile(filepath.Join(c, f))
			if !bytes.Equal(x, y) {
				t.Errorf("%s %s differs between two identical runs", policy, f)
			}
			if !bytes.Equal(x, z) {
				t.Errorf("%s %s differs between 1 and 3 search workers", policy, f)
			}
			if len(x) < 100 {
				t.Errorf("%s %s suspiciously small: %d bytes", policy, f, len(x))
			}
		}
		var sum map[string]any
		data, _ := os.ReadFile(filepath.Join(a, "summary.json"))
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"avg_jct_s", "p50_jct_s", "p99_jct_s", "makespan_s", "jobs", "restarts", "gpu_hours", "wall_s", "settings", "polluxsim_version", "seed", "inputs_hash", "workload_source", "workload_digest", "cluster", "cluster_gpus", "policy_round_p50_s", "policy_round_p99_s", "peak_rss_mb"} {
			if _, ok := sum[k]; !ok {
				t.Errorf("summary.json lacks %q", k)
			}
		}
	}
}

// TestParquetReadsBack: the Parquet files read back with the Arrow reader,
// with the schema and values the run produced.
func TestParquetReadsBack(t *testing.T) {
	dir := t.TempDir()
	smallRun(t, "tiresias", 1, dir)
	tbl := parquettest.ReadTable(t, filepath.Join(dir, "jobs.parquet"))
	defer tbl.Release()
	if tbl.NumRows() != 24 {
		t.Fatalf("jobs.parquet has %d rows, want 24", tbl.NumRows())
	}
	var sum map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	json.Unmarshal(data, &sum)
	jct := parquettest.Float64Column(t, tbl, "jct_s")
	total := 0.0
	for _, v := range jct {
		total += v
	}
	if avg := total / float64(len(jct)); avg != sum["avg_jct_s"].(float64) {
		t.Errorf("mean of jct_s %v != summary avg_jct_s %v", avg, sum["avg_jct_s"])
	}
	rounds := parquettest.ReadTable(t, filepath.Join(dir, "rounds.parquet"))
	defer rounds.Release()
	if rounds.NumRows() == 0 {
		t.Error("rounds.parquet is empty")
	}
	for _, name := range []string{"run_id", "time_s", "duration_s", "name", "gpus", "batch", "efficiency", "goodput"} {
		if len(rounds.Schema().FieldIndices(name)) != 1 {
			t.Errorf("rounds.parquet lacks column %s", name)
		}
	}
}
