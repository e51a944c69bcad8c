package external_test

import (
	"bytes"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/external"
	"github.com/polluxsim/polluxsim/policies/protocol"
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
		line("completion_epoch", "-", float64(o.CompletionEpoch(b)), true)
		for _, place := range []string{fmt.Sprint(g), "1,1"} {
			p := []int{1, 1}
			if place != "1,1" {
				p = []int{g}
			}
			step, sync := o.StepTime(p, float64(b)/float64(g))
			line("step", place, step, true)
			line("sync", place, sync, true)
		}
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
// bits), including a type without tables (ok false), and the completion
// epoch it is told is the engine's own: the last epoch the job ran.
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
	res, runErr := sim.Run(cfg, profiles.Default(), smallWorkload(), a)
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
	if v := p.(*external.Policy).Version(); v != protocol.Version {
		t.Errorf("the Python client chose protocol version %d, want %d", v, protocol.Version)
	}
	completion := map[string]float64{}
	for _, l := range got {
		var job, fact, where, ok string
		var bits uint64
		if _, err := fmt.Sscan(l, new(string), &job, &fact, &where, &bits, &ok); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if fact == "completion_epoch" {
			completion[job] = math.Float64frombits(bits)
		}
	}
	for _, j := range res.Jobs {
		c, ok := completion[j.Name]
		if !ok || c != float64(j.Epochs-1) {
			t.Errorf("job %s: completion_epoch answered %v (asked: %v), the engine ended it after epoch %d", j.Name, c, ok, j.Epochs-1)
		}
	}
}

// TestPythonClientVersions: the Python client answers the newest version
// both sides speak, 1 to a version 1 engine (whose hello has no
// max_protocol), and in a version 1 conversation refuses the facts of
// version 2 itself, with one line, before sending a query the engine
// would not know.
func TestPythonClientVersions(t *testing.T) {
	py := needPython(t)
	const script = `
import io, sys
sys.path.insert(0, sys.argv[1])
import polluxsim_policy as pp
class P(pp.Policy):
    name = "v"
    needs_oracle = True
    def schedule(self, now, cluster, jobs):
        jobs[0].step_time([1], 32.0)
        return [None]
sys.exit(pp.serve(P()))
`
	job := `{"name":"a","app":"cifar10","submit":0,"age":0,"restarts":0,"attained":0,"alloc":null,` +
		`"request":{"gpus":1,"batch":128},"limits":{"init_batch":128,"max_batch":4096,"min_local":32,"max_local":256},` +
		`"max_seen_gpus":0,"grad":{"sqr":1,"var":1},"epoch":0}`
	round := `{"type":"round","round":1,"now":60,"cluster":{"nodes":1,"gpus_per_node":4},"jobs":[` + job + `]}`
	for _, tc := range []struct {
		hello string
		want  []string // the lines the client writes
	}{
		{`{"type":"hello","protocol":1,"seed":1,"restart_delay":30}`, []string{`"protocol":1`,
			`{"type":"error","message":"ProtocolError: oracle fact step_time needs protocol version 2; the simulator speaks 1"}`}},
		{`{"type":"hello","protocol":1,"max_protocol":2,"seed":1,"restart_delay":30}`, []string{`"protocol":2`,
			`{"type":"query","job":"a","fact":"step_time","placement":[1],"local":32.0}`,
			`"EOFError: the simulator closed the conversation during a query"`}}, // the test answers nothing
	} {
		cmd := exec.Command(py, "-c", script, filepath.Join(repoRoot(t), "python"))
		cmd.Stdin = strings.NewReader(tc.hello + "\n" + round + "\n")
		out, _ := cmd.Output()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(tc.want) {
			t.Fatalf("%s: the client wrote %q", tc.hello, out)
		}
		for i, w := range tc.want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("%s: line %d %s, want %s", tc.hello, i+1, lines[i], w)
			}
		}
	}
}
