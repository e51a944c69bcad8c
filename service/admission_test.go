package service

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/schematest"
	"github.com/polluxsim/polluxsim/policies/edf"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// admissionBody is an admission request for job "new", submitted at 100
// with the given deadline, one job active, on two nodes of four GPUs.
func admissionBody(deadline float64, newAlloc string) string {
	return fmt.Sprintf(`{"time": 100, "nodes": [{"name": "a", "gpus": 4}, {"name": "b", "gpus": 4}],
	 "job": {"name": "new", "application": "cifar10", "submission_time": 100, "deadline": %v, "restarts": 0,
	         "allocation": %s, "request_gpus": 2, "request_batch": 256},
	 "active": [{"name": "old", "application": "cifar10", "submission_time": 10, "restarts": 0,
	             "allocation": ["a"], "request_gpus": 1, "request_batch": 128}]}`, deadline, newAlloc)
}

// TestAdmissions: a session of a policy with admission control says so
// and answers admission requests, its oracle queries first, with the
// job's name and the reason it is declined; the bodies validate against
// the schema. EDF's rule in closed form: with 1,000 steps left at 1 s a
// step, the job submitted at 100 finishes at 1,100 at the earliest (no
// restart delay): declined with a deadline of 1,099, admitted with 1,100.
// A session without admission control, and malformed requests, are
// refused naming the field.
func TestAdmissions(t *testing.T) {
	root := schematest.MustLoad(t, protocol.Schema)
	_, ts, _ := newTestServer(t, Config{})
	open := func(body string) SessionResponse {
		t.Helper()
		status, out := do(t, "POST", ts.URL+"/v1/sessions", body, "")
		if status != 201 {
			t.Fatalf("create session: %d %s", status, out)
		}
		schematest.ValidateJSON(t, root, "service_session_response", []byte(out))
		var r SessionResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	s := open(`{"policy": "edf", "options": {"admission": true}, "seed": 1}`)
	if !s.Admission {
		t.Fatal("an EDF session with admission does not say so")
	}
	ask := func(deadline float64) RoundResponse {
		t.Helper()
		body := admissionBody(deadline, "[]")
		schematest.ValidateJSON(t, root, "service_admission_request", []byte(body))
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+s.Session+"/admissions", body, "")
		for {
			if status != 200 {
				t.Fatalf("admission: %d %s", status, out)
			}
			schematest.ValidateJSON(t, root, "service_round_answer", []byte(out))
			var r RoundResponse
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.OracleQueries) == 0 {
				return r
			}
			q := r.OracleQueries[0]
			if q.Job != "new" {
				t.Errorf("asked about job %q", q.Job)
			}
			a := protocol.Answer{Type: protocol.TypeAnswer, Value: 1, OK: true}
			if q.Fact == protocol.FactRemainingIterations {
				a.Value = 1000
			}
			ans, _ := json.Marshal(OracleAnswers{QueryID: r.QueryID, Answers: []protocol.Answer{a}})
			status, out = do(t, "POST", ts.URL+"/v1/sessions/"+s.Session+"/oracle", string(ans), "")
		}
	}
	if r := ask(1099); r.Job != "new" || r.Declined != edf.DeclineReason {
		t.Errorf("deadline 1099: %+v, want declined", r)
	}
	if r := ask(1100); r.Job != "new" || r.Declined != "" {
		t.Errorf("deadline 1100: %+v, want admitted", r)
	}
	if f := open(`{"policy": "fifo", "seed": 1}`); f.Admission {
		t.Error("a FIFO session says it has admission control")
	} else if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+f.Session+"/admissions", admissionBody(1100, "[]"), ""); status != 409 || !strings.Contains(out, "has no admission control") {
		t.Errorf("admission in a FIFO session: %d %s", status, out)
	}
	for _, tc := range []struct{ body, want string }{
		{admissionBody(1100, `["b"]`), "job.allocation: the job asked about is being submitted"},
		{strings.Replace(admissionBody(1100, "[]"), `"name": "old"`, `"name": ""`, 1), "active[0].name"},
		{strings.Replace(admissionBody(1100, "[]"), `"deadline": 1100`, `"deadline": 50`, 1), "job.deadline"},
		{`{"time": 1, "nodes": [], "job": {}, "active": [], "extra": 1}`, "extra"},
	} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+s.Session+"/admissions", tc.body, "")
		if status != 400 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s, want 400 naming %q", tc.body, status, out, tc.want)
		}
	}
	if r := ask(1099); r.Declined != edf.DeclineReason { // the refusals changed nothing
		t.Errorf("after the refusals: %+v", r)
	}
}

// A job that names no batch has no run to ask about. In an admission it
// is a 400 naming job.request_batch (active[i].request_batch for an
// active job), whatever the admitting policy: before, EDF admitted it, and
// ElasticFlow and EDF with admission asked their oracle about batch −2^63
// (the batch split by a per-GPU limit of 0, +Inf cast to an integer). In a
// round it is a 400 when the job has a deadline and the policy asks its
// oracle about runs at the job's batch (Chronus); without a deadline it is
// scheduled as before, its oracle asked about a finite, positive batch.
// With a batch and a deadline of 10^308 s the admission runs to its
// answer, every query at the job's batch. Tiresias, which needs no batch,
// takes such a job (AdaptDL's may name none).
func TestAdmissionNeedsABatch(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	nodes := `"nodes": [{"name": "a", "gpus": 4}]`
	// answer drives a round or an admission through its oracle queries,
	// checking each asks about batch want (0: any positive batch).
	answer := func(pol, base string, status int, out string, want int) RoundResponse {
		t.Helper()
		for n := 0; ; n++ {
			if status != 200 || n > 1000 {
				t.Fatalf("%s: %d %s", pol, status, out)
			}
			var r RoundResponse
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.OracleQueries) == 0 {
				return r
			}
			q := r.OracleQueries[0]
			if q.Batch < 0 || q.Fact == protocol.FactRemainingIterations && (q.Batch < 1 || want > 0 && q.Batch != want) {
				t.Errorf("%s: query %+v, want batch %d", pol, q, want)
			}
			a := protocol.Answer{Type: protocol.TypeAnswer, Value: 1, OK: true}
			if q.Fact == protocol.FactRemainingIterations || q.Fact == protocol.FactIterations {
				a.Value = 1000
			}
			ans, _ := json.Marshal(OracleAnswers{QueryID: r.QueryID, Answers: []protocol.Answer{a}})
			status, out = do(t, "POST", base+"/oracle", string(ans), "")
		}
	}
	active := `{"name": "old", "application": "cifar10", "request_gpus": 1, "request_batch": 128, "allocation": ["a"]}`
	for _, pol := range []string{`"edf"`, `"edf", "options": {"admission": true}`, `"edf-elastic", "options": {"admission": true}`, `"elasticflow"`} {
		id := openSession(t, ts.URL, `{"policy": `+pol+`, "seed": 1}`)
		base := ts.URL + "/v1/sessions/" + id
		for _, tc := range []struct{ job, active, want string }{
			{`{"name": "a", "deadline": 1e308}`, "", "job.request_batch: missing"},
			{`{"name": "a"}`, "", "job.request_batch: missing"},
			{`{"name": "a", "request_gpus": 2, "deadline": 1e308}`, active, "job.request_batch: missing"},
			{`{"name": "a", "request_gpus": 2, "request_batch": 64}`, `{"name": "old", "allocation": []}`, "active[0].request_batch: missing"},
		} {
			status, out := do(t, "POST", base+"/admissions", `{"time": 0, `+nodes+`, "job": `+tc.job+`, "active": [`+tc.active+`]}`, "")
			if status != 400 {
				t.Errorf("%s: admission of %s: %d %s, want 400", pol, tc.job, status, out)
			}
			oneLineError(t, out, tc.want)
		}
		body := `{"time": 0, ` + nodes + `, "job": {"name": "a", "application": "cifar10", "deadline": 1e308, "request_gpus": 1, "request_batch": 128}, "active": []}`
		status, out := do(t, "POST", base+"/admissions", body, "")
		if r := answer(pol, base, status, out, 128); r.Job != "a" || r.Declined != "" {
			t.Errorf("%s: %+v, want job a admitted", pol, r)
		}
	}
	id := openSession(t, ts.URL, `{"policy": "chronus", "seed": 1}`)
	base := ts.URL + "/v1/sessions/" + id
	status, out := do(t, "POST", base+"/rounds", `{"time": 0, `+nodes+`, "jobs": [{"name": "a", "deadline": 1e308, "allocation": []}]}`, "")
	if status != 400 {
		t.Errorf("chronus: round of a job with a deadline and no batch: %d %s, want 400", status, out)
	}
	oneLineError(t, out, "jobs[0].request_batch: missing; the job has a deadline")
	status, out = do(t, "POST", base+"/rounds", `{"time": 0, `+nodes+`, "jobs": [{"name": "a", "allocation": []}]}`, "")
	answer("chronus", base, status, out, 0)
	id = openSession(t, ts.URL, `{"policy": "tiresias", "seed": 1}`)
	if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", `{"time": 0, `+nodes+`, "jobs": [{"name": "a", "deadline": 100, "allocation": []}]}`, ""); status != 200 {
		t.Errorf("tiresias: round of a job without a batch: %d %s, want 200", status, out)
	}
}

// Every POST on a session finds the session first: an unknown one is a
// 404 naming it whatever the body (before, a bad body was a 400 about the
// body); a known one with a bad body is a 400 about the body.
func TestSessionFoundFirst(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "edf", "options": {"admission": true}, "seed": 1}`)
	for _, ep := range []string{"rounds", "changes", "admissions", "oracle"} {
		for _, body := range []string{`{"bogus": 1}`, `{}`, `not json`} {
			status, out := do(t, "POST", ts.URL+"/v1/sessions/nosuch/"+ep, body, "")
			if status != 404 {
				t.Errorf("%s of an unknown session, body %s: %d %s, want 404", ep, body, status, out)
			}
			oneLineError(t, out, `session "nosuch": no such session`)
		}
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/"+ep, `{"bogus": 1}`, "")
		if status != 400 {
			t.Errorf("%s with a bad body: %d %s, want 400", ep, status, out)
		}
		oneLineError(t, out, `request body: unknown field "bogus"`)
	}
}
