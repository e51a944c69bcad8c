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
