package traces

import (
	"strings"
	"testing"
)

// A line longer than the limit, in a workload or a Philly table, is one
// error naming its line, read without holding the line.
func TestLongLine(t *testing.T) {
	long := strings.Repeat("a", maxLineBytes+1)
	workload := "name,time,application,num_replicas,batch_size\nj1,0,cifar10,1,128\n" + long + "\n"
	if _, _, err := Parse(strings.NewReader(workload), "w.csv", ReadOptions{}); err == nil ||
		!strings.HasPrefix(err.Error(), "w.csv:3: line longer than") || strings.Contains(err.Error(), "\n") {
		t.Errorf("workload: %v", err)
	}
	if _, _, err := ParsePhilly(strings.NewReader(long), "p.csv"); err == nil || !strings.HasPrefix(err.Error(), "p.csv:1: line longer than") {
		t.Errorf("Philly table: %v", err)
	}
	// A line at the limit is read.
	ok := "name,time,application,num_replicas,batch_size\n" + "j" + strings.Repeat("x", maxLineBytes-len("j,0,cifar10,1,128")) + ",0,cifar10,1,128\n"
	if w, _, err := Parse(strings.NewReader(ok), "w.csv", ReadOptions{}); err != nil || len(w.Jobs) != 1 {
		t.Errorf("a line at the limit: %v", err)
	}
}
