package app

import (
	"encoding/json"
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
	r = runBinary(t, dir, nil, "run", "--policy", "fifo", "--workload", "generate:trace=itp:cluster02,jobs=30,seed=1", "--quiet", "--out", "run")
	if r.code != 0 || !strings.Contains(r.stdout, "30 jobs") {
		t.Errorf("run --workload generate:trace=...: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}
