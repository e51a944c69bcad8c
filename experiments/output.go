package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/sim"
)

// RunMeta identifies where a run's results came from.
type RunMeta struct {
	Version    string `json:"version"`
	Seed       uint64 `json:"seed"`
	InputsHash string `json:"inputs_hash"`
	Workload   string `json:"workload"`
	Profiles   string `json:"profiles"`
}

// HashInputs returns a hex SHA-256 over the given parts (each
// length-prefixed, so boundaries count): the identity of a run's inputs.
func HashInputs(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RunSummary is the content of summary.json.
type RunSummary struct {
	sim.Summary
	PeakRSSMB float64 `json:"peak_rss_mb"`
	RunMeta
	Settings RunSpec `json:"settings"`
}

// OutputOptions tune WriteRun.
type OutputOptions struct {
	// NoTiming zeroes every wall-clock field (wall_s, policy round times,
	// peak memory, the policy_wall_s column) so that outputs of the same
	// inputs are byte-identical.
	NoTiming bool
	// Rounds, when set, holds the run's rounds.parquet, streamed while it
	// ran (see RoundsStream); WriteRun commits it instead of writing
	// Result.Rounds.
	Rounds *RoundsStream
}

// NewRunSummary assembles summary.json's content for a finished run.
func NewRunSummary(res *sim.Result, spec RunSpec, meta RunMeta, opt OutputOptions) RunSummary {
	s := RunSummary{Summary: res.Summary, RunMeta: meta, Settings: spec, PeakRSSMB: PeakRSSMB()}
	if opt.NoTiming {
		s.Wall, s.PolicyRoundP50, s.PolicyRoundP99, s.PolicyRoundTotal, s.PeakRSSMB = 0, 0, 0, 0, 0
	}
	return s
}

// WriteRun writes dir/summary.json, dir/jobs.parquet and dir/rounds.parquet
// (creating dir). Each file is written atomically (to a hidden temporary
// name, then renamed), and summary.json is written last: a folder with a
// summary.json holds a complete run. Outputs of an earlier run in dir are
// removed first, so an interrupted run never leaves a mix of old and new
// files that looks complete; so are temporary files a killed run left.
func WriteRun(dir string, res *sim.Result, spec RunSpec, meta RunMeta, opt OutputOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create output folder: %w", err)
	}
	outputs := []string{"summary.json", "jobs.parquet", "rounds.parquet"} // summary.json first
	for _, f := range outputs {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot replace the earlier output: %w", err)
		}
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			for _, f := range outputs {
				if strings.HasPrefix(e.Name(), "."+f+".tmp-") {
					os.Remove(filepath.Join(dir, e.Name()))
				}
			}
		}
	}
	kv, order := parquetMeta(spec, meta)
	if err := WriteJobs(filepath.Join(dir, "jobs.parquet"), res, kv, order); err != nil {
		return err
	}
	if err := writeRunRounds(filepath.Join(dir, "rounds.parquet"), res, spec, opt, kv, order); err != nil {
		return err
	}
	return WriteJSON(filepath.Join(dir, "summary.json"), NewRunSummary(res, spec, meta, opt))
}

// writeRunRounds writes or commits rounds.parquet; a run recording no
// rounds has none.
func writeRunRounds(path string, res *sim.Result, spec RunSpec, opt OutputOptions, kv map[string]string, order []string) error {
	if opt.Rounds != nil {
		return opt.Rounds.Commit()
	}
	if m, _ := spec.RoundsMode(); m == sim.RoundsNone {
		return nil
	}
	return WriteRounds(path, res, opt, kv, order)
}

// WriteJSON writes v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, append(data, '\n'))
}

// PeakRSSMB is the process's peak resident memory in MiB (0 where unknown).
func PeakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

func parquetMeta(spec RunSpec, meta RunMeta) (map[string]string, []string) {
	settings, _ := json.Marshal(spec)
	kv := map[string]string{
		"polluxsim.version":     meta.Version,
		"polluxsim.seed":        fmt.Sprint(meta.Seed),
		"polluxsim.inputs_hash": meta.InputsHash,
		"polluxsim.settings":    string(settings),
	}
	return kv, []string{"polluxsim.version", "polluxsim.seed", "polluxsim.inputs_hash", "polluxsim.settings"}
}

// WriteJobs writes one row per job.
func WriteJobs(path string, res *sim.Result, kv map[string]string, order []string) error {
	j := res.Jobs
	pol := res.Summary.Policy
	cols := []column{
		strCol("policy", func(int) string { return pol }),
		strCol("name", func(i int) string { return j[i].Name }),
		strCol("application", func(i int) string { return j[i].App }),
		i64Col("request_gpus", func(i int) int64 { return int64(j[i].RequestGPUs) }),
		i64Col("request_batch", func(i int) int64 { return int64(j[i].RequestBatch) }),
		f64Col("submit_s", func(i int) float64 { return j[i].Submit }),
		f64Col("first_start_s", func(i int) float64 { return j[i].FirstStart }),
		f64Col("finish_s", func(i int) float64 { return j[i].Finish }),
		f64Col("jct_s", func(i int) float64 { return j[i].JCT }),
		f64Col("queueing_s", func(i int) float64 { return j[i].Queueing }),
		i64Col("restarts", func(i int) int64 { return int64(j[i].Restarts) }),
		f64Col("gpu_seconds", func(i int) float64 { return j[i].GPUSeconds }),
		f64Col("mean_batch", func(i int) float64 { return j[i].MeanBatch }),
		f64Col("mean_efficiency", func(i int) float64 { return j[i].MeanEfficiency }),
		i64Col("epochs", func(i int) int64 { return int64(j[i].Epochs) }),
		f64Col("contention", func(i int) float64 { return j[i].Contention }),
		f64Col("exclusive_jct_s", func(i int) float64 { return j[i].ExclusiveJCT }),
		f64Col("fairness_rho", func(i int) float64 { return j[i].Fairness }),
	}
	return writeParquet(path, cols, len(j), kv, order)
}

// WriteRounds writes one row per active job per scheduling round.
func WriteRounds(path string, res *sim.Result, opt OutputOptions, kv map[string]string, order []string) error {
	r := res.Rounds
	return writeParquet(path, roundColumns(&r, res.Summary.Policy, opt), len(r), kv, order)
}

// roundColumns are the columns of rounds.parquet over the records *rp (a
// pointer, so that a streaming writer can refill the slice).
func roundColumns(rp *[]sim.RoundRecord, pol string, opt OutputOptions) []column {
	r := func(i int) *sim.RoundRecord { return &(*rp)[i] }
	return []column{
		strCol("policy", func(int) string { return pol }),
		f64Col("time_s", func(i int) float64 { return r(i).Time }),
		strCol("job", func(i int) string { return r(i).Job }),
		strCol("application", func(i int) string { return r(i).App }),
		strCol("phase", func(i int) string { return r(i).Phase }),
		i64Col("gpus", func(i int) int64 { return int64(r(i).GPUs) }),
		i64Col("nodes", func(i int) int64 { return int64(r(i).Nodes) }),
		i64Col("local_batch", func(i int) int64 { return int64(r(i).Local) }),
		i64Col("accum_steps", func(i int) int64 { return int64(r(i).Accum) }),
		i64Col("batch", func(i int) int64 { return int64(r(i).Batch) }),
		f64Col("pgns", func(i int) float64 { return r(i).PGNS }),
		f64Col("efficiency", func(i int) float64 { return r(i).Efficiency }),
		f64Col("goodput", func(i int) float64 { return r(i).Goodput }),
		f64Col("progress", func(i int) float64 { return r(i).Progress }),
		f64Col("policy_wall_s", func(i int) float64 {
			if opt.NoTiming {
				return 0
			}
			return r(i).PolicySeconds
		}),
	}
}
