package service

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies"
)

// TestPoliciesWithEffects: a caller cannot choose a policy that starts a
// process or reads files, the environment or the network (403 naming the
// operator's flag; the command is not run) unless the operator allows
// it; then a failure to start it tells the caller nothing of the
// server's files (the same message whether a token file exists or not;
// the reason goes to the service's log).
func TestPoliciesWithEffects(t *testing.T) {
	reg, _ := testRegistry(t)
	for _, name := range []string{"external", "remote"} {
		if r, ok := reg.Lookup(name); !ok || r.Effects == 0 {
			t.Errorf("policy %s declares no effects", name)
		}
	}
	dir := t.TempDir()
	pwned := filepath.Join(dir, "PWNED")
	external := fmt.Sprintf(`{"policy": "external", "seed": 1, "options": {"command": "touch %s"}}`, pwned)
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	// a listener that counts connections: remote must not reach it
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached <- struct{}{}
			c.Close()
		}
	}()
	remote := func(opts string) string {
		return `{"policy": "remote", "options": {"url": "http://` + ln.Addr().String() + `", ` + opts + `}}`
	}

	_, ts, _ := newTestServer(t, Config{})
	for _, c := range []struct{ body, name string }{
		{external, "external"},
		{remote(`"token_file": "` + secret + `"`), "remote"},
		{remote(`"token_env": "HOME"`), "remote"},
	} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions", c.body, "")
		if status != 403 {
			t.Errorf("%s: %d %s", c.body, status, out)
		}
		oneLineError(t, out, "--allow-policy "+c.name)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the caller's command ran")
	}
	select {
	case <-reached:
		t.Error("remote reached the caller's URL")
	default:
	}

	// Allowed by the operator: remote reads the token file, and the
	// caller learns only that it failed.
	var log bytes.Buffer
	_, ts2, _ := newTestServer(t, Config{Allow: []string{"remote"}, Log: &log})
	var answers []string
	for _, file := range []string{secret + "-missing", dir} {
		status, out := do(t, "POST", ts2.URL+"/v1/sessions", remote(`"token_file": "`+file+`"`), "")
		if status != 400 {
			t.Errorf("token_file %s: %d %s", file, status, out)
		}
		if strings.Contains(out, file) {
			t.Errorf("the answer names the path: %s", out)
		}
		answers = append(answers, out)
	}
	if answers[0] != answers[1] {
		t.Errorf("a missing file and a folder answered differently:\n%s%s", answers[0], answers[1])
	}
	if !strings.Contains(log.String(), secret+"-missing") {
		t.Errorf("the service's log lacks the reason: %q", log.String())
	}
	// external stays refused when only remote is allowed
	if status, out := do(t, "POST", ts2.URL+"/v1/sessions", external, ""); status != 403 {
		t.Errorf("external with remote allowed: %d %s", status, out)
	}
}

// TestRequestHeaders: a POST must declare a JSON body (a form a web page
// may send anywhere is 415), a request from a web page of another origin
// is 403, and the bearer scheme's name is case-insensitive.
func TestRequestHeaders(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{Token: "t0k"})
	body := `{"policy": "fifo"}`
	url := ts.URL + "/v1/sessions"
	auth := "Bearer t0k"
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
		want   string
	}{
		{"no content type", map[string]string{"Authorization": auth}, 415, "Content-Type: want application/json"},
		{"a form", map[string]string{"Authorization": auth, "Content-Type": "application/x-www-form-urlencoded"}, 415, "Content-Type"},
		{"plain text", map[string]string{"Authorization": auth, "Content-Type": "text/plain"}, 415, "Content-Type"},
		{"JSON with a charset", map[string]string{"Authorization": auth, "Content-Type": "application/json; charset=utf-8"}, 201, ""},
		{"another origin", map[string]string{"Authorization": auth, "Content-Type": "application/json", "Origin": "http://evil.example"}, 403, "Origin"},
		{"origin null", map[string]string{"Authorization": auth, "Content-Type": "application/json", "Origin": "null"}, 403, "Origin"},
		{"its own origin", map[string]string{"Authorization": auth, "Content-Type": "application/json", "Origin": ts.URL}, 201, ""},
		{"bearer", map[string]string{"Authorization": "bearer t0k", "Content-Type": "application/json"}, 201, ""},
		{"BEARER", map[string]string{"Authorization": "BEARER t0k", "Content-Type": "application/json"}, 201, ""},
		{"bearer, wrong token", map[string]string{"Authorization": "bearer t0x", "Content-Type": "application/json"}, 401, "bearer token"},
		{"no space", map[string]string{"Authorization": "Bearert0k", "Content-Type": "application/json"}, 401, "bearer token"},
		{"another scheme", map[string]string{"Authorization": "Basic t0k", "Content-Type": "application/json"}, 401, "bearer token"},
	} {
		status, out := send(t, "POST", url, body, c.header)
		if status != c.status {
			t.Errorf("%s: %d %s", c.name, status, out)
			continue
		}
		if c.want != "" {
			oneLineError(t, out, c.want)
		}
	}
}

// TestRoundAnswers: a round without jobs ("jobs": [] or null or absent)
// is answered {"jobs":[],"desired_nodes":0}: no job, no node wanted.
func TestRoundAnswers(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "fifo"}`)
	for _, jobs := range []string{`, "jobs": []`, `, "jobs": null`, ``} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", `{"time": 0, "nodes": [{"name": "a", "gpus": 4}]`+jobs+`}`, "")
		if status != 200 || strings.TrimSpace(out) != `{"jobs":[],"desired_nodes":0}` {
			t.Errorf("jobs%s: %d %s", jobs, status, out)
		}
	}
}

// TestNames: node names, job names, applications and GPU types must be
// printable: control, formatting (bidirectional overrides) and other
// space characters are refused with the field named; letters of any
// script are names.
func TestNames(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "fifo"}`)
	round := func(node, gpuType, job, app string) string {
		b, _ := json.Marshal(RoundRequest{Nodes: []Node{{Name: node, GPUs: 4, GPUType: gpuType}},
			Jobs: []Job{{Name: job, Application: app, Allocation: []string{node}}}})
		return string(b)
	}
	long := strings.Repeat("é", maxNameLen/2+1)
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"fine", round("nœud-1", "", "ジョブ 1", "bert"), 200, ""},
		{"bidi override and NUL", round("\u202e\u0000x", "", "j", ""), 400, "nodes[0].name: character U+202E at byte 0 is not printable"},
		{"NUL", round("a\u0000", "", "j", ""), 400, "nodes[0].name: character U+0000"},
		{"newline in a job", round("a", "", "j\n", ""), 400, "jobs[0].name: character U+000A"},
		{"right-to-left mark", round("a", "", "j", "bert\u200f"), 400, "jobs[0].application: character U+200F"},
		{"zero-width space", round("a", "t4\u200b", "j", ""), 400, "nodes[0].gpu_type: character U+200B"},
		{"no-break space", round("a\u00a0b", "", "j", ""), 400, "nodes[0].name: character U+00A0"},
		{"too long", round(long, "", "j", ""), 400, "nodes[0].name: want 1 to 253 bytes, got 254"},
	} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", c.body, "")
		if status != c.status {
			t.Errorf("%s: %d %s", c.name, status, out)
			continue
		}
		if c.want != "" {
			oneLineError(t, out, c.want)
		}
	}
	// JSON decoding makes bytes that are not UTF-8 U+FFFD; names from
	// elsewhere are checked too
	if err := checkName("n", "a\xff"); err == nil || !strings.Contains(err.Error(), "n: not valid UTF-8") {
		t.Errorf("a name not UTF-8: %v", err)
	}
}

// TestAmplification: a round's GPUs, a job's requests and the answer's
// size are bounded before the policy runs (400 naming the field), and the
// bound on the answer holds: a round that fills every GPU of nodes with
// names to escape answers within it.
func TestAmplification(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "fifo"}`)
	rounds := ts.URL + "/v1/sessions/" + id + "/rounds"
	nodes := func(n, gpus int, name func(int) string) []Node {
		out := make([]Node, n)
		for i := range out {
			out[i] = Node{Name: name(i), GPUs: gpus}
		}
		return out
	}
	body := func(r RoundRequest) string {
		b, _ := json.Marshal(r)
		return string(b)
	}
	short := func(i int) string { return strconv.Itoa(i) }
	escaped := func(i int) string { return strconv.Itoa(i) + strings.Repeat("<", maxNameLen-len(strconv.Itoa(i))) }
	fifo := []Job{{Name: "j", RequestGPUs: 1 << 24, Allocation: []string{}}}
	for _, c := range []struct {
		name string
		r    RoundRequest
		want string
	}{
		// the round: 4,096 nodes of 4,096 GPUs, one job asking 2^24
		{"16,777,216 GPUs", RoundRequest{Nodes: nodes(4096, 4096, short), Jobs: fifo}, "nodes[16].gpus: the nodes hold 69632 GPUs up to here, more than the service's limit of 65536 GPUs in a round"},
		{"request_gpus", RoundRequest{Nodes: nodes(1, 4, short), Jobs: fifo}, "jobs[0].request_gpus: 16777216 GPUs, more than the service's limit of 65536"},
		{"max_replicas", RoundRequest{Nodes: nodes(1, 4, short), Jobs: []Job{{Name: "j", MaxReplicas: 1 << 20, Allocation: []string{}}}}, "jobs[0].max_replicas"},
		// 65,536 GPUs on nodes whose names encoding/json writes 6 bytes a
		// character: over 64 MiB of answer
		{"answer", RoundRequest{Nodes: nodes(16, 4096, escaped), Jobs: []Job{{Name: "j", RequestGPUs: 1 << 16, Allocation: []string{}}}}, "nodes: the answer to this round could take"},
	} {
		status, out := do(t, "POST", rounds, body(c.r), "")
		if status != 400 {
			t.Errorf("%s: %d %.200s", c.name, status, out)
			continue
		}
		oneLineError(t, out, c.want)
	}
	// jobs × nodes: each job holding a GPU costs an allocation per node
	lim := DefaultLimits()
	lim.MaxJobNodes = 5
	_, ts3, _ := newTestServer(t, Config{Limits: lim})
	id3 := openSession(t, ts3.URL, `{"policy": "fifo"}`)
	r3 := RoundRequest{Nodes: nodes(2, 4, short), Jobs: []Job{{Name: "a", Allocation: []string{"0"}}, {Name: "b", Allocation: []string{"1"}}, {Name: "c", Allocation: []string{}}}}
	if status, out := do(t, "POST", ts3.URL+"/v1/sessions/"+id3+"/rounds", body(r3), ""); status != 400 {
		t.Errorf("3 jobs on 2 nodes with a limit of 5: %d %s", status, out)
	} else {
		oneLineError(t, out, "jobs: 3 jobs on 2 nodes, 6 pairs, more than the service's limit of 5 jobs × nodes")
	}
	r3.Jobs = r3.Jobs[:2]
	if status, out := do(t, "POST", ts3.URL+"/v1/sessions/"+id3+"/rounds", body(r3), ""); status != 200 {
		t.Errorf("2 jobs on 2 nodes with a limit of 5: %d %s", status, out)
	}
	// The bound holds: FIFO gives 256 GPUs of nodes named to be escaped to
	// one job (its answer all node names), and a bound near the answer
	// refuses the round.
	r := RoundRequest{Nodes: nodes(64, 4, escaped), Jobs: []Job{{Name: "j<&>", RequestGPUs: 256, Allocation: []string{}}, {Name: "k", Allocation: []string{}}}}
	status, out := do(t, "POST", rounds, body(r), "")
	if status != 200 {
		t.Fatalf("%d %.200s", status, out)
	}
	rd, err := decodeRound(&r, DefaultLimits(), policies.Traits{})
	if err != nil {
		t.Fatal(err)
	}
	bound := answerBound(rd)
	if n := int64(len(out)); n > bound || n < bound*9/10 {
		t.Errorf("answer of %d bytes, bound %d: not a bound, or far from one", n, bound)
	}
	lim = DefaultLimits()
	lim.MaxResponse = int64(len(out)) - 1
	_, ts2, _ := newTestServer(t, Config{Limits: lim})
	id2 := openSession(t, ts2.URL, `{"policy": "fifo"}`)
	if status, out := do(t, "POST", ts2.URL+"/v1/sessions/"+id2+"/rounds", body(r), ""); status != 400 {
		t.Errorf("a round whose answer exceeds --max-response: %d %.200s", status, out)
	}
}

// TestOracleQueryIDs: an oracle answer must carry its query's id: none is
// 400, another (a retry of an earlier answer, a second client's) is 409
// and leaves the pending query pending, to be answered.
func TestOracleQueryIDs(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "optimus"}`)
	base := ts.URL + "/v1/sessions/" + id
	status, out := do(t, "POST", base+"/rounds", threeJobs(t), "")
	answer := func(qid int64, q string) (int, string) {
		var r RoundResponse
		if err := json.Unmarshal([]byte(q), &r); err != nil || len(r.OracleQueries) != 1 {
			t.Fatalf("%v %s", err, q)
		}
		return do(t, "POST", base+"/oracle", fmt.Sprintf(`{"query_id": %d, "answers": [%s]}`, qid,
			`{"type": "answer", "value": 10, "ok": true}`), "")
	}
	var prev int64
	for n := 0; status == 200 && strings.Contains(out, "oracle_queries"); n++ {
		if n > 1000 {
			t.Fatal("more than 1000 queries")
		}
		var r RoundResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.QueryID != prev+1 {
			t.Fatalf("query %d has id %d, want %d", n, r.QueryID, prev+1)
		}
		if st, o := do(t, "POST", base+"/oracle", `{"answers": [{"type": "answer", "value": 10, "ok": true}]}`, ""); st != 400 || !strings.Contains(o, "query_id") {
			t.Errorf("an answer without an id: %d %s", st, o)
		}
		if prev > 0 {
			if st, o := answer(prev, out); st != 409 || !strings.Contains(o, "query_id: "+strconv.FormatInt(prev, 10)+" is not the pending query") {
				t.Errorf("the previous answer again: %d %s", st, o)
			}
		}
		if st, o := answer(r.QueryID+1, out); st != 409 {
			t.Errorf("an answer to a query not asked: %d %s", st, o)
		}
		prev = r.QueryID
		status, out = answer(r.QueryID, out)
	}
	if status != 200 || !strings.Contains(out, `"jobs"`) {
		t.Fatalf("%d %s", status, out)
	}
	if prev < 2 {
		t.Fatalf("%d queries", prev)
	}
}

// slowBody opens a connection that sends a POST's headers, a body length
// of 100,000 and then n bytes of it.
func slowBody(t testing.TB, addr, path string, n int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n%s", path, strings.Repeat(" ", n)); err != nil {
		t.Fatal(err)
	}
	return c
}

// serveTest runs s.Serve on a loopback port until the test ends; it
// returns the address and Serve's result channel, and a stop.
func serveTest(t *testing.T, s *Server, drain time.Duration) (string, chan error, context.CancelFunc) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served, done := make(chan error, 1), make(chan struct{})
	go func() {
		served <- s.Serve(ctx, ln, drain)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
		}
	})
	return ln.Addr().String(), served, cancel
}

// TestSlowBody: a body that does not arrive within the body timeout is
// answered 408 and its connection closed, while the service answers
// others.
func TestSlowBody(t *testing.T) {
	reg, _ := testRegistry(t)
	s := New(Config{Registry: reg, Limits: Limits{BodyTimeout: 300 * time.Millisecond}})
	addr, _, _ := serveTest(t, s, wait)
	conns := make([]net.Conn, 4)
	for i := range conns {
		conns[i] = slowBody(t, addr, "/v1/sessions", 10)
	}
	if status, out := do(t, "GET", "http://"+addr+"/v1/healthz", "", ""); status != 200 {
		t.Errorf("healthz: %d %s", status, out)
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(wait))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v (no answer within %v)", i, err, wait)
		}
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 408 || !resp.Close {
			t.Errorf("connection %d: %d, close %v: %s", i, resp.StatusCode, resp.Close, data)
		}
		oneLineError(t, string(data), "request body: not received within 300ms")
	}
}

// TestStopCutsSlowBodies: the service's stop does not wait its drain
// time for bodies still arriving: Serve returns at once (their requests
// answered 503), while a round in progress would be waited for.
func TestStopCutsSlowBodies(t *testing.T) {
	reg, _ := testRegistry(t)
	s := New(Config{Registry: reg, Limits: Limits{BodyTimeout: time.Hour}})
	addr, served, stop := serveTest(t, s, time.Hour)
	conns := make([]net.Conn, 4)
	for i := range conns {
		conns[i] = slowBody(t, addr, "/v1/sessions", 10)
	}
	// healthz answered: the slow requests are in their handlers
	if status, out := do(t, "GET", "http://"+addr+"/v1/healthz", "", ""); status != 200 {
		t.Fatalf("healthz: %d %s", status, out)
	}
	deadline := time.Now().Add(wait)
	for s.readingCount() < len(conns) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatalf("Serve still waits for slow bodies %v after its stop", wait)
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(wait))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if resp.StatusCode != 503 {
			t.Errorf("connection %d: %d", i, resp.StatusCode)
		}
	}
}

// readingCount is the number of bodies being read.
func (s *Server) readingCount() int {
	s.bodies.mu.Lock()
	defer s.bodies.mu.Unlock()
	return len(s.bodies.reading)
}

// TestConnectionLimit: beyond the limit a connection is not accepted
// until one closes.
func TestConnectionLimit(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newLimitListener(inner, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	var open []net.Conn
	for range 2 {
		select {
		case c := <-accepted:
			open = append(open, c)
		case <-time.After(wait):
			t.Fatal("a connection within the limit was not accepted")
		}
	}
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted with a limit of 2")
	case <-time.After(200 * time.Millisecond):
	}
	open[0].Close()
	open[0].Close() // twice frees one slot
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(wait):
		t.Fatal("the third connection was not accepted after one closed")
	}
	c, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-accepted:
		t.Fatal("a fourth connection was accepted: a connection closed twice freed two slots")
	case <-time.After(200 * time.Millisecond):
	}
	ln.Close()
	for range accepted {
	}
}

// TestServeConnectionLimit: Serve holds at most MaxConns connections: with
// two connections open and a limit of two, a request waits until one
// closes.
func TestServeConnectionLimit(t *testing.T) {
	reg, _ := testRegistry(t)
	s := New(Config{Registry: reg, Limits: Limits{MaxConns: 2}})
	addr, _, _ := serveTest(t, s, wait)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	answered := make(chan int, 1)
	go func() {
		status, _, err := hostileSend("GET", "http://"+addr+"/v1/healthz", "", nil)
		if err != nil {
			t.Error(err)
		}
		answered <- status
	}()
	select {
	case status := <-answered:
		t.Fatalf("a third connection was served (%d) with a limit of 2", status)
	case <-time.After(200 * time.Millisecond):
	}
	held[0].Close()
	select {
	case status := <-answered:
		if status != 200 {
			t.Errorf("healthz: %d", status)
		}
	case <-time.After(wait):
		t.Fatal("the waiting request was not served after a connection closed")
	}
}
