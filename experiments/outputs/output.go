package outputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/sim"
)

// RunMeta identifies where a run's results came from.
type RunMeta struct {
	// Version is the code that made the run (results.parquet's
	// polluxsim_version).
	Version    string `json:"polluxsim_version"`
	Seed       uint64 `json:"seed"`
	InputsHash string `json:"inputs_hash"`
	// Workload is the workload's canonical source (workload_source) and
	// WorkloadDigest its content's digest (see WorkloadDigest).
	Workload       string `json:"workload_source"`
	WorkloadDigest string `json:"workload_digest"`
	Profiles       string `json:"profiles"`
	// PolicyCode is the digest of the policy's code outside the binary
	// (an external policy's script; Identity.PolicyCode), part of the
	// run's identity; absent for a built-in policy.
	PolicyCode string `json:"policy_code,omitempty"`
	// PolicyName is the name the policy reports of itself
	// (policies.ReportedName: an external policy's child's), the policy's
	// registered name for the others; summary.json's policy_name, after
	// policy ("" is taken as the registered name).
	PolicyName string `json:"-"`
}

// RunSummary is the content of summary.json: the run's identity, the
// engine's counts, every metric of the run's metric set (in its order,
// see MarshalJSON), the per-type figures, its metadata and settings.
type RunSummary struct {
	// RunID is the run's run_id, the same as in its tables' run_id column.
	RunID string `json:"run_id"`
	// PolicyName is its policy_name column (RunKey.PolicyName), written
	// after policy.
	PolicyName string `json:"-"`
	sim.Summary
	PeakRSSMB float64 `json:"peak_rss_mb"`
	RunMeta
	// Cluster is the cluster as every output names it (see
	// runspec.RunSpec.ClusterSpec) and ClusterGPUs its GPUs.
	Cluster     string          `json:"cluster"`
	ClusterGPUs int             `json:"cluster_gpus"`
	Settings    SummarySettings `json:"settings"`

	// metrics are the run's metrics and data what they are computed
	// from.
	metrics Metrics
	data    *RunData
}

// MarshalJSON writes summary.json: run_id, policy, policy_name and jobs; then one key
// per metric of the set, in its order (null where the run has none; an
// Optional metric only when the run has a non-zero value, or any value
// when it is Present; a timing one 0
// when not measured); then the per-GPU-type maps and the policy's
// counters when there are any; peak_rss_mb, the run's metadata, cluster,
// cluster_gpus and settings. Every metric of results.parquet is a key
// here (TestSummaryCarriesResultsMetrics).
func (s RunSummary) MarshalJSON() ([]byte, error) {
	var o jsonObject
	o.add("run_id", s.RunID)
	o.add("policy", s.Policy)
	o.add("policy_name", s.PolicyName)
	o.add("jobs", s.Jobs)
	data := s.data
	if data == nil {
		data = &RunData{Summary: &s.Summary}
	}
	for _, m := range s.metrics.All() {
		v, ok := m.Value(data)
		switch {
		case m.Optional && (!ok || (v == 0 && !m.Present)):
			continue
		case !ok && !m.Timing:
			o.add(m.Name, nil)
		case m.Count:
			o.add(m.Name, int64(v))
		default:
			o.add(m.Name, v)
		}
	}
	if len(s.GPUHoursByType) > 0 {
		o.add("gpu_hours_by_type", s.GPUHoursByType)
	}
	if len(s.JobsByType) > 0 {
		o.add("jobs_by_type", s.JobsByType)
	}
	if len(s.CostByType) > 0 {
		o.add("cost_by_type", s.CostByType)
	}
	if len(s.PolicyStats) > 0 {
		o.add("policy_stats", s.PolicyStats)
	}
	o.add("peak_rss_mb", s.PeakRSSMB)
	o.addFields(s.RunMeta)
	o.add("cluster", s.Cluster)
	o.add("cluster_gpus", s.ClusterGPUs)
	o.add("settings", s.Settings)
	return o.bytes()
}

// jsonObject writes a JSON object key by key, in the order added.
type jsonObject struct {
	buf bytes.Buffer
	err error
}

func (o *jsonObject) add(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		o.err = errors.Join(o.err, fmt.Errorf("%s: %w", key, err))
		return
	}
	o.sep()
	k, _ := json.Marshal(key)
	o.buf.Write(k)
	o.buf.WriteByte(':')
	o.buf.Write(data)
}

// addFields adds the keys of v, a struct encoded as a JSON object.
func (o *jsonObject) addFields(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		o.err = errors.Join(o.err, err)
		return
	}
	if inner := bytes.TrimSpace(data[1 : len(data)-1]); len(inner) > 0 {
		o.sep()
		o.buf.Write(inner)
	}
}

func (o *jsonObject) sep() {
	if o.buf.Len() == 0 {
		o.buf.WriteByte('{')
	} else {
		o.buf.WriteByte(',')
	}
}

func (o *jsonObject) bytes() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	if o.buf.Len() == 0 {
		return []byte("{}"), nil
	}
	return append(o.buf.Bytes(), '}'), nil
}

// SummarySettings are a run's settings as summary.json shows them: every
// setting, except that on node pools gpus_per_node (the largest node's,
// not every node's) is left out; cluster and cluster_gpus say the cluster.
type SummarySettings runspec.RunSpec

// MarshalJSON writes the settings as RunSpec does, less gpus_per_node on
// node pools.
func (s SummarySettings) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(runspec.RunSpec(s))
	if err != nil || s.Cluster == "" {
		return data, err
	}
	// RunSpec's fields are in a fixed order, gpus_per_node never last.
	return bytes.Replace(data, []byte(`"gpus_per_node":`+strconv.Itoa(s.GPUsPerNode)+`,`), nil, 1), nil
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
	// Metrics are the run's metrics (the zero value: BuiltinMetrics).
	Metrics Metrics
	// Tables are the run's tables of one's own (RunTable), written
	// beside the built-in ones.
	Tables []RunTable
}

// NewRunData is the data a finished run's metrics are computed from;
// with noTiming its wall-clock figures are zero (and its timing metrics
// unmeasured).
func NewRunData(res *sim.Result, noTiming bool) *RunData {
	s := res.Summary
	if noTiming {
		s.Wall, s.PolicyRoundP50, s.PolicyRoundP99, s.PolicyRoundTotal = 0, 0, 0, 0
	}
	return &RunData{Summary: &s, Jobs: res.Jobs, Rounds: ClusterRows(res, noTiming),
		ClusterGPUs: res.Config.Cluster.TotalGPUs(), NoTiming: noTiming}
}

// NewRunSummary assembles summary.json's content for a finished run.
func NewRunSummary(res *sim.Result, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) RunSummary {
	data := NewRunData(res, opt.NoTiming)
	key := PlainRunKey(spec, meta)
	s := RunSummary{RunID: key.ID, PolicyName: key.PolicyName, Summary: *data.Summary, RunMeta: meta, Settings: SummarySettings(spec), PeakRSSMB: PeakRSSMB(),
		Cluster: spec.ClusterSpec(), ClusterGPUs: data.ClusterGPUs, metrics: opt.Metrics, data: data}
	if opt.NoTiming {
		s.PeakRSSMB = 0
	}
	return s
}

// RunFolder is a run's output folder while the run's outputs are written.
// Every file goes to a hidden temporary file first, and the last step
// replaces an earlier run's files in one go (atomicfile.Batch): until then
// the earlier run stays whole, and a folder with a summary.json always
// holds one complete run. Abort, safe to call from another goroutine (a
// signal handler), removes every temporary file, and the folder too when
// OpenRunFolder made it and it is still empty.
type RunFolder struct {
	dir     string
	created bool
	batch   atomicfile.Batch
	// staging, when set (by tests), is called before each output is
	// staged; an error stops the write there as a crash would.
	staging func(name string) error
}

// OpenRunFolder prepares dir for a run's outputs: it checks that they may
// go there (CheckRunFolder), creates dir when needed and removes the
// temporary files a killed run left there.
func OpenRunFolder(dir string) (*RunFolder, error) {
	if err := CheckRunFolder(dir); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the folder: %w", fserr.Cause(err))
	}
	f := &RunFolder{dir: dir, created: errors.Is(statErr, fs.ErrNotExist)}
	// A folder that cannot take a file fails now, before any simulation
	// time is spent; the probe has a hidden name, like the temporary files.
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		f.Abort()
		return nil, fmt.Errorf("folder is not writable: %w", fserr.Cause(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			for _, out := range RunOutputs() {
				if strings.HasPrefix(e.Name(), "."+out+".tmp-") || strings.HasPrefix(e.Name(), "."+out+".stream-") {
					os.Remove(filepath.Join(dir, e.Name()))
				}
			}
		}
	}
	return f, nil
}

// Dir is the folder; Created reports whether OpenRunFolder made it.
func (f *RunFolder) Dir() string   { return f.dir }
func (f *RunFolder) Created() bool { return f.created }

// Abort removes every temporary file of the run's outputs, and the folder
// when OpenRunFolder made it and it is empty; an earlier run in the folder
// is untouched. Safe to call more than once and after Write (then it
// removes nothing written).
func (f *RunFolder) Abort() {
	f.batch.Abort()
	if f.created {
		os.Remove(f.dir) // only if empty
	}
}

// StreamRounds starts the folder's rounds.parquet for a run of policy
// (its name as the policy reports it) with spec and meta, to be filled
// while the run goes (it is the run's sim.RoundSink); Write commits it
// with the other outputs.
func (f *RunFolder) StreamRounds(policy string, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) (*RoundsStream, error) {
	return newRoundsStream(&f.batch, filepath.Join(f.dir, "rounds.parquet"), policy, spec, meta, opt)
}

// Write writes the run's outputs: summary.json, jobs.parquet,
// rounds.parquet (opt.Rounds when streamed, else from Result.Rounds; none
// when the run kept no rounds), cluster.parquet, types.parquet and, on an elastic
// cluster, nodes.parquet (the tables are documented in Tables). They
// replace an earlier run's outputs in one step at the end; outputs of an
// earlier run that this one does not have are removed in that step.
// meta must carry the run's identity (Version and InputsHash, see
// runner.Run, which computes them).
func (f *RunFolder) Write(res *sim.Result, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) error {
	if meta.Version == "" || meta.InputsHash == "" {
		f.Abort()
		return errors.New("outputs: the run has no identity (RunMeta.Version and InputsHash are empty); runner.Run computes it")
	}
	if err := f.stage(res, spec, meta, opt); err != nil {
		f.Abort()
		return err
	}
	var stale []string
	outs := RunOutputs()
	for _, t := range opt.Tables {
		outs = append(outs, t.Schema().File)
	}
	for _, out := range outs {
		if p := filepath.Join(f.dir, out); !f.batch.Staged(p) {
			stale = append(stale, p)
		}
	}
	if err := f.batch.Commit(stale...); err != nil {
		return err
	}
	return nil
}

// stage writes every output to its temporary file, summary.json last.
func (f *RunFolder) stage(res *sim.Result, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) error {
	kv, order := parquetMeta(spec, meta)
	key := PlainRunKey(spec, meta)
	b := &f.batch
	if err := f.hook("jobs.parquet"); err != nil {
		return err
	}
	if err := writeJobs(b, filepath.Join(f.dir, "jobs.parquet"), &key, res, kv, order); err != nil {
		return err
	}
	if err := f.hook("rounds.parquet"); err != nil {
		return err
	}
	if opt.Rounds != nil {
		if err := opt.Rounds.finish(); err != nil {
			return err
		}
	} else if m, _ := spec.RoundsMode(); m != sim.RoundsNone {
		if err := writeRounds(b, filepath.Join(f.dir, "rounds.parquet"), &key, res, kv, order); err != nil {
			return err
		}
	}
	if err := f.hook("cluster.parquet"); err != nil {
		return err
	}
	if err := writeCluster(b, filepath.Join(f.dir, "cluster.parquet"), &key, res, opt.NoTiming, kv, order); err != nil {
		return err
	}
	if err := f.hook("types.parquet"); err != nil {
		return err
	}
	types := TypeRows(&key, &res.Summary, res.Config.Cluster, res.Jobs)
	if err := stageTable(b, filepath.Join(f.dir, TypesTable.File), TypesTable, func(i int) TypeRow { return types[i] }, len(types), kv, order); err != nil {
		return err
	}
	if len(res.NodeStats) > 0 {
		if err := writeNodes(b, nodesFile(f.dir), &key, res, kv, order); err != nil {
			return err
		}
	}
	if len(opt.Tables) > 0 {
		run := KeyedRun{&key, NewRunData(res, opt.NoTiming)}
		for _, t := range opt.Tables {
			if err := f.hook(t.Schema().File); err != nil {
				return err
			}
			if err := t.stage(f, run, kv, order); err != nil {
				return err
			}
		}
	}
	if err := f.hook("summary.json"); err != nil {
		return err
	}
	path := filepath.Join(f.dir, "summary.json")
	data, err := jsonBytes(path, NewRunSummary(res, spec, meta, opt))
	if err != nil {
		return err
	}
	return b.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

func (f *RunFolder) hook(name string) error {
	if f.staging == nil {
		return nil
	}
	return f.staging(name)
}

// WriteRun writes a finished run's outputs to dir (OpenRunFolder, then
// RunFolder.Write).
func WriteRun(dir string, res *sim.Result, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) error {
	f, err := OpenRunFolder(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return f.Write(res, spec, meta, opt)
}

// RunFiles lists the files Write wrote to dir for res, summary.json first.
func RunFiles(dir string, res *sim.Result) []string {
	files := []string{filepath.Join(dir, "summary.json"), filepath.Join(dir, "jobs.parquet")}
	if res.Config.Rounds != sim.RoundsNone {
		files = append(files, filepath.Join(dir, "rounds.parquet"))
	}
	files = append(files, filepath.Join(dir, "cluster.parquet"), filepath.Join(dir, TypesTable.File))
	if len(res.NodeStats) > 0 {
		files = append(files, nodesFile(dir))
	}
	return files
}

// RunOutputs are the names of the files of a run's folder, summary.json
// first.
func RunOutputs() []string {
	return []string{"summary.json", "jobs.parquet", "rounds.parquet", "cluster.parquet", "types.parquet", "nodes.parquet"}
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
	for _, f := range RunOutputs() {
		p := filepath.Join(dir, f)
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("cannot replace the earlier output %s: not a regular file", p)
		}
	}
	return nil
}

// WriteJSON writes v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	data, err := jsonBytes(path, v)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, data)
}

// writeJSON stages v as indented JSON in b.
func writeJSON(b *atomicfile.Batch, path string, v any) error {
	data, err := jsonBytes(path, v)
	if err != nil {
		return err
	}
	return b.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

func jsonBytes(path string, v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return append(data, '\n'), nil
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
func writeJobs(b *atomicfile.Batch, path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	return stageTable(b, path, JobsTable, func(i int) JobRow { return JobRow{key, &res.Jobs[i]} }, len(res.Jobs), kv, order)
}

// WriteRounds writes a rounds table to path: one row per active job per
// scheduling round of res (a sweep keeps them beside its stored runs).
func WriteRounds(path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	return WriteTable(path, RoundsTable, roundRows(key, &res.Rounds), len(res.Rounds), kv, order)
}

// writeRounds stages a run's rounds.parquet in b.
func writeRounds(b *atomicfile.Batch, path string, key *RunKey, res *sim.Result, kv map[string]string, order []string) error {
	return stageTable(b, path, RoundsTable, roundRows(key, &res.Rounds), len(res.Rounds), kv, order)
}

// writeCluster writes cluster.parquet: one row per scheduling round, idle
// ones included.
func writeCluster(b *atomicfile.Batch, path string, key *RunKey, res *sim.Result, noTiming bool, kv map[string]string, order []string) error {
	cr := ClusterRows(res, noTiming)
	gpus := res.Config.Cluster.TotalGPUs()
	return stageTable(b, path, ClusterTable, func(i int) ClusterTableRow { return ClusterTableRow{key, gpus, &cr[i]} }, len(cr), kv, order)
}
