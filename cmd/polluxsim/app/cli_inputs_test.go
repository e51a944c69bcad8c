package app

// Special files where an input file is needed, through the binary.

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/polluxsim/polluxsim/profiles"
)

// TestCLISpecialInputs: a named pipe (which blocked for ever) or a link
// to /dev/zero (which grew to gigabytes) as an input file ends in one line
// naming the file, for every reader: --workload, --cluster, the tables of
// a --profiles folder, a compact profile, the Philly inputs of `workload`,
// an experiment spec and the cluster traces (by header or by format);
// `profiles list` reads profiles the same way.
func TestCLISpecialInputs(t *testing.T) {
	polluxsimBinary(t)
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	type tc struct {
		special string // path made a named pipe ("fifo") or a link to /dev/zero ("zero")
		kind    string
		args    []string
	}
	cases := map[string]tc{
		"workload fifo":         {"w.csv", "fifo", []string{"run", "--quiet", "--out", "out", "--workload", "w.csv"}},
		"cluster fifo":          {"c.txt", "fifo", []string{"run", "--quiet", "--out", "out", "--cluster", "c.txt"}},
		"validation fifo":       {"prof/traces/toy/validation-16.csv", "fifo", []string{"run", "--quiet", "--out", "out", "--profiles", "prof"}},
		"scalability zero":      {"prof/traces/toy/scalability.csv", "zero", []string{"run", "--quiet", "--out", "out", "--profiles", "prof"}},
		"placements zero":       {"prof/traces/toy/placements.csv", "zero", []string{"run", "--quiet", "--out", "out", "--profiles", "prof"}},
		"validation zero list":  {"prof/traces/toy/validation-16.csv", "zero", []string{"profiles", "list", "--profiles", "prof"}},
		"scalability zero list": {"prof/traces/toy/scalability.csv", "zero", []string{"profiles", "list", "--profiles", "prof"}},
		"compact profile zero":  {"p.json", "zero", []string{"run", "--quiet", "--out", "out", "--profiles", "p.json"}},
		"philly log fifo":       {"log.json", "fifo", []string{"workload", "philly", "--log", "log.json", "--out", "t.csv"}},
		"philly table fifo":     {"t.csv", "fifo", []string{"workload", "summarize-philly", "--philly", "t.csv", "--out", "s.json"}},
		"generate philly zero":  {"t.csv", "zero", []string{"workload", "generate", "--jobs", "2", "--philly", "t.csv", "--out", "w.csv"}},
		"generate summary fifo": {"s.json", "fifo", []string{"workload", "generate", "--jobs", "2", "--summary", "s.json", "--out", "w.csv"}},
		"cluster zero":          {"c.txt", "zero", []string{"run", "--quiet", "--out", "out", "--cluster", "c.txt"}},
		"workload zero":         {"w.csv", "zero", []string{"run", "--quiet", "--out", "out", "--workload", "w.csv"}},
		"spec zero":             {"e.json", "zero", []string{"sweep", "--quiet", "--out", "out", "--experiment", "e.json"}},
		"philly log zero":       {"log.json", "zero", []string{"workload", "philly", "--log", "log.json", "--out", "t.csv"}},
		"trace zero":            {"t.csv", "zero", []string{"trace", "summarize", "t.csv"}},
		"helios trace zero":     {"t.csv", "zero", []string{"trace", "summarize", "helios:t.csv"}},
		"itp trace zero":        {"t.csv", "zero", []string{"run", "--quiet", "--out", "out", "--workload", "itp:t.csv"}},
		"acme trace fifo":       {"t.csv", "fifo", []string{"workload", "generate", "--trace", "acme:t.csv", "--out", "w.csv"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for rel, content := range toyProfiles(nil) {
				p := filepath.Join(dir, rel)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(content), 0o644)
			}
			p := filepath.Join(dir, c.special)
			os.Remove(p)
			want := c.special + ": not a regular file (a named pipe)"
			if c.kind == "zero" {
				if err := os.Symlink("/dev/zero", p); err != nil {
					t.Skip(err)
				}
				want = c.special + ": not a regular file (a character device)"
			} else if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			oneLineError(t, runBinary(t, dir, nil, c.args...), want)
		})
	}
}

// TestCLIStoredSpecialFiles: the stored results plot, report, merge and
// regress read back are bounded and regular: a cell that is a link to
// /dev/zero (3.1-3.5 GB before) is not read (merge names it; plot and
// report count it missing), and an experiment.json that is a named pipe
// is refused instead of blocking.
func TestCLIStoredSpecialFiles(t *testing.T) {
	polluxsimBinary(t)
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	if r := runBinary(t, dir, nil, "sweep", "--experiment", tinySpecPath(t), "--shard", "0/20", "--out", "sw", "--quiet", "--no-timing"); r.code != 0 {
		t.Fatalf("sweep: %s", r.stderr)
	}
	cell := filepath.Join(dir, "sw", "cells", "pollux.w1.json")
	if err := os.Remove(cell); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", cell); err != nil {
		t.Skip(err)
	}
	oneLineError(t, runBinary(t, dir, nil, "plot", "--in", "sw", "--out", "plots"), "sw has no stored runs of experiment tiny")
	oneLineError(t, runBinary(t, dir, nil, "report", "--in", "sw", "--out", "r.html"), "sw has no stored runs of experiment tiny")
	oneLineError(t, runBinary(t, dir, nil, "merge", "--out", "m", "sw"), "sw/cells/pollux.w1.json: not a regular file (a character device)")
	exp := filepath.Join(dir, "sw", "experiment.json")
	os.Remove(exp)
	if err := syscall.Mkfifo(exp, 0o644); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"plot", "--in", "sw", "--out", "plots"}, {"merge", "--out", "m2", "sw"}} {
		oneLineError(t, runBinary(t, dir, nil, args...), "sw is not a sweep's output folder: not a regular file (a named pipe)")
	}
	// regress's baseline, on a whole sweep, and the tables plot fig6 reads
	// from a run folder.
	if r := runBinary(t, dir, nil, "sweep", "--experiment", tinySpecPath(t), "--out", "full", "--quiet", "--no-timing"); r.code != 0 {
		t.Fatalf("sweep: %s", r.stderr)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "base.json")); err != nil {
		t.Fatal(err)
	}
	oneLineError(t, runBinary(t, dir, nil, "regress", "--baseline", "base.json", "--in", "full"), "base.json: not a regular file (a character device)")
	if r := runBinary(t, dir, nil, "run", "--quiet", "--policy", "fifo", "--jobs", "4", "--out", "run"); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	for _, table := range []string{"rounds.parquet", "jobs.parquet"} {
		p := filepath.Join(dir, "run", table)
		keep := p + ".keep"
		if err := os.Rename(p, keep); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
		oneLineError(t, runBinary(t, dir, nil, "plot", "fig6", "--in", "run", "--out", "fig6"), "run/"+table+": not a regular file (a character device)")
		os.Remove(p)
		if err := os.Rename(keep, p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCLIFlagBounds: flags outside their bounds outside run were ignored
// or accepted: bench --quality -1 (as 0), profiles show --gpus-per-node
// 1025 (1024 elsewhere).
func TestCLIFlagBounds(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	oneLineError(t, runBinary(t, dir, nil, "bench", "scale", "--sizes", "1x1", "--quality", "-1", "--quiet"), "--quality must be 0 (off) or a positive number of rounds, got -1")
	oneLineError(t, runBinary(t, dir, nil, "profiles", "show", "cifar10", "--gpus-per-node", "1025"), "--gpus-per-node must be in [1, 1024], got 1025")
}

// TestCLIMessages: what the commands say matches what they did: a
// cluster of pools is named by its pools and GPUs ("1 jobs on 2 x 8 GPUs"
// for t4:1x4,a100:1x8), report refuses --out - (it wrote a file named
// "-"), and workload generate's help gives the whole trace's size that
// docs/scale.md measured (its help said 82,248 jobs over 109 days).
func TestCLIMessages(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	r := runBinary(t, dir, nil, "run", "--policy", "fifo", "--jobs", "1", "--cluster", "t4:1x4,a100:1x8", "--out", "o")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "policy fifo: 1 jobs on 12 GPUs (t4:1x4,a100:1x8)\n") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	oneLineError(t, runBinary(t, dir, nil, "report", "--in", "o", "--out", "-"), "--out -: report writes an HTML file, not to standard output")
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`report wrote a file named "-"`)
	}
	help := runBinary(t, dir, nil, "workload", "generate", "--help")
	scale, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "scale.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help.stdout, "74,428 jobs over 106 days") || !strings.Contains(string(scale), "74,428 jobs over 106.2 days") {
		t.Errorf("workload generate --help and docs/scale.md disagree on the whole trace:\n%s", help.stdout)
	}
}

// TestCLIStoredRunsChecked: a stored cell edited afterwards is "corrupt"
// for sweep, plot and merge (an edited summary.avg_jct_s was merged into
// the sweep's mean, and a damaged cell was called "made by another
// version"); an --out inside an input folder is refused (sweep --profiles
// pf/x --out pf/x hashed its own outputs and reran for ever; merge --out
// SHARD/cells wrote into a shard); re-sweeping with other profiles is
// refused unless --replace-other-profiles says so (it replaced every
// cell silently).
func TestCLIStoredRunsChecked(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	spec := tinySpecPath(t)
	sweepArgs := []string{"sweep", "--experiment", spec, "--shard", "0/20", "--quiet", "--no-timing"}
	if r := runBinary(t, dir, nil, append(sweepArgs, "--out", "sw")...); r.code != 0 {
		t.Fatalf("sweep: %s", r.stderr)
	}
	cell := filepath.Join(dir, "sw", "cells", "pollux.w1.json")
	data, err := os.ReadFile(cell)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), `"avg_jct_s": `)
	if i < 0 {
		t.Fatalf("no avg_jct_s in the cell:\n%.500s", data)
	}
	j := i + len(`"avg_jct_s": `)
	edited := string(data[:j]) + "1" + string(data[j:]) // 660.5 becomes 1660.5
	os.WriteFile(cell, []byte(edited), 0o644)
	for _, args := range [][]string{append(sweepArgs, "--out", "sw"), {"plot", "--in", "sw", "--out", "plots"}, {"merge", "--out", "m", "sw"}} {
		oneLineError(t, runBinary(t, dir, nil, args...), "pollux.w1.json: stored run corrupt: its content does not match its checksum")
	}
	os.WriteFile(cell, data, 0o644)
	// Outputs inside inputs.
	os.MkdirAll(filepath.Join(dir, "pf"), 0o755) // refused before it is read
	oneLineError(t, runBinary(t, dir, nil, append(sweepArgs, "--profiles", "pf", "--out", "pf/x")...), "--out pf/x is inside --profiles pf, an input")
	oneLineError(t, runBinary(t, dir, nil, "merge", "--out", "sw/cells", "sw"), "--out sw/cells is inside sw, one of the folders merged")
	// Other profiles.
	compact := filepath.Join(dir, "compact.json")
	if f, err := profiles.DefaultFile(); err != nil || f.WriteFile(compact) != nil {
		t.Fatalf("writing the embedded profiles: %v", err)
	}
	oneLineError(t, runBinary(t, dir, nil, append(sweepArgs, "--out", "sw", "--profiles", compact)...), "--out sw holds 1 runs made with other profiles")
	if got, _ := os.ReadFile(cell); string(got) != string(data) {
		t.Error("the refused sweep replaced the stored run")
	}
	if r := runBinary(t, dir, nil, append(sweepArgs, "--out", "sw", "--profiles", compact, "--replace-other-profiles")...); r.code != 0 {
		t.Errorf("--replace-other-profiles: %s", r.stderr)
	}
}

// TestCLIOutNotOntoInputs: the commands besides export that read inputs
// and write an --out refuse to write onto an input, in one line naming
// --out, and leave it byte for byte as it was: workload generate --trace
// acme:t.csv --out t.csv (replaced the trace), a run's summary.json a link
// to its --workload, a sweep's a link to its --experiment (each was
// replaced), a figure that links to a
// file of the sweep (plot) or run (plot fig6) it draws, report --out onto
// a cell of the sweep it reads, or a new file in its cells.
func TestCLIOutNotOntoInputs(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	trace := "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n" +
		"a1,u1,1,8,64,Pretrain,COMPLETED,2023-07-01 02:10:00,2023-07-01 02:10:05,2023-07-01 05:10:05,10800,5,86400\n" +
		"a3,u2,1,1,8,SFT,COMPLETED,2023-07-01 04:00:00,2023-07-01 04:00:01,2023-07-01 04:20:01,1200,1,1200\n"
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(trace), 0o644)
	spec, err := os.ReadFile(tinySpecPath(t))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "spec.json"), spec, 0o644)
	shardArgs := []string{"sweep", "--experiment", "spec.json", "--shard", "0/20", "--quiet", "--no-timing", "--out", "sw2"}
	for _, args := range [][]string{
		shardArgs,
		{"workload", "generate", "--jobs", "4", "--out", "w.csv"},
		{"run", "--quiet", "--policy", "fifo", "--jobs", "4", "--out", "run"},
		{"sweep", "--experiment", tinySpecPath(t), "--quiet", "--no-timing", "--out", "sw"}, // whole: plot warns of missing runs
	} {
		if r := runBinary(t, dir, nil, args...); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], r.code, r.stderr)
		}
	}
	os.Mkdir(filepath.Join(dir, "r"), 0o755)
	os.Mkdir(filepath.Join(dir, "plots"), 0o755)
	os.Remove(filepath.Join(dir, "sw2", "summary.json"))
	os.Mkdir(filepath.Join(dir, "fig6"), 0o755)
	for link, target := range map[string]string{
		"r/summary.json":             "../w.csv",
		"sw2/summary.json":           "../spec.json",
		"plots/jct.png":              "../sw/summary.json",
		"fig6/fig6-coadaptation.svg": "../run/jobs.parquet",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	before := treeBytes(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"workload", "generate", "--trace", "acme:t.csv", "--all", "--out", "t.csv"}, "--out t.csv is the same file as --trace t.csv, which it would overwrite"},
		{[]string{"run", "--quiet", "--policy", "fifo", "--workload", "w.csv", "--out", "r"}, "--out r: r/summary.json (a link to "},
		{shardArgs, "--out sw2: sw2/summary.json (a link to "},
		{[]string{"plot", "--in", "sw", "--out", "plots"}, "--out plots: plots/jct.png (a link to "},
		{[]string{"plot", "fig6", "--in", "run", "--out", "fig6"}, "--out fig6: fig6/fig6-coadaptation.svg (a link to "},
		{[]string{"report", "--in", "sw", "--out", "sw/cells/pollux.w1.json"}, "--out sw/cells/pollux.w1.json is a file of --in sw, an input folder"},
		{[]string{"report", "--in", "sw", "--out", "sw/cells/new.json"}, "--out sw/cells/new.json would add a file to --in sw"},
	} {
		oneLineError(t, runBinary(t, dir, nil, tc.args...), tc.want)
	}
	if after := treeBytes(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused command changed the files:\nbefore %v\nafter  %v", keysOf(before), keysOf(after))
	}
}

// TestCLIGarbageStoredRun: a sweep's cell that is not a stored run (not
// JSON, or JSON without a run) is "stored run corrupt" for every reader of
// stored runs, naming the file, exit 1; report, plot and export listed the
// run as missing, or did not look, and exited 0, and a sweep redid it.
func TestCLIGarbageStoredRun(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	sweepArgs := []string{"sweep", "--experiment", tinySpecPath(t), "--shard", "0/10", "--quiet", "--no-timing", "--out", "sw"}
	if r := runBinary(t, dir, nil, sweepArgs...); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	cell := filepath.Join(dir, "sw", "cells", "pollux.w1.json")
	for garbage, reason := range map[string]string{
		"garbage\n":               "not a stored run's JSON (invalid character 'g' looking for beginning of value)",
		`{"avg_jct_s": 1}` + "\n": "not a run result (no run, cell or hash)",
	} {
		os.WriteFile(cell, []byte(garbage), 0o644)
		for _, args := range [][]string{
			{"report", "--in", "sw", "--out", "r.html"},
			{"plot", "--in", "sw", "--out", "plots"},
			{"export", "--in", "sw", "--format", "csv", "--out", "csv"},
			{"merge", "--out", "m", "sw"},
			sweepArgs,
		} {
			oneLineError(t, runBinary(t, dir, nil, args...), "sw/cells/pollux.w1.json: stored run corrupt: "+reason)
		}
		if got, _ := os.ReadFile(cell); string(got) != garbage {
			t.Errorf("the garbage cell was replaced: %.100q", got)
		}
	}
	for _, out := range []string{"r.html", "plots", "csv", "m"} {
		if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
			t.Errorf("a refused command wrote %s", out)
		}
	}
}
