package service

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/external"
)

// testPolicies are the policies of the tests' registries beside the
// built-in ones: block, which holds every round until released, and
// panic, which panics.
type testPolicies struct {
	entered chan string   // a round began (the session's seed as a name)
	release chan struct{} // let one round finish
	inside  atomic.Int32  // rounds in progress
	most    atomic.Int32  // the most rounds in progress at once
	mu      sync.Mutex
}

type blockPolicy struct {
	tp   *testPolicies
	name string
}

func (p *blockPolicy) Name() string            { return "block" }
func (p *blockPolicy) Traits() policies.Traits { return policies.Traits{} }
func (p *blockPolicy) Schedule(_ float64, _ policies.Cluster, jobs []policies.Job) policies.Decision {
	n := p.tp.inside.Add(1)
	for {
		m := p.tp.most.Load()
		if n <= m || p.tp.most.CompareAndSwap(m, n) {
			break
		}
	}
	p.tp.entered <- p.name
	<-p.tp.release
	p.tp.inside.Add(-1)
	return policies.Decision{Alloc: make([][]int, len(jobs))}
}

type panicPolicy struct{}

func (panicPolicy) Name() string            { return "panic" }
func (panicPolicy) Traits() policies.Traits { return policies.Traits{} }
func (panicPolicy) Schedule(float64, policies.Cluster, []policies.Job) policies.Decision {
	panic("boom")
}

// testRegistry is the built-in policies plus block and panic.
func testRegistry(t testing.TB) (*policies.Registry, *testPolicies) {
	t.Helper()
	reg := policies.NewRegistry()
	// The built-ins and the two policies with effects (refused unless a
	// test's server allows them).
	for _, r := range append(builtin.Registrations(), external.Registration(), RemoteRegistration()) {
		if err := reg.Register(r); err != nil {
			t.Fatal(err)
		}
	}
	tp := &testPolicies{entered: make(chan string, 64), release: make(chan struct{})}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.Register(policies.Registration{Name: "block", New: func(_ any, env policies.Env) (policies.Policy, error) {
		return &blockPolicy{tp: tp, name: strings.Repeat("s", int(env.Seed))}, nil
	}}))
	must(reg.Register(policies.Registration{Name: "panic", New: func(any, policies.Env) (policies.Policy, error) {
		return panicPolicy{}, nil
	}}))
	return reg, tp
}

// newTestServer serves cfg (with the test registry) on a loopback port.
func newTestServer(t testing.TB, cfg Config) (*Server, *httptest.Server, *testPolicies) {
	t.Helper()
	reg, tp := testRegistry(t)
	cfg.Registry = reg
	if cfg.Autoscalers == nil {
		cfg.Autoscalers = testExt.Autoscalers
	}
	s := New(cfg)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts, tp
}

// do sends a request (a POST's body declared JSON) and returns the status
// and the body.
func do(t testing.TB, method, url, body, token string) (int, string) {
	t.Helper()
	header := map[string]string{}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	if method == "POST" {
		header["Content-Type"] = "application/json"
	}
	return send(t, method, url, body, header)
}

// send sends a request with the given headers (none added) and returns
// the status and the body.
func send(t testing.TB, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// openSession creates a session and returns its id.
func openSession(t testing.TB, url, body string) string {
	t.Helper()
	status, out := do(t, "POST", url+"/v1/sessions", body, "")
	if status != 201 {
		t.Fatalf("create session %s: %d %s", body, status, out)
	}
	var r SessionResponse
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r.Session
}

// threeJobs is the documented example round (docs/serve.md).
func threeJobs(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("testdata/three-jobs.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// oneLineError checks that body is a one-line JSON error containing want.
func oneLineError(t testing.TB, body, want string) {
	t.Helper()
	var e ErrorResponse
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
		t.Errorf("not a JSON error: %q", body)
		return
	}
	if strings.Count(strings.TrimRight(body, "\n"), "\n") > 0 {
		t.Errorf("error of several lines: %q", body)
	}
	if !strings.Contains(e.Error, want) {
		t.Errorf("error %q does not say %q", e.Error, want)
	}
}

// compact is data as compact JSON.
func compact(t testing.TB, data string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
func envOf(seed uint64) policies.Env { return policies.Env{Seed: seed} }
