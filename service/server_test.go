package service

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestExampleRound: docs/serve.md's three-job, two-node round under
// Pollux gets every job GPUs on the two nodes (none over its GPUs), a
// configuration within each job's hints (batch = GPUs × local × (accum +
// 1), local within localBszBounds, batch at most maxBatchSize), and
// exactly the answer the documentation shows.
func TestExampleRound(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "pollux", "seed": 1}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", threeJobs(t), "")
	if status != 200 {
		t.Fatalf("%d %s", status, out)
	}
	var resp RoundResponse
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	var req RoundRequest
	if err := json.Unmarshal([]byte(threeJobs(t)), &req); err != nil {
		t.Fatal(err)
	}
	used := map[string]int{}
	for i, d := range resp.Jobs {
		h := req.Jobs[i].Hints
		if d.Name != req.Jobs[i].Name || len(d.Allocation) == 0 || d.Config == nil {
			t.Fatalf("job %d: %+v", i, d)
		}
		for _, n := range d.Allocation {
			used[n]++
		}
		c := d.Config
		if c.BatchSize != len(d.Allocation)*c.LocalBsz*(c.AccumSteps+1) || c.LocalBsz < h.LocalBszBounds[0] ||
			c.LocalBsz > h.LocalBszBounds[1] || c.BatchSize > h.MaxBatchSize {
			t.Errorf("%s: %+v on %d GPUs, hints %+v", d.Name, *c, len(d.Allocation), *h)
		}
	}
	if len(used) != 2 || used["node-a"] > 4 || used["node-b"] > 4 {
		t.Errorf("GPUs used per node %v", used)
	}
	want, err := os.ReadFile("testdata/three-jobs.out.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != strings.TrimSpace(string(want)) {
		t.Errorf("answer\n%s\nthe documented one\n%s", out, want)
	}
}

// TestBadRequests: every malformed or inconsistent request gets a 4xx
// and a one-line JSON error naming what is wrong, and changes no session:
// after all of them the session decides the example round as a fresh
// session does.
func TestBadRequests(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{Limits: Limits{MaxBody: 1 << 14, MaxJobs: 3, MaxNodes: 2, MaxSessions: 3}})
	id := openSession(t, ts.URL, `{"policy": "pollux", "seed": 1}`)
	round := ts.URL + "/v1/sessions/" + id + "/rounds"
	good := threeJobs(t)
	// edit replaces the first occurrence of old in the example round.
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("example round has no %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	node := `{"name": "node-b", "gpus": 4, "gpu_type": "t4"}`
	job := `{"name": "bert", "application": "bert", "submission_time": 540, "restarts": 0,`
	cases := []struct {
		name, url, body string
		status          int
		want            string
	}{
		{"unknown job field", round, edit(`"restarts": 1,`, `"restarts": 1, "priority": 3,`), 400, `unknown field "priority"`},
		{"unknown hint", round, edit(`"initBatchSize": 200,`, `"initBatchSize": 200, "initBatch": 2,`), 400, `unknown field "initBatch"`},
		{"misspelt case", round, edit(`"nodes"`, `"Nodes"`), 400, `Nodes`},
		{"duplicate key", round, edit(`"time": 600,`, `"time": 600, "time": 700,`), 400, `time`},
		{"not JSON", round, `{"time": 600,`, 400, "request body"},
		{"NaN", round, edit(`"time": 600`, `"time": NaN`), 400, "request body"},
		{"data after", round, good + "{}", 400, "after the JSON value"},
		{"unknown node", round, edit(`"allocation": ["node-b"]`, `"allocation": ["node-c"]`), 400, `jobs[1].allocation[0]: node "node-c" is not in nodes`},
		{"negative time", round, edit(`"time": 600`, `"time": -1`), 400, "time: want a finite number ≥ 0"},
		{"negative gpus", round, edit(`"gpus": 4, "gpu_type": "t4"}`, `"gpus": -4, "gpu_type": "t4"}`), 400, "nodes[0].gpus: want 1 to 4096, got -4"},
		{"negative restarts", round, edit(`"restarts": 1`, `"restarts": -1`), 400, "jobs[0].restarts: want an integer ≥ 0"},
		{"negative perf param", round, edit(`"alpha_c": 0.05`, `"alpha_c": -0.05`), 400, "jobs[0].hints.perfParams.alpha_c"},
		{"negative grad param", round, edit(`"var": 0.4`, `"var": -0.4`), 400, "jobs[0].hints.gradParams.var"},
		{"huge number", round, edit(`"beta_c": 0.004`, `"beta_c": 1e400`), 400, "request body"},
		{"bounds reversed", round, edit(`[50, 256]`, `[256, 50]`), 400, "jobs[0].hints.localBszBounds"},
		{"deadline before submission", round, edit(`"submission_time": 540,`, `"submission_time": 540, "deadline": 500,`), 400, "jobs[2].deadline: 500 is not after the job's submission_time 540"},
		{"negative interruptions", round, edit(`"submission_time": 540,`, `"submission_time": 540, "interruptions": -1,`), 400, "jobs[2].interruptions: want an integer ≥ 0, got -1"},
		{"racks not dividing the nodes", round, edit(`"time": 600,`, `"time": 600, "racks": 3,`), 400, "racks: racks=3 must divide the cluster's 2 nodes"},
		{"oversubscription below 1", round, edit(`"time": 600,`, `"time": 600, "racks": 1, "oversubscription": 0.5,`), 400, "racks: oversub=0.5 must be a ratio in [1,"},
		{"oversubscription without racks", round, edit(`"time": 600,`, `"time": 600, "oversubscription": 2,`), 400, "racks: oversub=2 needs racks"},
		{"negative min_gpus", round, edit(`"submission_time": 540,`, `"submission_time": 540, "min_gpus": -1,`), 400, "jobs[2].min_gpus: want an integer ≥ 0, got -1"},
		{"min_gpus over the limit", round, edit(`"submission_time": 540,`, `"submission_time": 540, "min_gpus": 9223372036854775807,`), 400, "jobs[2].min_gpus: 9223372036854775807 GPUs, more than the service's limit of 65536 GPUs"},
		{"min_gpus just over the limit", round, edit(`"submission_time": 540,`, `"submission_time": 540, "min_gpus": 70000,`), 400, "jobs[2].min_gpus: 70000 GPUs, more than the service's limit of 65536 GPUs"},
		{"min_gpus above request", round, edit(`"submission_time": 540,`, `"submission_time": 540, "min_gpus": 20, "request_gpus": 16,`), 400, "jobs[2].min_gpus: 20 is above request_gpus 16"},
		{"min_gpus above max_replicas", round, edit(`"submission_time": 540,`, `"submission_time": 540, "min_gpus": 20, "max_replicas": 16,`), 400, "jobs[2].min_gpus: 20 is above max_replicas 16"},
		{"node_unit too large", round, edit(`"submission_time": 540,`, `"submission_time": 540, "node_unit": 5000,`), 400, "jobs[2].node_unit: want 0 to 4096"},
		{"node_unit above every node", round, edit(`"submission_time": 540,`, `"submission_time": 540, "node_unit": 8,`), 400, "jobs[2].node_unit: 8 GPUs, more than the largest node's 4 (an NVLink domain lies within one node)"},
		{"string for a number", round, edit(`"submission_time": 540,`, `"submission_time": 540, "node_unit": "4",`), 400, "request body: jobs[2].node_unit: want an integer, got a string"},
		{"fraction for an integer", round, edit(`"restarts": 1`, `"restarts": 1.5`), 400, "request body: jobs[0].restarts: want an integer, got 1.5"},
		{"number for a name", round, edit(`"name": "bert"`, `"name": 7`), 400, "request body: jobs[2].name: want a string, got a number"},
		{"negative racks", round, edit(`"time": 600,`, `"time": 600, "racks": -1,`), 400, "racks: want an integer ≥ 1 that divides the round's 2 nodes into racks of equal size (leave racks out for one tier), got -1"},
		{"zero racks", round, edit(`"time": 600,`, `"time": 600, "racks": 0,`), 400, "racks: want an integer ≥ 1 that divides the round's 2 nodes into racks of equal size (leave racks out for one tier), got 0"},
		{"negative deadline", round, edit(`"submission_time": 540,`, `"submission_time": 540, "deadline": -5,`), 400, "jobs[2].deadline: want a finite number ≥ 0"},
		{"submitted later", round, edit(`"submission_time": 540`, `"submission_time": 900`), 400, "jobs[2].submission_time: 900 is after the round's time 600"},
		{"replicas over node", round, edit(`"allocation": ["node-b"]`, `"allocation": ["node-b", "node-b", "node-b", "node-b", "node-b"]`), 400, `jobs[1].allocation: 5 replicas on node "node-b", which has 4 GPUs`},
		{"nodes overcommitted", round, edit(`"allocation": ["node-b"]`, `"allocation": ["node-a"]`), 400, `the jobs' allocations hold 5 GPUs of node "node-a", which has 4`},
		{"duplicate node", round, edit(node, `{"name": "node-a", "gpus": 4}`), 400, `nodes[1].name: node "node-a" listed twice`},
		{"duplicate job", round, edit(`"name": "cifar10", "application"`, `"name": "imagenet", "application"`), 400, `jobs[1].name: job "imagenet" listed twice`},
		{"empty name", round, edit(`"name": "bert"`, `"name": ""`), 400, "jobs[2].name"},
		{"no nodes", round, `{"time": 0, "nodes": [], "jobs": []}`, 400, "nodes: want at least one node"},
		{"too many nodes", round, edit(node, node+`, {"name": "node-c", "gpus": 4}`), 400, "3 nodes, more than the service's limit of 2"},
		{"too many jobs", round, edit(job, `{"name": "x", "submission_time": 0, "restarts": 0, "allocation": []}, `+job), 400, "4 jobs, more than the service's limit of 3"},
		{"body too large", round, edit(`"time": 600,`, `"time": 600, "provisioning": 0`+strings.Repeat(" ", 1<<14)+`,`), 413, "larger than the service's limit of 16384 bytes"},
		{"oracle answer, none pending", ts.URL + "/v1/sessions/" + id + "/oracle", `{"query_id": 1, "answers": [{"type": "answer", "value": 1, "ok": true}]}`, 409, "has no pending oracle query"},
		{"unknown session", ts.URL + "/v1/sessions/nosuch/rounds", good, 404, `session "nosuch": no such session`},
		{"unknown policy", ts.URL + "/v1/sessions", `{"policy": "polux"}`, 400, `unknown policy "polux"`},
		{"bad option", ts.URL + "/v1/sessions", `{"policy": "pollux", "options": {"p": "x"}}`, 400, "policy: "},
		{"unknown option", ts.URL + "/v1/sessions", `{"policy": "pollux", "options": {"q": 1}}`, 400, "q"},
		{"bad autoscaler bounds", ts.URL + "/v1/sessions", `{"policy": "pollux", "autoscaler": {"name": "goodput", "min_nodes": 3, "max_nodes": 2}}`, 400, "autoscaler: want 0 ≤ min_nodes ≤ max_nodes"},
		{"no such endpoint", ts.URL + "/v2/x", "", 404, "no such endpoint"},
	}
	for _, c := range cases {
		status, out := do(t, "POST", c.url, c.body, "")
		if status != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, status, c.status, out)
		}
		oneLineError(t, out, c.want)
	}
	status, after := do(t, "POST", round, good, "")
	fresh := openSession(t, ts.URL, `{"policy": "pollux", "seed": 1}`)
	_, first := do(t, "POST", ts.URL+"/v1/sessions/"+fresh+"/rounds", good, "")
	if status != 200 || after != first {
		t.Errorf("after the bad requests %d %s; a fresh session %s", status, after, first)
	}
	// The session limit: 2 open, a third fits, a fourth does not.
	openSession(t, ts.URL, `{"policy": "fifo"}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions", `{"policy": "fifo"}`, "")
	if status != 429 {
		t.Errorf("a session over the limit: %d %s", status, out)
	}
	oneLineError(t, out, "3 sessions open, the service's limit")
}

// TestToken: with a token set, a request without it or with another one
// is refused (401) and the right one accepted; ReadToken reads it from a
// file or the environment, never both.
func TestToken(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{Token: "s3cret"})
	for _, tok := range []string{"", "s3cre", "s3cret2", "S3CRET"} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions", `{"policy": "fifo"}`, tok)
		if status != 401 {
			t.Errorf("token %q: %d %s", tok, status, out)
		}
		oneLineError(t, out, "missing or wrong bearer token")
	}
	if status, out := do(t, "POST", ts.URL+"/v1/sessions", `{"policy": "fifo"}`, "s3cret"); status != 201 {
		t.Errorf("right token: %d %s", status, out)
	}
	file := t.TempDir() + "/token"
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLLUXSIM_TEST_TOKEN", "s3cret")
	for _, c := range []struct{ file, env, want, err string }{
		{file, "", "s3cret", ""},
		{"", "POLLUXSIM_TEST_TOKEN", "s3cret", ""},
		{"", "", "", ""},
		{file, "POLLUXSIM_TEST_TOKEN", "", "set one, not both"},
		{"", "POLLUXSIM_TEST_NO_SUCH", "", "POLLUXSIM_TEST_NO_SUCH is not set"},
		{file + ".none", "", "", "token file"},
	} {
		got, err := ReadToken(c.file, c.env)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ReadToken(%q, %q) = %q, %v", c.file, c.env, got, err)
		}
	}
	// The remote policy carries the token on every request.
	p, err := NewRemote(RemoteOptions{URL: ts.URL, TokenEnv: "POLLUXSIM_TEST_TOKEN", Policy: "fifo", Options: "{}", Timeout: 10}, envOf(1))
	if err != nil {
		t.Fatal(err)
	}
	if p.session == "" {
		t.Error("no session")
	}
	if _, err := NewRemote(RemoteOptions{URL: ts.URL, Policy: "fifo", Options: "{}", Timeout: 10}, envOf(1)); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without the token: %v", err)
	}
}

// TestPolicyPanic: a policy's panic is a 500 with a one-line error for
// that request and closes that session; the service keeps serving.
func TestPolicyPanic(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	bad := openSession(t, ts.URL, `{"policy": "panic"}`)
	good := openSession(t, ts.URL, `{"policy": "fifo"}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions/"+bad+"/rounds", threeJobs(t), "")
	if status != 500 {
		t.Errorf("%d %s", status, out)
	}
	oneLineError(t, out, "policy panic failed: boom; session "+bad+" closed")
	if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+bad+"/rounds", threeJobs(t), ""); status != 404 {
		t.Errorf("the failed session afterwards: %d %s", status, out)
	}
	if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+good+"/rounds", threeJobs(t), ""); status != 200 {
		t.Errorf("another session afterwards: %d %s", status, out)
	}
	if status, _ := do(t, "GET", ts.URL+"/v1/healthz", "", ""); status != 200 {
		t.Errorf("healthz: %d", status)
	}
}

// TestExpiredSession: a session idle past the idle timeout is closed, a
// round waiting for oracle answers included (its policy's goroutine
// unblocked); a busy one is not.
func TestExpiredSession(t *testing.T) {
	s, ts, _ := newTestServer(t, Config{Limits: Limits{IdleTimeout: time.Minute}})
	idle := openSession(t, ts.URL, `{"policy": "fifo"}`)
	oracle := openSession(t, ts.URL, `{"policy": "optimus"}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions/"+oracle+"/rounds", threeJobs(t), "")
	if status != 200 || !strings.Contains(out, `"oracle_queries"`) {
		t.Fatalf("optimus's first answer: %d %s", status, out)
	}
	if n := s.Expire(time.Now()); n != 0 {
		t.Errorf("expired %d sessions before their time", n)
	}
	if n := s.Expire(time.Now().Add(2 * time.Minute)); n != 2 {
		t.Errorf("expired %d sessions, want 2", n)
	}
	for _, id := range []string{idle, oracle} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", threeJobs(t), "")
		if status != 404 {
			t.Errorf("an expired session: %d %s", status, out)
		}
		oneLineError(t, out, "no such session (expired, closed or never created)")
	}
	if s.Sessions() != 0 {
		t.Errorf("%d sessions left", s.Sessions())
	}
}

// TestOracleExchange: Optimus+Oracle's round is a sequence of queries,
// each answered on the same session, then the decision; a round posted
// while a query waits is refused (409) and an answer of the wrong kind
// too (400), neither changing the round.
func TestOracleExchange(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "optimus"}`)
	base := ts.URL + "/v1/sessions/" + id
	status, out := do(t, "POST", base+"/rounds", threeJobs(t), "")
	asked := map[string]int{}
	for n := 0; status == 200 && strings.Contains(out, "oracle_queries"); n++ {
		if n > 1000 {
			t.Fatal("more than 1000 queries")
		}
		var r RoundResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.OracleQueries) != 1 {
			t.Fatalf("%v %s", err, out)
		}
		q := r.OracleQueries[0]
		asked[q.Fact]++
		if n == 0 {
			if st, o := do(t, "POST", base+"/rounds", threeJobs(t), ""); st != 409 {
				t.Errorf("a round while a query waits: %d %s", st, o)
			}
			if st, o := do(t, "POST", base+"/oracle", fmt.Sprintf(`{"query_id": %d, "answers": [{"type": "answer", "value": -1, "ok": true}]}`, r.QueryID), ""); st != 400 {
				t.Errorf("a negative answer: %d %s", st, o)
			}
		}
		// A toy oracle: 10 epochs, 100 steps per epoch at any batch, a
		// step of 1/GPUs seconds.
		v := 0.0
		switch q.Fact {
		case "epochs":
			v = 10
		case "iterations":
			v = float64(100 * (q.Epoch + 1))
		case "iter_time":
			k := 0
			for _, g := range q.Placement {
				k += g
			}
			v = 1 / float64(k)
		case "remaining_iterations":
			v = 500
		}
		status, out = do(t, "POST", base+"/oracle", fmt.Sprintf(`{"query_id": %d, "answers": [{"type": "answer", "value": %v, "ok": true}]}`, r.QueryID, v), "")
	}
	if status != 200 {
		t.Fatalf("%d %s", status, out)
	}
	var r RoundResponse
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Jobs) != 3 {
		t.Fatalf("%v %s", err, out)
	}
	if asked["epochs"] == 0 || asked["iter_time"] == 0 {
		t.Errorf("queries asked %v", asked)
	}
	// Each job gets its cap, the GPUs being enough: Optimus's (its batch
	// over its smallest per-GPU batch, 200/50 for imagenet) or AdaptDL's
	// replica range without request_gpus (2·maxProfiledReplicas: 2 for
	// cifar10, 1 for bert).
	for i, want := range []int{4, 2, 1} {
		if got := len(r.Jobs[i].Allocation); got != want {
			t.Errorf("%s: %d GPUs, want its cap %d: %s", r.Jobs[i].Name, got, want, out)
		}
	}
}

// TestOracleQueryLimit: a round asking more oracle queries than the limit
// is a 500 and closes its session.
func TestOracleQueryLimit(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{Limits: Limits{MaxOracleQueries: 2}})
	id := openSession(t, ts.URL, `{"policy": "optimus"}`)
	base := ts.URL + "/v1/sessions/" + id
	status, out := do(t, "POST", base+"/rounds", threeJobs(t), "")
	for n := 0; status == 200 && n < 5; n++ {
		var r RoundResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		status, out = do(t, "POST", base+"/oracle", fmt.Sprintf(`{"query_id": %d, "answers": [{"type": "answer", "value": 10, "ok": true}]}`, r.QueryID), "")
	}
	if status != 500 {
		t.Fatalf("%d %s", status, out)
	}
	oneLineError(t, out, "policy optimus: the policy asked more than 2 oracle queries in one round; session "+id+" closed")
}
