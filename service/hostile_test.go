package service

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The standing hostile suite: the reproductions of the probes of the
// service (issue 42 and after), sent to a service that runs as the
// operator starts it (the default registry, external and remote
// included; the default limits but a short body timeout) in a child
// process under a memory limit. Each case must end in its status,
// usually a 4xx, with the service alive and answering GET /v1/healthz.
// Add a probe's reproduction as a row of hostileCases.

// hostileEnv, set in the child's environment, makes TestHostileServer
// serve; its value is the token the service requires.
const hostileEnv = "POLLUXSIM_HOSTILE_SERVER_TOKEN"

// hostileMemory bounds the child's address space (as `ulimit -v
// 2000000` does), and its heap target is a quarter of it.
const hostileMemory = 2_000_000 << 10

// hostileBodyTimeout is the child's body timeout, short so that the slow
// bodies' case takes seconds.
const hostileBodyTimeout = time.Second

// hostileStep is one request of a case and what must come of it.
type hostileStep struct {
	method, path, body string
	// header is set beside the token (Authorization) and Content-Type:
	// application/json, which it may replace ("" removes a header).
	header map[string]string
	// slow, when positive, sends instead slow connections: each sends the
	// request's headers with a body length of 100,000 and then a byte every
	// 200 ms; each must get status (within the body timeout and a margin).
	slow   int
	status int
	// want, when set, must be in the answer's body.
	want string
}

// hostileCase is a probe: its steps in order. "{session}" in a path is a
// session of policy session opened for the case, "{query_id}" in a body
// the latest query_id answered in the case.
type hostileCase struct {
	item, name string
	session    string
	options    string // the session's options, a JSON object (empty: none)
	steps      []hostileStep
}

func hostileCases() []hostileCase {
	post := func(path, body string, status int, want string) hostileStep {
		return hostileStep{method: "POST", path: path, body: body, status: status, want: want}
	}
	nodes := func(n, gpus int, name func(int) string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":%q,"gpus":%d}`, name(i), gpus)
		}
		return b.String()
	}
	short := func(i int) string { return strconv.Itoa(i) }
	escaped := func(i int) string { return strconv.Itoa(i) + strings.Repeat("<", maxNameLen-len(strconv.Itoa(i))) }
	round := `{"time": 0, "nodes": [{"name": "a", "gpus": 4}], "jobs": []}`
	optimusRound := `{"time": 10, "nodes": [{"name": "a", "gpus": 4}], "jobs": [{"name": "j", "application": "cifar10",
		"submission_time": 0, "restarts": 0, "allocation": [], "request_gpus": 2, "request_batch": 128}]}`
	answer := `{"query_id": %s, "answers": [{"type": "answer", "value": 10, "ok": true}]}`
	return []hostileCase{
		{item: "2", name: "external runs the caller's command", steps: []hostileStep{
			post("/v1/sessions", `{"policy":"external","seed":1,"options":{"command":"/bin/sh -c 'touch PWNED'"}}`, 403, "--allow-policy external"),
		}},
		{item: "2", name: "a form posted from a web page", steps: []hostileStep{
			{method: "POST", path: "/v1/sessions", body: `{"policy":"fifo"}`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, status: 415, want: "Content-Type"},
			{method: "POST", path: "/v1/sessions", body: `{"policy":"fifo"}`, header: map[string]string{"Content-Type": "text/plain"}, status: 415, want: "Content-Type"},
			{method: "POST", path: "/v1/sessions", body: `{"policy":"fifo"}`, header: map[string]string{"Content-Type": ""}, status: 415, want: "Content-Type"},
			{method: "POST", path: "/v1/sessions", body: `{"policy":"fifo"}`, header: map[string]string{"Origin": "http://evil.example"}, status: 403, want: "Origin"},
		}},
		{item: "3", name: "remote reads a file, the environment, reaches a URL", steps: []hostileStep{
			post("/v1/sessions", `{"policy":"remote","options":{"url":"http://127.0.0.1:9","token_file":"/etc/passwd"}}`, 403, "--allow-policy remote"),
			post("/v1/sessions", `{"policy":"remote","options":{"url":"http://127.0.0.1:9","token_file":"/no/such/file"}}`, 403, "--allow-policy remote"),
			post("/v1/sessions", `{"policy":"remote","options":{"url":"http://127.0.0.1:9","token_env":"HOME"}}`, 403, "--allow-policy remote"),
		}},
		{item: "4", name: "4,096 nodes of 4,096 GPUs, a job asking 2^24", session: "fifo", steps: []hostileStep{
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":[`+nodes(4096, 4096, short)+`],"jobs":[{"name":"j","submission_time":0,"restarts":0,"allocation":[],"request_gpus":16777216}]}`, 400, "more than the service's limit of 65536 GPUs in a round"),
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":[{"name":"a","gpus":4}],"jobs":[{"name":"j","submission_time":0,"restarts":0,"allocation":[],"request_gpus":16777216}]}`, 400, "jobs[0].request_gpus"),
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":[`+nodes(16, 4096, escaped)+`],"jobs":[{"name":"j","submission_time":0,"restarts":0,"allocation":[],"request_gpus":65536}]}`, 400, "nodes: the answer to this round could take"),
			// 1.8 MB: 20,000 jobs holding a GPU each of 4,096 nodes (an
			// allocation per job and node, twice: 1.3 GB)
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":[`+nodes(4096, 16, short)+`],"jobs":[`+heldJobs(20000, 4096)+`]}`, 400, "more than the service's limit of 4194304 jobs × nodes"),
		}},
		{item: "7", name: "slow bodies", steps: []hostileStep{
			{method: "POST", path: "/v1/sessions", slow: 20, status: 408},
		}},
		{item: "11", name: "the bearer scheme in lower case", steps: []hostileStep{
			{method: "POST", path: "/v1/sessions", body: `{"policy":"fifo"}`, header: map[string]string{"Authorization": "bearer {token}"}, status: 201},
			{method: "POST", path: "/v1/sessions", body: `{"policy":"fifo"}`, header: map[string]string{"Authorization": "bearer wrong"}, status: 401, want: "bearer token"},
		}},
		{item: "14", name: "a round without jobs", session: "fifo", steps: []hostileStep{
			post("/v1/sessions/{session}/rounds", round, 200, `{"jobs":[],"desired_nodes":0}`),
			post("/v1/sessions/{session}/rounds", strings.Replace(round, "[]", "null", 1), 200, `{"jobs":[],"desired_nodes":0}`),
		}},
		{item: "15", name: "control and bidi characters in names", session: "fifo", steps: []hostileStep{
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":[{"name":"\u202e\u0000x","gpus":4}],"jobs":[]}`, 400, "nodes[0].name"),
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":[{"name":"a","gpus":4}],"jobs":[{"name":"\u202ej","submission_time":0,"restarts":0,"allocation":[]}]}`, 400, "jobs[0].name"),
		}},
		{item: "16", name: "oracle answers retried or without an id", session: "optimus", steps: []hostileStep{
			post("/v1/sessions/{session}/rounds", optimusRound, 200, `"query_id":1`),
			post("/v1/sessions/{session}/oracle", `{"answers": [{"type": "answer", "value": 10, "ok": true}]}`, 400, "query_id"),
			post("/v1/sessions/{session}/oracle", fmt.Sprintf(answer, "2"), 409, "query_id: 2 is not the pending query"),
			post("/v1/sessions/{session}/oracle", fmt.Sprintf(answer, "{query_id}"), 200, ""),
			post("/v1/sessions/{session}/oracle", fmt.Sprintf(answer, "1"), 409, ""),
		}},
		{item: "1", name: "60,000 levels of nesting", session: "fifo", steps: []hostileStep{
			post("/v1/sessions", strings.Repeat("[", 60000), 400, "nested deeper than 64 levels"),
			post("/v1/sessions/{session}/rounds", `{"time":0,"nodes":`+strings.Repeat(`[{"name":`, 30000), 400, "nested deeper than 64 levels"),
		}},
		{item: "options", name: "policy options whose memory grows with them", steps: []hostileStep{
			// population 100,000 on the round of the next case takes 1.6 GB
			// resident (beyond this child's 2 GB of address space); 256, 56 MB
			post("/v1/sessions", `{"policy":"pollux","options":{"population":100000}}`, 400, "option population is 100000, above 256"),
			post("/v1/sessions", `{"policy":"pollux","options":{"generations":100000}}`, 400, "option generations is 100000, above 1000"),
		}},
		{item: "options", name: "the largest population a caller may set, on 1,000 jobs and 1,024 nodes", session: "pollux", options: `{"population":256}`, steps: []hostileStep{
			post("/v1/sessions/{session}/rounds", `{"time":600,"nodes":[`+nodes(1024, 4, short)+`],"jobs":[`+pendingJobs(1000)+`]}`, 200, `{"name":"j0","allocation":["0"]}`),
		}},
		// Further probes' reproductions go here, a row each.
	}
}

// TestHostile sends every hostile case to a service in a child process
// under a memory limit: each ends in its status with the service alive.
func TestHostile(t *testing.T) {
	if os.Getenv(hostileEnv) != "" {
		t.Skip("the child")
	}
	if raceEnabled {
		t.Skip("the race detector's memory does not fit the suite's memory limit")
	}
	token := "hostile-token"
	child := exec.Command(os.Args[0], "-test.run", "^TestHostileServer$", "-test.v")
	child.Env = append(os.Environ(), hostileEnv+"="+token)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var tail lockedBuffer // the child's standard output after its address
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "hostile server listening on "); ok {
				addrc <- a
				continue
			}
			tail.Write([]byte(sc.Text() + "\n"))
		}
		_ = child.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close() // the child stops when its standard input ends
		select {
		case <-exited:
		case <-time.After(wait):
			_ = child.Process.Kill()
		}
	})
	var base string
	select {
	case base = <-addrc:
		base = "http://" + base
	case <-exited:
		t.Fatalf("the child ended before it served: %s%s", tail.String(), stderr.String())
	case <-time.After(wait):
		t.Fatal("the child did not serve")
	}
	alive := func(after string) {
		t.Helper()
		select {
		case <-exited:
			t.Fatalf("after %s the service is dead: %s%s", after, tail.String(), stderr.String())
		default:
		}
		status, out, err := hostileSend("GET", base+"/v1/healthz", "", map[string]string{"Authorization": "Bearer " + token})
		if err != nil {
			t.Fatalf("after %s: healthz: %v; the child: %s", after, err, lastBytes(stderr.String(), 300))
		}
		if status != 200 {
			t.Fatalf("after %s: healthz %d %s", after, status, out)
		}
	}
	alive("start")
	for _, c := range hostileCases() {
		name := "item " + c.item + ": " + c.name
		session := ""
		if c.session != "" {
			opts := ""
			if c.options != "" {
				opts = `,"options":` + c.options
			}
			status, out, err := hostileSend("POST", base+"/v1/sessions", `{"policy":"`+c.session+`"`+opts+`}`,
				map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
			var r SessionResponse
			if err != nil || status != 201 || json.Unmarshal([]byte(out), &r) != nil {
				t.Fatalf("%s: opening a session: %d %s %v", name, status, out, err)
			}
			session = r.Session
		}
		queryID := ""
		for i, st := range c.steps {
			path := strings.ReplaceAll(st.path, "{session}", session)
			body := strings.ReplaceAll(st.body, "{query_id}", queryID)
			header := map[string]string{"Authorization": "Bearer " + token}
			if st.method == "POST" {
				header["Content-Type"] = "application/json"
			}
			for k, v := range st.header {
				header[k] = strings.ReplaceAll(v, "{token}", token)
			}
			if st.slow > 0 {
				hostileSlow(t, name, base, path, header, st.slow, st.status)
				continue
			}
			status, out, err := hostileSend(st.method, base+path, body, header)
			if err != nil {
				select {
				case <-exited:
				case <-time.After(time.Second):
				}
				t.Fatalf("%s, step %d: %v; the child: %s", name, i, err, lastBytes(stderr.String(), 300))
			}
			if status != st.status || !strings.Contains(out, st.want) {
				t.Errorf("%s, step %d: %d %.300s; want %d and %q", name, i, status, out, st.status, st.want)
			}
			if m := regexp.MustCompile(`"query_id":(\d+)`).FindStringSubmatch(out); m != nil {
				queryID = m[1]
			}
		}
		alive(name)
	}
}

// lastBytes is what tells why the child died, from its standard error: n
// bytes from its first fatal error or panic, or its last n bytes.
func lastBytes(s string, n int) string {
	for _, mark := range []string{"fatal error", "panic:"} {
		if i := strings.Index(s, mark); i >= 0 {
			return s[i:min(len(s), i+n)]
		}
	}
	return s[max(0, len(s)-n):]
}

// hostileSend sends one request and returns the answer's status and body.
func hostileSend(method, url, body string, header map[string]string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	c := http.Client{Timeout: 2 * wait}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(data), err
}

// hostileSlow opens n slow connections (see hostileStep.slow) and checks
// that each gets status, and closes, within the body timeout and a
// margin, while the service answers others.
func hostileSlow(t *testing.T, name, base, path string, header map[string]string, n, status int) {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), hostileBodyTimeout+2*wait)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- slowConn(ctx, addr, path, header, status)
		}()
	}
	if st, out, err := hostileSend("GET", base+"/v1/healthz", "", header); err != nil || st != 200 {
		t.Errorf("%s: healthz during the slow bodies: %d %s %v", name, st, out, err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// slowConn sends a request's headers with a body length of 100,000, then
// a byte every 200 ms until the service answers; the answer must be
// status and close the connection.
func slowConn(ctx context.Context, addr, path string, header map[string]string, status int) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 100000\r\n", path, addr)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n{")
	if _, err := io.WriteString(c, b.String()); err != nil {
		return err
	}
	answered := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-answered:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	close(answered)
	if err != nil {
		return fmt.Errorf("a slow body got no answer: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status || !resp.Close {
		return fmt.Errorf("a slow body: %d (close %v) %s, want %d and the connection closed", resp.StatusCode, resp.Close, data, status)
	}
	return nil
}

// TestHostileServer is the child of TestHostile: it serves under a memory
// limit until its standard input ends.
func TestHostileServer(t *testing.T) {
	token := os.Getenv(hostileEnv)
	if token == "" {
		t.Skip("run by TestHostile")
	}
	if err := limitMemory(hostileMemory); err != nil {
		t.Logf("no address-space limit: %v", err)
	}
	debug.SetMemoryLimit(hostileMemory / 4)
	lim := DefaultLimits()
	lim.BodyTimeout = hostileBodyTimeout
	reg, _ := testRegistry(t)
	s := New(Config{Registry: reg, Token: token, Limits: lim})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	fmt.Printf("hostile server listening on %s\n", ln.Addr())
	if err := s.Serve(ctx, ln, wait); err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer is a strings.Builder safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// heldJobs are n jobs each holding a GPU of one of nodes nodes named as
// hostileCases names them.
func heldJobs(n, nodes int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"j%d","submission_time":0,"restarts":0,"allocation":["%d"]}`, i, i%nodes)
	}
	return b.String()
}

// pendingJobs is n jobs of the six applications waiting for GPUs, as a
// round's jobs.
func pendingJobs(n int) string {
	apps := []string{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"j%d","application":%q,"submission_time":0,"restarts":0,"allocation":[]}`, i, apps[i%len(apps)])
	}
	return b.String()
}
