package outputs

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

	"github.com/polluxsim/polluxsim/experiments/runspec"
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
	Settings runspec.RunSpec `json:"settings"`
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
func NewRunSummary(res *sim.Result, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) RunSummary {
	s := RunSummary{Summary: res.Summary, RunMeta: meta, Settings: spec, PeakRSSMB: PeakRSSMB()}
	if opt.NoTiming {
		s.Wall, s.PolicyRoundP50, s.PolicyRoundP99, s.PolicyRoundTotal, s.PeakRSSMB = 0, 0, 0, 0, 0
	}
	return s
}

// WriteRun writes dir/summary.json, dir/jobs.parquet, dir/rounds.parquet and
// dir/cluster.parquet (creating dir; the tables are documented in Tables). Each file is written atomically (to a hidden temporary
// name, then renamed), and summary.json is written last: a folder with a
// summary.json holds a complete run. Outputs of an earlier run in dir are
// removed first, so an interrupted run never leaves a mix of old and new
// files that looks complete; so are temporary files a killed run left.
func WriteRun(dir string, res *sim.Result, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create output folder: %w", err)
	}
	// Nothing is removed unless all of it can be.
	if err := CheckRunFolder(dir); err != nil {
		return err
	}
	outputs := runOutputs()
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
	key := PlainRunKey(spec, meta)
	if err := writeJobs(filepath.Join(dir, "jobs.parquet"), &key, res, kv, order); err != nil {
		return err
	}
	if err := writeRunRounds(filepath.Join(dir, "rounds.parquet"), &key, res, spec, opt, kv, order); err != nil {
		return err
	}
	if err := writeCluster(filepath.Join(dir, "cluster.parquet"), &key, res, opt.NoTiming, kv, order); err != nil {
		return err
	}
	if len(res.NodeStats) > 0 {
		if err := writeNodes(nodesFile(dir), &key, res, kv, order); err != nil {
			return err
		}
	}
	return WriteJSON(filepath.Join(dir, "summary.json"), NewRunSummary(res, spec, meta, opt))
}

// runOutputs are the files of a run's folder, summary.json first.
func runOutputs() []string {
	return []string{"summary.json", "jobs.parquet", "rounds.parquet", "cluster.parquet", "nodes.parquet"}
}

// CheckRunFolder reports, before a run, whether WriteRun can put its
// outputs in dir: dir is not a sweep's folder (it would mix a run's files
// with the sweep's), and each of the run's file names there is free or an
// earlier output WriteRun can replace (a file or a symbolic link, not a
// folder). A folder that does not exist yet passes.
func CheckRunFolder(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "experiment.json")); err == nil {
		return fmt.Errorf("%s holds a sweep's outputs (experiment.json): write the run to another folder", dir)
	}
	for _, f := range runOutputs() {
		p := filepath.Join(dir, f)
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("cannot replace the earlier output %s: not a regular file", p)
		}
	}
	return nil
}

// writeRunRounds writes or commits rounds.parquet; a run recording no
// rounds has none.
func writeRunRounds(path string, key *RunKey, res *sim.Result, spec runspec.RunSpec, opt OutputOptions, kv map[string]string, order []string) error {
	if opt.Rounds != nil {
		return opt.Rounds.Commit()
	}
	if m, _ := spec.RoundsMode(); m == sim.RoundsNone {
		return nil
	}
	return WriteRounds(path, key, res, kv, order)
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

func parquetMeta(spec runspec.RunSpec, meta RunMeta) (map[string]string, []string) {
	settings, _ := json.Marshal(spec)
	kv := map[string]string{
		"polluxsim.version":     meta.Version,
		"polluxsim.seed":        fmt.Sprint(meta.Seed),
		"polluxsim.inputs_hash": meta.InputsHash,
		"polluxsim.settings":    string(settings),
	}
	return kv, []string{"polluxsim.version", "polluxsim.seed", "polluxsim.inputs_hash", "polluxsim.settings"}
}

// writeJobs writes jobs.parquet: one row per job of the run key.
func writeJobs(path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	rows := make([]JobRow, len(res.Jobs))
	for i := range res.Jobs {
		rows[i] = JobRow{key, &res.Jobs[i]}
	}
	return WriteTable(path, Table("jobs.parquet"), JobTableCols(rows), len(rows), kv, order)
}

// writeRounds writes rounds.parquet: one row per active job per
// scheduling round.
func WriteRounds(path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	return WriteTable(path, Table("rounds.parquet"), roundTableCols(key, &res.Rounds), len(res.Rounds), kv, order)
}

// writeCluster writes cluster.parquet: one row per scheduling round, idle
// ones included.
func writeCluster(path string, key *RunKey, res *sim.Result, noTiming bool, kv map[string]string, order []string) error {
	cr := ClusterRows(res, noTiming)
	rows := make([]ClusterTableRow, len(cr))
	for i := range cr {
		rows[i] = ClusterTableRow{key, res.Config.Cluster.TotalGPUs(), &cr[i]}
	}
	return WriteTable(path, Table("cluster.parquet"), ClusterTableCols(rows), len(rows), kv, order)
}
