package itp

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestArchiveIsTheRelease checks the embedded bytes are the published
// archive, unchanged.
func TestArchiveIsTheRelease(t *testing.T) {
	sum := sha256.Sum256(Archive())
	if got := hex.EncodeToString(sum[:]); got != SHA256 {
		t.Fatalf("embedded archive sha256 %s, want %s", got, SHA256)
	}
}

// TestOpenEveryCluster reads every cluster's header and counts its rows.
func TestOpenEveryCluster(t *testing.T) {
	total := 0
	for _, c := range ClusterNames() {
		r, err := Open(c)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(r)
		sc.Scan()
		if sc.Text() != "job_id,submission_time,duration,num_gpu" {
			t.Errorf("%s: header %q", c, sc.Text())
		}
		for sc.Scan() {
			total++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if total != 69351 {
		t.Errorf("%d jobs in all, want 69,351", total)
	}
}

func TestClusterNames(t *testing.T) {
	for in, want := range map[string]string{"cluster02": "cluster02", "02": "cluster02", "2": "cluster02", "10": "cluster10"} {
		if got, err := ClusterName(in); err != nil || got != want {
			t.Errorf("ClusterName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "cluster", "11", "0", "cluster00", "x"} {
		if _, err := ClusterName(bad); err == nil {
			t.Errorf("ClusterName(%q): no error", bad)
		}
	}
}
