package runner_test

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
)

// TestFaultLogReadOnce: a run reads its fault log once, when it is
// prepared, and its checks, its simulation and its identity all use what
// was read. The log here changes after its first read (a file rewritten
// while the run starts): the run is the one of the log as first read,
// equal to a run of that log throughout, and not the rewritten log's.
func TestFaultLogReadOnce(t *testing.T) {
	// Node 0 down from t=300 for 20,000 s, or for 1 s: different runs.
	long, short := "time,node,duration\n300,0,20000\n", "time,node,duration\n300,0,1\n"
	run := func(files fs.FS) *runner.Result {
		t.Helper()
		spec := runspec.DefaultSpec("fifo")
		spec.Failures, spec.FaultFiles = "faults.csv", files
		res, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: "paper:1"},
			runner.Options{Ext: intree.Extensions(), NoTiming: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	file := func(body string) fstest.MapFS { return fstest.MapFS{"faults.csv": {Data: []byte(body)}} }
	wantLong, wantShort := run(file(long)), run(file(short))
	if wantLong.ID == wantShort.ID || wantLong.Sim.Summary.AvgJCT == wantShort.Sim.Summary.AvgJCT {
		t.Fatalf("the two logs give one run (%s, avg JCT %v): the test shows nothing", wantLong.ID, wantLong.Sim.Summary.AvgJCT)
	}
	changing := &changingFS{first: file(long), then: file(short)}
	got := run(changing)
	if changing.opens != 1 {
		t.Errorf("the fault log was opened %d times, want once", changing.opens)
	}
	if got.ID != wantLong.ID || got.Sim.Summary.AvgJCT != wantLong.Sim.Summary.AvgJCT {
		t.Errorf("run %s avg JCT %v, want the first read's %s %v (the rewritten log's: %s %v)",
			got.ID, got.Sim.Summary.AvgJCT, wantLong.ID, wantLong.Sim.Summary.AvgJCT, wantShort.ID, wantShort.Sim.Summary.AvgJCT)
	}
}

// changingFS serves first's files on the first Open and then's after it:
// a file rewritten after it was first read. Stat (the size check before
// a read) is not a read.
type changingFS struct {
	first, then fs.FS
	opens       int
}

func (c *changingFS) Open(name string) (fs.File, error) {
	c.opens++
	if c.opens == 1 {
		return c.first.Open(name)
	}
	return c.then.Open(name)
}

func (c *changingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.first, name) }
