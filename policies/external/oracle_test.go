package external_test

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/external"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// syncBuffer is a bytes.Buffer safe for the relay's writes.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

// asker computes, in Go and from the same job views, what the probe asks
// over the wire, then lets the external policy decide.
type asker struct {
	policies.Policy
	want []string
}

func (a *asker) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	for i := range jobs {
		j := &jobs[i]
		o, g, b := j.Oracle, j.Request.GPUs, j.Request.Batch
		line := func(fact, t string, v float64, ok bool) {
			a.want = append(a.want, fmt.Sprintf("oracle %s %s %s %d %s", j.Name, fact, t, math.Float64bits(v), pyBool(ok)))
		}
		line("epochs", "-", float64(o.Epochs()), true)
		line("iterations", "-", o.Iterations(b, 1), true)
		line("iter_time", "-", o.IterTime([]int{g}, float64(b)/float64(g), 0), true)
		line("remaining_iterations", "-", o.RemainingIterations(b), true)
		for _, t := range []string{"t4", "nosuchgpu"} {
			v, ok := o.TypeIterTime(t, []int{g}, b)
			line("type_iter_time", t, v, ok)
		}
	}
	return a.Policy.Schedule(now, c, jobs)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// TestPythonOracleQueries: a Python policy asking every oracle fact of
// every job every round gets exactly the engine's numbers (the float64
// bits), including a type without tables (ok false).
func TestPythonOracleQueries(t *testing.T) {
	py := needPython(t)
	log := &syncBuffer{mu: make(chan struct{}, 1)}
	p, err := external.Start(external.Config{Argv: []string{py, filepath.Join("testdata", "oracle_probe.py")},
		Timeout: time.Minute, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Traits().NeedsOracle {
		t.Fatal("the probe's traits do not ask for an oracle")
	}
	a := &asker{Policy: p}
	cfg := sim.DefaultConfig()
	cfg.FullRounds, cfg.Rounds = true, sim.RoundsNone
	_, runErr := sim.Run(cfg, profiles.Default(), smallWorkload(), a)
	if err := p.(policies.Fallible).Err(); err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	p.(interface{ Close() error }).Close()
	var got []string
	for _, l := range strings.Split(log.b.String(), "\n") {
		if _, rest, ok := strings.Cut(l, "] "); ok && strings.HasPrefix(rest, "oracle ") {
			got = append(got, rest)
		}
	}
	if len(a.want) < 6*20 {
		t.Fatalf("only %d answers asked for", len(a.want))
	}
	if !slices.Equal(got, a.want) {
		n := min(len(got), len(a.want))
		for i := range n {
			if got[i] != a.want[i] {
				t.Fatalf("answer %d over the wire %q, in process %q (%d and %d answers)", i, got[i], a.want[i], len(got), len(a.want))
			}
		}
		t.Fatalf("%d answers over the wire, %d in process", len(got), len(a.want))
	}
}
