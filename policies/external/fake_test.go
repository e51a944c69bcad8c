package external_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies/external"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// The test binary doubles as a fake policy process: with
// POLLUXSIM_FAKE_POLICY=MODE in its environment it speaks the protocol
// (or breaks it, as MODE says) instead of running tests. It writes its
// process id, and that of any process it starts, to the file
// POLLUXSIM_FAKE_PIDS names.
func TestMain(m *testing.M) {
	if mode := os.Getenv("POLLUXSIM_FAKE_POLICY"); mode != "" {
		os.Exit(fakePolicy(mode))
	}
	if cmd := os.Getenv("POLLUXSIM_FAKE_PARENT"); cmd != "" {
		// A simulator that starts a policy process and waits to be killed.
		argv, err := external.Split(cmd)
		if err == nil {
			_, err = external.Start(external.Config{Argv: argv, Timeout: time.Minute})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// fakeCommand is the command line of a fake policy in mode, writing its
// process ids to pids. The environment is passed with env(1), which
// Debian's coreutils provides.
func fakeCommand(t testing.TB, mode, pids string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	envBin, err := exec.LookPath("env")
	if err != nil {
		t.Skip("env(1) not found")
	}
	return fmt.Sprintf("'%s' POLLUXSIM_FAKE_POLICY=%s POLLUXSIM_FAKE_PIDS='%s' '%s'", envBin, mode, pids, exe)
}

// fakePolicy is a FIFO at the requested GPUs that misbehaves as mode says:
//
//	good        behaves
//	nothing     gives every job nothing (a trivial policy, for benchmarks)
//	exit        exits with status 3 in round 3, after two lines on stderr
//	hang        stops answering in round 2
//	deaf        sleeps after its handshake, reading nothing more
//	hang-child  starts a sleeping child of its own, then hangs in round 2
//	malformed   answers round 1 with a line that is not JSON
//	oversized   answers round 1 with a line of 2 MiB
//	stray       prints a line of text on standard output in round 1
//	duplicate   answers round 1 with a decision that gives "alloc" twice,
//	            the last one valid (nothing for every job)
//	version     answers hello with protocol version 99
//	v1-fact     a version 1 peer (as every mode: it answers hello's
//	            protocol, the oldest version offered) with needs_oracle,
//	            asking in round 1 a fact of version 2 (step_time)
//	greedy      gives the first job all GPUs of every node, twice over
//	unknown     (incremental) changes the allocation of key 999999
//	error       answers round 2 with an error message
//	oracle      needs_oracle; asks every fact of every job each round and
//	            prints the answers to stderr as "oracle JOB FACT VALUE OK"
//	v1-admission  declares admission control in a version 1 conversation
//	v3-sizes    declares the trait sizes_llm_jobs in a version 3
//	            conversation
//	admit-other   a version 3 peer with admission control that answers
//	            the first admit message about another job
//
// A mode after "escape-" (escape-good, ...) also starts, after its
// handshake, two processes that leave its process group and session: a
// child of its own that calls setsid, and, through sh, `setsid sleep`
// whose parent exits at once (an orphan).
func fakePolicy(mode string) int {
	pids, err := os.OpenFile(os.Getenv("POLLUXSIM_FAKE_PIDS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(pids, os.Getpid())
	mode, escape := strings.CutPrefix(mode, "escape-")
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(msg any) {
		b, err := protocol.Encode(msg)
		if err != nil {
			panic(err)
		}
		out.Write(append(b, '\n'))
		out.Flush()
	}
	recv := func() any {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0) // the simulator closed the conversation
		}
		msg, err := protocol.Decode(line)
		if err != nil {
			panic(err)
		}
		return msg
	}
	hello := recv().(*protocol.Hello)
	ready := protocol.Ready{Type: protocol.TypeReady, Protocol: hello.Protocol, Name: "fake-" + mode,
		Traits: protocol.Traits{UserGPUs: mode != "greedy", NeedsOracle: mode == "oracle" || mode == "v1-fact"}, Incremental: mode == "unknown"}
	switch mode {
	case "version":
		ready.Protocol = 99
	case "v1-admission":
		ready.Admission = true
	case "admit-other":
		ready.Protocol, ready.Admission = protocol.AdmissionVersion, true
	case "v3-sizes":
		ready.Protocol, ready.Traits.SizesLLMJobs = protocol.AdmissionVersion, true
	}
	send(ready)
	if mode == "hang-child" {
		c := exec.Command("sleep", "1000")
		if err := c.Start(); err != nil {
			panic(err)
		}
		fmt.Fprintln(pids, c.Process.Pid)
	}
	if escape {
		c := exec.Command("sleep", "1000")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			panic(err)
		}
		orphan, err := exec.Command("sh", "-c", "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			panic(err)
		}
		fmt.Fprintln(pids, c.Process.Pid)
		fmt.Fprint(pids, string(orphan))
	}
	pids.Close()
	if mode == "deaf" {
		time.Sleep(time.Hour)
	}
	for round := 1; ; round++ {
		msg := recv()
		if a, ok := msg.(*protocol.Admit); ok {
			send(protocol.Admission{Type: protocol.TypeAdmission, Job: a.Job.Name + "-other"})
			continue
		}
		switch {
		case mode == "exit" && round == 3:
			fmt.Fprintln(os.Stderr, "loading the model")
			fmt.Fprintln(os.Stderr, "Traceback: KeyError: 'gpus'")
			return 3
		case (mode == "hang" || mode == "hang-child") && round == 2:
			time.Sleep(time.Hour)
		case mode == "malformed":
			fmt.Println("{\"type\": \"decision\", \"alloc\": [")
			continue
		case mode == "oversized":
			fmt.Println("{\"type\":\"decision\",\"round\":1,\"alloc\":[[" + strings.Repeat("0,", 1<<20) + "0]]}")
			continue
		case mode == "stray" && round == 1:
			fmt.Println("allocating GPUs for round 1...")
		case mode == "duplicate" && round == 1:
			r := msg.(*protocol.Round)
			fmt.Printf("{\"type\": \"decision\", \"round\": %d, \"alloc\": [[9]], \"alloc\": [%s]}\n",
				r.Round, strings.TrimSuffix(strings.Repeat("null,", len(r.Jobs)), ","))
			continue
		case mode == "v1-fact" && round == 1:
			r := msg.(*protocol.Round)
			send(protocol.Query{Type: protocol.TypeQuery, Job: r.Jobs[0].Name, Fact: protocol.FactStepTime, Placement: []int{1}, Local: 32})
			recv()
			continue
		case mode == "error" && round == 2:
			send(protocol.Error{Type: protocol.TypeError, Message: "ZeroDivisionError: division\nby zero"})
			continue
		}
		if r, ok := msg.(*protocol.IncrementalRound); ok {
			d := protocol.IncrementalDecision{Type: protocol.TypeIncrementalDecision, Round: r.Round}
			d.Changes = append(d.Changes, protocol.Change{Key: 999999, Alloc: make([]int, r.Cluster.Nodes)})
			send(d)
			continue
		}
		r := msg.(*protocol.Round)
		if mode == "nothing" {
			send(protocol.Decision{Type: protocol.TypeDecision, Round: r.Round, Alloc: make([][]int, len(r.Jobs))})
			continue
		}
		c := r.Cluster.Policies()
		d := protocol.Decision{Type: protocol.TypeDecision, Round: r.Round, Alloc: make([][]int, len(r.Jobs))}
		free := make([]int, c.Nodes)
		for n := range free {
			free[n] = c.NodeGPUs(n)
		}
		for i, j := range r.Jobs {
			if j.Alloc != nil {
				d.Alloc[i] = j.Alloc
				for n, v := range j.Alloc {
					free[n] -= v
				}
			}
		}
		for i, j := range r.Jobs {
			if mode == "oracle" {
				oracle(send, recv, j)
			}
			if d.Alloc[i] != nil {
				continue
			}
			if mode == "greedy" {
				d.Alloc[i] = make([]int, c.Nodes)
				for n := range d.Alloc[i] {
					d.Alloc[i][n] = 2 * c.NodeGPUs(n)
				}
				break
			}
			// Most-free placement, as policies.PlaceMostFree.
			a, left := make([]int, c.Nodes), j.Request.GPUs
			total := 0
			for _, f := range free {
				total += f
			}
			if total < left {
				break
			}
			for left > 0 {
				best := -1
				for n, f := range free {
					if f > 0 && (best < 0 || f > free[best]) {
						best = n
					}
				}
				take := min(free[best], left)
				a[best], free[best], left = a[best]+take, free[best]-take, left-take
			}
			d.Alloc[i] = a
		}
		send(d)
	}
}

// oracle asks every fact of job j and prints the answers to stderr.
func oracle(send func(any), recv func() any, j protocol.Job) {
	place := []int{j.Request.GPUs}
	for _, q := range []protocol.Query{
		{Fact: protocol.FactEpochs},
		{Fact: protocol.FactIterations, Batch: j.Request.Batch, Epoch: 1},
		{Fact: protocol.FactIterTime, Placement: place, Local: float64(j.Request.Batch) / float64(j.Request.GPUs), Accum: 0},
		{Fact: protocol.FactRemainingIterations, Batch: j.Request.Batch},
		{Fact: protocol.FactTypeIterTime, GPUType: "t4", Placement: place, Batch: j.Request.Batch},
		{Fact: protocol.FactTypeIterTime, GPUType: "nosuchgpu", Placement: place, Batch: j.Request.Batch},
	} {
		q.Type, q.Job = protocol.TypeQuery, j.Name
		send(q)
		a := recv().(*protocol.Answer)
		fmt.Fprintf(os.Stderr, "oracle %s %s %s %s %v\n", j.Name, q.Fact, q.GPUType,
			strconv.FormatFloat(a.Value, 'g', -1, 64), a.OK)
	}
}
