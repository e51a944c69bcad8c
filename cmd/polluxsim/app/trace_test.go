package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTraceCommands: trace summarize prints FORMAT.md's figures for the
// embedded ITP cluster02 (5,778 jobs, at most 64 GPUs, 123,748
// GPU-hours), the same in JSON; workload generate samples a trace by name,
// and a trace name is a --workload.
func TestTraceCommands(t *testing.T) {
	dir := t.TempDir()
	r := runBinary(t, dir, nil, "trace", "summarize", "itp:cluster02")
	if r.code != 0 {
		t.Fatalf("trace summarize: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"5,778", "max 64", "123,748"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runBinary(t, dir, nil, "trace", "summarize", "--json", "itp:cluster02")
	var js map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &js) != nil || len(js) == 0 {
		t.Errorf("trace summarize --json: exit %d, %q", r.code, r.stdout)
	}
	r = runBinary(t, dir, nil, "workload", "generate", "--trace", "itp:cluster02", "--jobs", "40", "--seed", "2", "--out", "w.csv")
	if r.code != 0 || !strings.Contains(r.stdout, "40 jobs sampled") {
		t.Errorf("workload generate --trace: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	oneLineError(t, runBinary(t, dir, nil, "workload", "generate", "--window", "daily", "--out", "x.csv"), "--window needs --trace")
	oneLineError(t, runBinary(t, dir, nil, "trace", "summarize", "itp:cluster99"), "cluster99")
	oneLineError(t, runBinary(t, dir, nil, "trace", "summarize", "itp:nonexist.csv"),
		`itp:nonexist.csv: no ITP cluster "nonexist.csv" (the embedded ones are cluster01 … cluster10) and no such file`)
	r = runBinary(t, dir, nil, "run", "--policy", "fifo", "--workload", "generate:trace=itp:cluster02,jobs=30,seed=1", "--quiet", "--out", "run")
	if r.code != 0 || !strings.Contains(r.stdout, "30 jobs") {
		t.Errorf("run --workload generate:trace=...: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}

// TestOversizeTraceJobs: a trace job larger than the profiles' largest
// measured placement (64 GPUs for the embedded tables: 16 nodes x 4) is
// capped and counted by default, left out with --oversize skip, and with
// refuse a realistic workload is one error line; the same through the
// generate: and trace workload sources of run. The trace is an Acme file
// (the published header) with a 1,024-GPU job.
func TestOversizeTraceJobs(t *testing.T) {
	dir := t.TempDir()
	acme := filepath.Join(dir, "trace_seren.csv")
	if err := os.WriteFile(acme, []byte(`job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time
a1,u1,1,8,64,Pretrain,COMPLETED,2023-07-01 02:10:00,2023-07-01 02:10:05,2023-07-01 05:10:05,10800,5,86400
a2,u1,128,1024,8192,Pretrain,COMPLETED,2023-07-01 03:00:00,2023-07-01 03:00:10,2023-07-01 03:30:10,1800,10,1843200
a3,u2,1,1,8,SFT,COMPLETED,2023-07-01 04:00:00,2023-07-01 04:00:01,2023-07-01 04:20:01,1200,1,1200
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := "acme:" + acme
	const counted = "1 jobs ask for more than 64 GPUs, the largest placement the profiles measured"
	gen := func(extra ...string) cliResult {
		return runBinary(t, dir, nil, append([]string{"workload", "generate", "--trace", ref, "--all", "--config", "realistic", "--out", "-"}, extra...)...)
	}
	replicas := func(csv string) []int {
		var out []int
		for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
			f := strings.Split(line, ",")
			n, err := strconv.Atoi(f[3])
			if err != nil {
				t.Fatalf("workload line %q: %v", line, err)
			}
			out = append(out, n)
		}
		return out
	}
	r := gen()
	if r.code != 0 || !strings.Contains(r.stderr, counted) || !strings.Contains(r.stderr, "1 of the workload's jobs capped to 64 GPUs") {
		t.Fatalf("cap: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := replicas(r.stdout); !slices.Equal(got, []int{8, 64, 1}) {
		t.Errorf("cap: GPUs %v, want [8 64 1] (the 1,024-GPU job capped to 64)\n%s", got, r.stdout)
	}
	r = gen("--oversize", "skip")
	if r.code != 0 || !strings.Contains(r.stderr, counted) || !strings.Contains(r.stderr, "left out") {
		t.Fatalf("skip: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := replicas(r.stdout); !slices.Equal(got, []int{8, 1}) {
		t.Errorf("skip: GPUs %v, want [8 1]", got)
	}
	oneLineError(t, gen("--oversize", "refuse"), "1 of the 3 jobs ask for more than 64 GPUs")
	oneLineError(t, gen("--oversize", "all"), `--oversize must be cap, skip or refuse, got "all"`)
	oneLineError(t, runBinary(t, dir, nil, "workload", "generate", "--oversize", "cap", "--out", "-"), "--oversize needs --trace")

	// The workload sources: generate: caps (the run fits 16 x 4) or
	// refuses; the trace replayed whole is TunedJobs, counted only.
	r = runBinary(t, dir, nil, "run", "--policy", "fifo", "--workload", "generate:trace="+ref+",all=true,config=realistic", "--quiet", "--out", "run")
	if r.code != 0 || !strings.Contains(r.stderr, counted) {
		t.Errorf("run generate:trace=...: exit %d, stderr %q", r.code, r.stderr)
	}
	oneLineError(t, runBinary(t, dir, nil, "run", "--policy", "fifo", "--workload", "generate:trace="+ref+",all=true,config=realistic,oversize=refuse", "--out", "run2"),
		"ask for more than 64 GPUs")
	r = runBinary(t, dir, nil, "run", "--policy", "fifo", "--workload", ref, "--quiet", "--out", "run3")
	if r.code != 0 || !strings.Contains(r.stderr, counted) {
		t.Errorf("run --workload %s: exit %d, stderr %q", ref, r.code, r.stderr)
	}
}
