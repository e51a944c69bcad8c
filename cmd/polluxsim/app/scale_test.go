package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/traces"
)

// The job log, reduced, then replayed whole with generate --all; --all's
// flag errors name the flags.
func TestWorkloadGenerateAllCmd(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "philly.csv")
	log := filepath.Join("..", "..", "..", "traces", "testdata", "cluster_job_log_small.json")
	if out, err := runCLI(t, "workload", "philly", "--log", log, "--out", table); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wl := filepath.Join(dir, "all.csv")
	printed, err := runCLI(t, "workload", "generate", "--all", "--philly", table, "--out", wl)
	if err != nil || !strings.Contains(printed, "2 jobs over 2.2 days") {
		t.Fatalf("%v\n%s", err, printed)
	}
	w, _, err := traces.ReadFile(wl, traces.ReadOptions{})
	if err != nil || len(w.Jobs) != 2 {
		t.Fatalf("%v %v", w, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--all", "--out", wl}, "--all needs --philly"},
		{[]string{"--all", "--philly", table, "--jobs", "5", "--out", wl}, "cannot be used with --jobs"},
	} {
		_, err := runCLI(t, append([]string{"workload", "generate"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

// --rounds changes keeps fewer rows; none writes no rounds.parquet; a bad
// mode names the flag; a hopelessly overloaded workload is refused before
// anything is written.
func TestRunRoundsFlag(t *testing.T) {
	dir := t.TempDir()
	base := []string{"run", "--quiet", "--policy", "fifo", "--jobs", "20", "--no-timing"}
	size := map[string]int64{}
	for _, mode := range []string{"all", "changes", "none"} {
		out := filepath.Join(dir, mode)
		printed, err := runCLI(t, append(base, "--rounds", mode, "--out", out)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, printed)
		}
		st, err := os.Stat(filepath.Join(out, "rounds.parquet"))
		if mode == "none" {
			if err == nil || strings.Contains(printed, "rounds.parquet") {
				t.Errorf("--rounds none wrote rounds.parquet")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		size[mode] = st.Size()
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("%s: left %s behind", mode, e.Name())
			}
		}
	}
	if !(size["changes"] < size["all"]) {
		t.Errorf("rounds.parquet sizes %v", size)
	}
	if _, err := runCLI(t, append(base, "--rounds", "some", "--out", filepath.Join(dir, "x"))...); err == nil || !strings.Contains(err.Error(), "--rounds") {
		t.Errorf("bad --rounds: %v", err)
	}
	// 5000 ImageNet jobs at once on 4 GPUs.
	csv := "name,time,application,num_replicas,batch_size\n"
	for i := 0; i < 5000; i++ {
		csv += "imagenet-" + strconv.Itoa(i) + ",0,imagenet,4,800\n"
	}
	wl := filepath.Join(dir, "over.csv")
	if err := os.WriteFile(wl, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "over")
	_, err := runCLI(t, "run", "--quiet", "--policy", "fifo", "--workload", wl, "--nodes", "1", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "limit") || strings.Contains(err.Error(), "\n") {
		t.Errorf("overloaded workload: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("refused run left %s: %v", out, err)
	}
}
