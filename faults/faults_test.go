package faults

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/traces"
)

// types is n nodes of the default type.
func types(n int) []string {
	t := make([]string, n)
	for i := range t {
		t[i] = "t4"
	}
	return t
}

// count runs the stream of m on n nodes to horizon seconds and counts
// node failures (nodes going down) and the node-seconds down.
func count(t *testing.T, m *Model, n int, seed uint64, horizon float64) (fails int, downSec float64) {
	t.Helper()
	s, err := NewStream(m, types(n), seed)
	if err != nil {
		t.Fatal(err)
	}
	down, last := 0, 0.0
	for s.Next() < horizon {
		tr := s.Pop()
		if tr.Time < last {
			t.Fatalf("transition at %v after %v", tr.Time, last)
		}
		downSec += float64(down) * (tr.Time - last)
		last = tr.Time
		fails += len(tr.Down)
		down += len(tr.Down) - len(tr.Up)
		if down < 0 || down > n {
			t.Fatalf("%d nodes down of %d", down, n)
		}
	}
	return fails, downSec + float64(down)*(horizon-last)
}

// The llama3 preset on Llama 3's 2,048 nodes for its 54 days: the number
// of node failures, which a job spanning every node would each take, is
// in the Poisson band around the 419 it was derived from (the mean over
// seeds within 3 standard errors; each seed within 4 standard deviations).
func TestLlama3Interruptions(t *testing.T) {
	m, err := Parse("llama3")
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 20
	sum := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		n, _ := count(t, m, 2048, seed, 54*Day)
		if math.Abs(float64(n)-419) > 4*math.Sqrt(419) {
			t.Errorf("seed %d: %d failures, outside 419 ± 4·sqrt(419)", seed, n)
		}
		sum += n
	}
	// A node down for its repair cannot fail again: the expected count is
	// 419 less the share of node-time spent down (λ·repair ≈ 6e-4).
	mean := float64(sum) / seeds
	want := 419 / (1 + m.Rate*m.Repair.Mean/Day)
	if se := math.Sqrt(want / seeds); math.Abs(mean-want) > 3*se {
		t.Errorf("mean %v failures over %d seeds, want %v ± %v", mean, seeds, want, 3*se)
	}
}

// Availability of an alternating process: the share of node-time down is
// repair/(1/λ + repair), for fixed, exponential and lognormal repairs.
func TestAvailability(t *testing.T) {
	for _, rep := range []string{"fixed:86400", "exp:86400", "lognormal:86400:1"} {
		m, err := Parse("rate=0.5,repair=" + rep + ",ckpt=3600")
		if err != nil {
			t.Fatal(err)
		}
		const n, horizon = 200, 400 * Day
		fails, down := count(t, m, n, 7, horizon)
		got := down / (n * horizon)
		want := 1.0 / (1/0.5 + 1) // MTTF 2 days, repair 1 day
		if math.Abs(got-want) > 0.02 {
			t.Errorf("%s: down share %v, want %v (%d failures)", rep, got, want, fails)
		}
	}
}

// A failure domain takes its nodes down together, and the same seed gives
// the same faults.
func TestDomainsAndSeeds(t *testing.T) {
	m, err := Parse("rate=0,domain=4:1,repair=fixed:60,ckpt=600")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStream(m, types(10), 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		tr := s.Pop()
		if len(tr.Down) > 0 && len(tr.Down) != 4 && len(tr.Down) != 2 {
			t.Fatalf("domain fault took %v down", tr.Down)
		}
		if len(tr.Down) > 0 && tr.Down[0]%4 != 0 {
			t.Fatalf("domain fault took %v down", tr.Down)
		}
	}
	a, _ := count(t, m, 10, 3, 30*Day)
	b, _ := count(t, m, 10, 3, 30*Day)
	c, _ := count(t, m, 10, 4, 30*Day)
	if a != b || a == c {
		t.Errorf("failures %d, %d (same seed), %d (other seed)", a, b, c)
	}
}

// A replayed log: each row takes its node or domain down for its
// duration; a bad row is one error naming the file and line.
func TestReplay(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("time,node,domain,duration\n100,1,,50\n120,,1,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Parse(good + ",domain=2:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStream(m, types(4), 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for !math.IsInf(s.Next(), 1) {
		tr := s.Pop()
		got = append(got, fmt.Sprintf("%g down %v up %v", tr.Time, tr.Down, tr.Up))
	}
	want := []string{"100 down [1] up []", "120 down [2 3] up []", "130 down [] up [2 3]", "150 down [] up [1]"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("transitions %q, want %q", got, want)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("time,node,duration\n1,0,5\n2,x,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Parse(bad)
	var ie *traces.InputError
	if !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(err.Error(), "bad.csv:3:") {
		t.Errorf("bad row: %v, want an error at bad.csv:3", err)
	}
	if _, err := NewStream(m, types(2), 1); err == nil || !strings.Contains(err.Error(), "node 1") && !strings.Contains(err.Error(), "domain 1") {
		t.Errorf("events outside a 2-node cluster: %v", err)
	}
}

// A fault log's header is read by the workloads' header reader
// (traces.ReadHeader): a log of a header only, a row of more or fewer
// fields than the header, a column twice, a column of another name or
// case are refused in one line naming the file and line, whether the log
// is given alone (--failures FILE) or as file=PATH; a byte-order mark is
// skipped.
func TestReplayMalformed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"header-only.csv", "time,node,domain,duration\n", "header-only.csv:2: no fault events: the file has a header only"},
		{"empty.csv", "", "empty.csv:1: empty file: expected the header time,duration"},
		{"extra-field.csv", "time,node,domain,duration\n100,1,,50\n120,1,,50,7\n", "extra-field.csv:3: has 5 fields, the header has 4"},
		{"short-row.csv", "time,node,domain,duration\n100,1,,50\n120,1\n", "short-row.csv:3: has 2 fields, the header has 4"},
		{"twice.csv", "time,node,duration,node\n100,1,50,2\n", `twice.csv:1: column "node": appears twice in the header (fields 2 and 4)`},
		{"other.csv", "time,node,duration,cause\n100,1,50,power\n", `other.csv:1: column "cause": not a column of a fault log (time, node, domain, duration)`},
		{"case.csv", "Time,Node,Duration\n100,1,50\n", `case.csv:1: missing columns "time", "duration"`},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{path, "file=" + path + ",ckpt=600"} {
			_, err := Parse(s)
			if err == nil || !strings.Contains(err.Error(), path[:len(path)-len(c.name)]+c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line with %q", s, err, filepath.Join(dir, c.want))
			}
		}
	}
	bom := filepath.Join(dir, "bom.csv")
	if err := os.WriteFile(bom, []byte("\ufefftime,node,duration\n100,1,50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := Parse(bom); err != nil || len(m.Events) != 1 || m.Events[0].Node != 1 {
		t.Errorf("a log with a byte-order mark: %+v, %v", m, err)
	}
}

// Parse refuses what it cannot use, naming the setting.
func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"nosuch":                        "neither a preset",
		"rate=-1":                       "rate=-1",
		"rate=1,repair=weibull:3":       "repair=weibull:3",
		"rate=1,ckpt=young,ckpt_cost=0": "positive checkpoint cost",
		"rate=0,domain=0:1":             "domain=0:1",
		"rate=1,rate=2":                 "given twice",
		"rate=1,color=red":              "unknown setting",
		"rate=5000":                     "must be in [0, 1440]",
		"job_fail=x":                    "job_fail=x",
		"rate=1,replan=soon":            "replan=soon",
		"rate=1,spares=-1":              "spares=-1",
		"rate=1,spares=x":               "spares=x",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", in, err, want)
		}
	}
	if m, err := Parse("none"); m != nil || err != nil {
		t.Errorf("none: %v, %v", m, err)
	}
	m, err := Parse("rsc1,ckpt=daly,ckpt_cost=30,job_fail=0.5,domain=8:0.01,replan=now,spares=2")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(m.String())
	if err != nil || again.String() != m.String() {
		t.Errorf("%q does not read back: %v, %v", m, again, err)
	}
	if !m.Replan || m.Spares != 2 {
		t.Errorf("%q: replan %v, spares %d; want true, 2", m, m.Replan, m.Spares)
	}
	// The settings a model without them had: its string is unchanged.
	if def, _ := Parse("rsc1"); strings.Contains(def.String(), "replan") || strings.Contains(def.String(), "spares") {
		t.Errorf("rsc1 reads %q", def)
	}
}

// A job whose mean time to failure is below its restart cost is refused
// with the numbers.
func TestCheckProgress(t *testing.T) {
	m, err := Parse("rate=1000,ckpt=600")
	if err != nil {
		t.Fatal(err)
	}
	err = m.CheckProgress("j", []int{0, 1}, types(2), 60)
	if err == nil || !strings.Contains(err.Error(), "43.2 s") || !strings.Contains(err.Error(), "60 s restart") {
		t.Errorf("got %v, want a refusal with MTTF 43.2 s and the 60 s restart", err)
	}
	if err := m.CheckProgress("j", []int{0}, types(1), 60); err != nil {
		t.Errorf("one node, MTTF 86.4 s > 60 s: %v", err)
	}
}

// Generate draws the faults a run of the model draws: replaying them
// gives the same transitions as the model itself, up to the horizon.
func TestGenerate(t *testing.T) {
	m, err := Parse("rate=2,domain=4:1,repair=lognormal:3600:1")
	if err != nil {
		t.Fatal(err)
	}
	const until = 5 * Day
	ev, err := Generate(m, types(12), until, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) < 50 {
		t.Fatalf("%d faults, want about 150", len(ev))
	}
	replay := &Model{DomainSize: 4, Events: ev, Checkpoint: Checkpoint{Mode: "fixed", Interval: 1800}}
	a, err := NewStream(m, types(12), 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewStream(replay, types(12), 7)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for a.Next() <= until {
		ta, tb := a.Pop(), b.Pop()
		if fmt.Sprint(ta) != fmt.Sprint(tb) {
			t.Fatalf("transition %d: model %v, replay %v", n, ta, tb)
		}
		n++
	}
	var buf strings.Builder
	if err := WriteLog(&buf, ev[:2]); err != nil {
		t.Fatal(err)
	}
	back, err := Read("log", strings.NewReader(buf.String()))
	if err != nil || len(back) != 2 || math.Abs(back[0].Time-ev[0].Time) > 0.5 || math.Abs(back[1].Duration-ev[1].Duration) > 0.5 {
		t.Errorf("WriteLog %q reads back as %v, %v", buf.String(), back, err)
	}
}
