package app

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/traces"
)

// runCLI runs polluxsim with args and returns what it printed.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd(testExt, intree.DefaultPolicy)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.Execute()
	return out.String(), err
}

func TestWorkloadPhillyCmd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "philly.csv")
	log := filepath.Join("..", "..", "..", "traces", "testdata", "cluster_job_log_small.json")
	printed, err := runCLI(t, "workload", "philly", "--log", log, "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	for _, want := range []string{"12 jobs read, 3 kept, 9 dropped", "no attempts:", "wrote " + out + ": 3 jobs"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output lacks %q:\n%s", want, printed)
		}
	}
	tab, _, err := traces.ReadPhilly(out)
	if err != nil || len(tab.Jobs) != 3 {
		t.Fatalf("table: %v", err)
	}
	if _, err := runCLI(t, "workload", "philly", "--log", log); err == nil {
		t.Error("no error without --out")
	}
}

func TestWorkloadGenerateCmd(t *testing.T) {
	ref := refdata.Dir(t)
	dir := t.TempDir()
	philly := filepath.Join(ref, "traces", "philly.csv")
	gen := func(name string, args ...string) []byte {
		t.Helper()
		out := filepath.Join(dir, name)
		printed, err := runCLI(t, append([]string{"workload", "generate", "--profiles", ref, "--out", out}, args...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, printed)
		}
		if !strings.Contains(printed, "mix: ") {
			t.Errorf("no mix printed:\n%s", printed)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a := gen("a.csv", "--seed", "1", "--philly", philly)
	b := gen("b.csv", "--seed", "1", "--philly", philly)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different files")
	}
	w, _, err := traces.Parse(bytes.NewReader(a), "a.csv", traces.ReadOptions{Apps: traces.GeneratedApps()})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 160 {
		t.Errorf("%d jobs, want 160", len(w.Jobs))
	}
	// The tuned pairs come from the profiles: they are the reference's.
	tuned := map[string]string{
		"bert": "6x384 8x384 12x384 16x384", "cifar10": "6x2048 8x2048 12x4096 16x4096",
		"deepspeech2": "6x320 8x320 12x640", "imagenet": "24x3200 32x6400 48x6400",
		"ncf": "1x32768", "yolov3": "4x64",
	}
	for _, j := range w.Jobs {
		pair := strconv.Itoa(j.Replicas) + "x" + strconv.Itoa(j.Batch)
		if !strings.Contains(" "+tuned[j.App]+" ", " "+pair+" ") {
			t.Errorf("job %s: %s is not a tuned pair of %s (%s)", j.Name, pair, j.App, tuned[j.App])
		}
	}
	half := gen("half.csv", "--load", "0.5", "--seed", "2", "--config", "realistic")
	if n := bytes.Count(half, []byte("\n")); n != 81 {
		t.Errorf("--load 0.5 gave %d lines, want 81", n)
	}
	// Standard output.
	printed, err := runCLI(t, "workload", "generate", "--profiles", ref, "--jobs", "3", "--out", "-")
	if err != nil || !strings.HasPrefix(printed, "name,time,application,num_replicas,batch_size\n") || strings.Count(printed, "\n") != 4 {
		t.Errorf("--out -: %v\n%s", err, printed)
	}
}

// TestWorkloadGenerateEmbedded needs no data at all: the embedded Philly
// summary and the embedded profiles.
func TestWorkloadGenerateEmbedded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.csv")
	printed, err := runCLI(t, "workload", "generate", "--seed", "4", "--jobs", "240", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	if !strings.Contains(printed, "embedded Philly summary: 240 jobs, seed 4, tuned configs") {
		t.Errorf("output:\n%s", printed)
	}
	w, _, err := traces.ReadFile(out, traces.ReadOptions{Apps: traces.GeneratedApps()})
	if err != nil {
		t.Fatal(err)
	}
	if err := traces.Validate(w, traces.GeneratedApps(), 64); err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 240 {
		t.Errorf("%d jobs, want 240", len(w.Jobs))
	}
}

func TestWorkloadSummarizeCmd(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "philly.csv")
	if err := os.WriteFile(table, []byte("timestamp,duration,num_gpus,gpu_time,cluster\n"+
		"2017-10-09 03:01:55,66.0,1,66.0,a\n2017-10-09 04:00:00,7200.0,4,28800.0,b\n"+
		"2017-10-09 23:00:00,7200.0,4,28800.0,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "summary.json")
	printed, err := runCLI(t, "workload", "summarize-philly", "--philly", table, "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	if !strings.Contains(printed, "2 of 3 jobs kept") {
		t.Errorf("output: %s", printed)
	}
	s, err := traces.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.SourceFile != "philly.csv" || len(s.SourceSHA256) != 64 || strings.Contains(string(mustRead(t, out)), dir) {
		t.Errorf("provenance: file %q, sha %q (and no machine path in the file)", s.SourceFile, s.SourceSHA256)
	}
}

// TestWorkloadGenerateDeadlines: --deadlines adds the deadline column and
// nothing else (the jobs are those of the same seed without it), and a run
// of the workload under EDF with admission prints its deadline figures.
func TestWorkloadGenerateDeadlines(t *testing.T) {
	dir := t.TempDir()
	plain, ddl := filepath.Join(dir, "plain.csv"), filepath.Join(dir, "ddl.csv")
	if printed, err := runCLI(t, "workload", "generate", "--seed", "2", "--jobs", "30", "--out", plain); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	if printed, err := runCLI(t, "workload", "generate", "--seed", "2", "--jobs", "30", "--deadlines", "elasticflow", "--best-effort", "0.2", "--out", ddl); err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	a, _, errA := traces.ReadFile(plain, traces.ReadOptions{})
	b, _, errB := traces.ReadFile(ddl, traces.ReadOptions{})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	withDeadline := 0
	for i := range b.Jobs {
		if b.Jobs[i].Deadline > 0 {
			withDeadline++
		}
		b.Jobs[i].Deadline = 0
		if b.Jobs[i] != a.Jobs[i] {
			t.Fatalf("job %d: %+v with deadlines, %+v without", i, b.Jobs[i], a.Jobs[i])
		}
	}
	if withDeadline < 15 || withDeadline == 30 {
		t.Errorf("%d of 30 jobs have a deadline at best-effort 0.2", withDeadline)
	}
	printed, err := runCLI(t, "run", "--no-timing", "--policy", "edf", "--policy-opt", "admission=true", "--workload", ddl, "--out", filepath.Join(dir, "run"))
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	if !strings.Contains(printed, "deadlines met ") || !strings.Contains(printed, fmt.Sprintf("of %d ", withDeadline)) {
		t.Errorf("run output lacks the deadline line:\n%s", printed)
	}
	printed, err = runCLI(t, "run", "--no-timing", "--policy", "edf", "--workload", plain, "--out", filepath.Join(dir, "plain"))
	if err != nil || strings.Contains(printed, "deadlines") {
		t.Errorf("a run without deadlines: %v\n%s", err, printed)
	}
}

func TestWorkloadGenerateFlagErrors(t *testing.T) {
	cases := map[string][]string{
		"--out FILE is required":          {"workload", "generate"},
		"not both":                        {"workload", "generate", "--jobs", "5", "--load", "2", "--out", "x.csv"},
		"--philly or --summary":           {"workload", "generate", "--philly", "a", "--summary", "b", "--out", "x.csv"},
		"no such file or folder":          {"workload", "generate", "--profiles", "/nonexistent", "--out", "x.csv"},
		"positive multiple":               {"workload", "generate", "--load", "-1", "--out", "x.csv"},
		"less than one job":               {"workload", "generate", "--load", "0.001", "--out", "x.csv"},
		"divide the 28800-s":              {"workload", "summarize-philly", "--bucket", "7", "--philly", "none.csv", "--out", "s.json"},
		"--philly FILE and --out":         {"workload", "summarize-philly"},
		"--tightness needs --deadlines":   {"workload", "generate", "--tightness", "2", "--out", "x.csv"},
		"--best-effort must be in [0, 1]": {"workload", "generate", "--deadlines", "elasticflow", "--best-effort", "2", "--out", "x.csv"},
		"must be elasticflow":             {"workload", "generate", "--deadlines", "soon", "--out", "x.csv"},
		"tightness needs --tightness":     {"workload", "generate", "--deadlines", "tightness", "--out", "x.csv"},
	}
	for want, args := range cases {
		if _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: error %v, want one containing %q", args, err, want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestWorkloadPhillyAttemptsMemory: the number of attempts of a job needs
// no bound of its own. A record is at most 4 MiB, which holds at most
// 1.4 million attempts (the shortest, "{}", is 3 bytes with its comma),
// and the decoder keeps two of them whatever their number. Measured as the
// peak resident memory of the binary: one job of 2 million attempts (a
// 6 MB record; 1.57 GB before the record bound) is refused in one line
// naming the file and line, and one of 1.3 million attempts, the most that
// fit, makes its row; both stay under 128 MB (a three-job log takes about
// 33 MB).
func TestWorkloadPhillyAttemptsMemory(t *testing.T) {
	bin := polluxsimBinary(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		attempts int
		want     string
	}{
		{2_000_000, "polluxsim: many.json:2: a job record (with the white space before it) longer than 4 MiB: not a cluster_job_log"},
		{1_300_000, "wrote many.csv: 1 jobs"},
	} {
		var b bytes.Buffer
		b.WriteString("[\n" + `{"jobid":"many","vc":"v","status":"Pass","submitted_time":"2017-10-09 07:00:00","attempts":[`)
		b.WriteString(`{"start_time":"2017-10-09 07:00:10","end_time":"2017-10-09 07:00:20","detail":[{"ip":"m1","gpus":["gpu0","gpu1"]}]}`)
		b.Write(bytes.Repeat([]byte(",{}"), tc.attempts-2))
		b.WriteString(`,{"start_time":"2017-10-09 09:00:00","end_time":"2017-10-09 09:00:10","detail":[]}]}]` + "\n")
		if err := os.WriteFile(filepath.Join(dir, "many.json"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "workload", "philly", "--log", "many.json", "--out", "many.csv")
		cmd.Dir = dir
		printed, _ := cmd.CombinedOutput()
		if !strings.Contains(string(printed), tc.want) {
			t.Errorf("%d attempts: output lacks %q:\n%s", tc.attempts, tc.want, printed)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Skip("no resource usage of a child here")
		}
		if peak := int64(ru.Maxrss) << 10; peak > 128<<20 { // Linux reports KiB
			t.Errorf("%d attempts: peak resident memory %d MB, want at most 128 MB", tc.attempts, peak>>20)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "many.csv")); err != nil || !strings.HasSuffix(string(got), "\n2017-10-09 07:00:00,7200.0,2,14400.0,v\n") {
		t.Errorf("the row of the job of 1.3 million attempts: %q (%v); want 2 GPUs (the first attempt's) over 7200 s", got, err)
	}
}
