package external_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/proctest"
	"github.com/polluxsim/polluxsim/traces"
)

// smallWorkload is six jobs on the default 16 x 4 cluster, arriving over
// five rounds.
func smallWorkload() *traces.Workload {
	w := &traces.Workload{Source: "faults"}
	for i := range 6 {
		w.Jobs = append(w.Jobs, traces.Job{Name: "cifar10-" + strconv.Itoa(i), Time: float64(60 * i), App: "cifar10", Replicas: 1 + i%4, Batch: 128})
	}
	return w
}

// runFake runs smallWorkload under a fake policy in mode with extra
// options into a fresh folder under the test's; it returns the error, the
// folder and the fake's process ids.
func runFake(t *testing.T, ctx context.Context, mode, rounds string, opts ...string) (error, string, []int) {
	t.Helper()
	return runFakePids(t, ctx, filepath.Join(t.TempDir(), "pids"), mode, rounds, opts...)
}

// runFakePids is runFake with the file the fake writes its process ids to.
func runFakePids(t *testing.T, ctx context.Context, pids, mode, rounds string, opts ...string) (error, string, []int) {
	t.Helper()
	spec, err := runspec.DefaultSpec("external").WithOptions(intree.Extensions(), append([]string{"command=" + fakeCommand(t, mode, pids)}, opts...))
	if err != nil {
		t.Fatal(err)
	}
	spec.Rounds = rounds
	out := filepath.Join(t.TempDir(), "run")
	_, err = runner.Run(ctx, spec, runner.Inputs{Workload: smallWorkload()}, runner.Options{Ext: intree.Extensions(), Out: out, NoTiming: true})
	return err, out, readPids(t, pids)
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p)
	}
	return pids
}

// checkGone fails unless every process of pids has ended within 5 s.
func checkGone(t *testing.T, pids []int) {
	t.Helper()
	proctest.WaitGone(t, pids, 5*time.Second)
}

// TestFaults: each way a policy process can fail ends the run with one
// line naming what went wrong (and the round), leaves no process running
// and writes no output folder.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		mode, rounds string
		opts         []string
		want         []string // in the error, in order
	}{
		{"exit", "all", nil, []string{"policy external: command ", "round 3 (t=180)", "closed its output without answering", "exit status 3",
			"its standard error ended: loading the model | Traceback: KeyError: 'gpus'"}},
		{"hang", "all", []string{"round_timeout=2"}, []string{"round 2 (t=120)", "no answer within 2s (round_timeout)"}},
		{"hang-child", "all", []string{"round_timeout=2"}, []string{"round 2 (t=120)", "no answer within 2s"}},
		{"malformed", "all", nil, []string{"round 1 (t=60)", `wrote "{\"type\": \"decision\", \"alloc\": [" to its standard output, which is not a protocol message`, "log to standard error"}},
		{"oversized", "all", []string{"max_message_mib=1"}, []string{"round 1 (t=60)", "sent a message longer than max_message_mib (1 MiB)"}},
		{"stray", "all", nil, []string{"round 1 (t=60)", `wrote "allocating GPUs for round 1..." to its standard output`}},
		{"duplicate", "all", nil, []string{"round 1 (t=60)", `sent an invalid decision message: duplicate field "alloc"`}},
		{"version", "all", nil, []string{"the handshake", "speaks protocol version 99, this simulator speaks 1 to 4"}},
		{"v3-sizes", "all", nil, []string{"the handshake", "declared the trait sizes_llm_jobs, which protocol version 4 added, in a conversation of version 3"}},
		{"v1-admission", "all", nil, []string{"the handshake", "declared admission, which protocol version 3 added, in a conversation of version 1"}},
		{"admit-other", "all", nil, []string{"admission of job cifar10-0 (t=0)", `answered the admission of job "cifar10-0-other"`}},
		{"v1-fact", "all", nil, []string{"round 1 (t=60)", `queried the fact "step_time" of protocol version 2 in a conversation of version 1`}},
		{"greedy", "all", nil, []string{"policy external put 8 GPUs on node 0, which has 4, when it gave job cifar10-0 8 there (t=60)"}},
		{"unknown", "changes", nil, []string{"round 1 (t=60)", "changed the allocation of job key 999999, which it was not given"}},
		{"error", "all", nil, []string{"round 2 (t=120)", "reported an error: ZeroDivisionError: division by zero"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			err, out, pids := runFake(t, context.Background(), tc.mode, tc.rounds, tc.opts...)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			t.Log(msg)
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("error %q\nlacks (after what came before) %q", msg, w)
					break
				}
				rest = rest[i+len(w):]
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("output folder %s: %v, want none", out, err)
			}
			want := 1
			if tc.mode == "hang-child" {
				want = 2
			}
			if len(pids) != want {
				t.Fatalf("%d process ids recorded, want %d", len(pids), want)
			}
			checkGone(t, pids)
		})
	}
}

// TestNoStart: a command that does not start is one line naming it.
func TestNoStart(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		{"/nonexistent/policy --x", `policy external: command "/nonexistent/policy --x" does not start: fork/exec /nonexistent/policy: no such file or directory`},
		{"", "the command is empty"},
		{"python3 'x.py", `command "python3 'x.py": an unterminated single quote`},
	} {
		spec, err := runspec.DefaultSpec("external").WithOptions(intree.Extensions(), []string{"command=" + tc.command})
		if err == nil {
			_, err = runner.Run(context.Background(), spec, runner.Inputs{Workload: smallWorkload()}, runner.Options{Ext: intree.Extensions()})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("command %q: error %v, want one line with %q", tc.command, err, tc.want)
		}
	}
}

// TestInterruptEndsTheChild: a run interrupted while its policy process
// (and a process of its own) is in a round ends at once with the
// context's error, leaving no process and no output folder.
func TestInterruptEndsTheChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(t.TempDir(), "pids")
	go func() {
		// Once the fake has started its own process (before round 1; it
		// hangs in round 2, which a loaded machine may take a while to
		// reach: the cancel may come in either round).
		for {
			b, _ := os.ReadFile(pidFile)
			if bytes.Count(b, []byte("\n")) >= 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	err, out, pids := runFakePids(t, ctx, pidFile, "hang-child", "all")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the context's", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v to stop (round_timeout is 60 s)", d)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output folder %s: %v, want none", out, err)
	}
	if len(pids) != 2 {
		t.Fatalf("%d process ids, want 2", len(pids))
	}
	checkGone(t, pids)
}

// TestGoodChildEnds: a run that ends normally ends its policy process.
func TestGoodChildEnds(t *testing.T) {
	err, out, pids := runFake(t, context.Background(), "good", "all")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "jobs.parquet")); err != nil {
		t.Error(err)
	}
	if len(pids) != 1 {
		t.Fatalf("%d process ids, want 1", len(pids))
	}
	checkGone(t, pids)
}

// TestPythonException: an exception in a Python policy's code ends the
// run with one line quoting it (the client sends it as an error message),
// after its print()s went to standard error, not to the protocol.
func TestPythonException(t *testing.T) {
	py := needPython(t)
	spec, err := runspec.DefaultSpec("external").WithOptions(intree.Extensions(), []string{"command=" + py + " " + filepath.Join("testdata", "raises.py")})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	_, err = runner.Run(context.Background(), spec, runner.Inputs{Workload: smallWorkload()}, runner.Options{Ext: intree.Extensions(), Out: out})
	want := "round 2 (t=120): reported an error: ZeroDivisionError: division by zero"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line with %q", err, want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output folder %s: %v, want none", out, err)
	}
}

// TestPythonReturnsNoDecision: a Python policy whose schedule returns
// something other than a decision (an int, a list of ints, a float GPU
// count, not a (key, allocation) pair) ends the run with one line naming
// what it returned and what was expected. Before, the int reached len()
// inside the client: "TypeError: object of type 'int' has no len()".
func TestPythonReturnsNoDecision(t *testing.T) {
	py := needPython(t)
	const alloc = "None or a list of GPUs per node (cluster.nodes integers)"
	for _, c := range []struct{ mode, rounds, want string }{
		{"int", "", "round 1 (t=60): reported an error: PolicyError: schedule returned int 3, expected a list with one allocation per job in order (2 jobs), each " + alloc},
		{"ints", "", "reported an error: PolicyError: schedule's allocation 0 (job cifar10-0) is int 0, expected " + alloc},
		{"float", "", "reported an error: PolicyError: schedule's allocation 0 (job cifar10-0) is list [1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], with float 1.0 in it, expected " + alloc},
		{"incremental-int", "none", "reported an error: PolicyError: schedule_incremental returned int 5, expected a list of (key, allocation) pairs, allocation " + alloc},
		{"pair", "none", "reported an error: PolicyError: schedule_incremental returned a change tuple (0, None, 'x'), expected a (key, allocation) pair"},
	} {
		spec, err := runspec.DefaultSpec("external").WithOptions(intree.Extensions(), []string{"command=" + py + " " + filepath.Join("testdata", "returns.py") + " " + c.mode})
		if err != nil {
			t.Fatal(err)
		}
		spec.Rounds = c.rounds
		_, err = runner.Run(context.Background(), spec, runner.Inputs{Workload: smallWorkload()}, runner.Options{Ext: intree.Extensions(), Out: filepath.Join(t.TempDir(), "run")})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "TypeError") {
			t.Errorf("%s: %v\nwant one line with %q", c.mode, err, c.want)
		}
	}
}

// TestKilledSimulatorLeavesNoChild: on Linux, a simulator killed with
// SIGKILL (no chance to end its policy process) takes the process with it
// (PR_SET_PDEATHSIG), even one that no longer reads its input (which
// would otherwise see end of file and exit), and the processes it
// started, even those that left its session (the reaper ends them).
func TestKilledSimulatorLeavesNoChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("PR_SET_PDEATHSIG is Linux's")
	}
	for _, mode := range []string{"deaf", "escape-deaf"} {
		t.Run(mode, func(t *testing.T) {
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(t.TempDir(), "pids")
			parent := exec.Command(exe)
			parent.Env = append(os.Environ(), "POLLUXSIM_FAKE_PARENT="+fakeCommand(t, mode, pidFile))
			parent.Stderr = os.Stderr
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			want := 1
			if mode == "escape-deaf" {
				want = 3
			}
			deadline := time.Now().Add(time.Minute)
			for len(readPids(t, pidFile)) < want {
				if time.Now().After(deadline) {
					_ = parent.Process.Kill()
					t.Fatal("the policy process did not start within a minute")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := parent.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = parent.Wait()
			checkGone(t, readPids(t, pidFile))
		})
	}
}

// TestEscapedProcessesEnd: on Linux, processes a policy started that left
// its process group and session (setsid), one of them orphaned at once,
// end with the policy: when the run ends, when the policy exits in a
// fault, when it hangs, and when the run is interrupted.
func TestEscapedProcessesEnd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the reaper (PR_SET_CHILD_SUBREAPER) is Linux's")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) not found")
	}
	for _, tc := range []struct {
		mode, want string
		opts       []string
	}{
		{"escape-good", "", nil},
		{"escape-exit", "exit status 3", nil},
		{"escape-hang", "no answer within 2s", []string{"round_timeout=2"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			err, _, pids := runFake(t, context.Background(), tc.mode, "all", tc.opts...)
			if tc.want == "" && err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if len(pids) != 3 {
				t.Fatalf("%d process ids recorded, want 3", len(pids))
			}
			checkGone(t, pids)
		})
	}
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		pidFile := filepath.Join(t.TempDir(), "pids")
		go func() { // once the fake has started its processes
			for {
				b, _ := os.ReadFile(pidFile)
				if bytes.Count(b, []byte("\n")) >= 3 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
		}()
		err, _, pids := runFakePids(t, ctx, pidFile, "escape-hang", "all")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want the context's", err)
		}
		if len(pids) != 3 {
			t.Fatalf("%d process ids, want 3", len(pids))
		}
		checkGone(t, pids)
	})
}
