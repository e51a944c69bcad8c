package sweep

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"0/3": {0, 3}, "2/3": {2, 3}, " 0/1 ": {0, 1}} {
		if got, err := ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	for in, want := range map[string]string{
		"3/3": "index must be in 0..2", "1/0": "at least 1", "x": "want i/n", "-1/2": "index must be in 0..1",
		"1/": "want i/n", "a/b": "want i/n", "": "want i/n",
	} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShard(%q): %v, want %q", in, err, want)
		}
	}
	// Shards partition the runs.
	for n := 1; n <= 4; n++ {
		for i := 0; i < 20; i++ {
			owners := 0
			for s := 0; s < n; s++ {
				if (Shard{s, n}).owns(i) {
					owners++
				}
			}
			if owners != 1 {
				t.Errorf("run %d has %d owners among %d shards", i, owners, n)
			}
		}
	}
}

func TestWorkloadFolder(t *testing.T) {
	for _, tc := range []struct {
		config string
		load   float64
		want   string
	}{
		{"tuned", 1, "workloads"}, {"realistic", 1, "workloads-realistic"}, {"tuned", 0.5, "workloads-0.5"},
		{"tuned", 2, "workloads-2.0"}, {"realistic", 1.5, "workloads-realistic-1.5"}, {"tuned", 0.25, "workloads-0.25"},
	} {
		if got := WorkloadFolder(tc.config, tc.load); got != tc.want {
			t.Errorf("WorkloadFolder(%s, %v) = %s, want %s", tc.config, tc.load, got, tc.want)
		}
	}
}
