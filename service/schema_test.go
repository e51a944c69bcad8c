package service

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/schematest"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// goDefs are the Go types of the schema's service_* definitions
// (policies/protocol/schema.json).
var goDefs = map[string]reflect.Type{
	"service_session_request":    reflect.TypeFor[SessionRequest](),
	"service_autoscaler_request": reflect.TypeFor[AutoscalerRequest](),
	"service_session_response":   reflect.TypeFor[SessionResponse](),
	"service_round_request":      reflect.TypeFor[RoundRequest](),
	"service_node":               reflect.TypeFor[Node](),
	"service_job":                reflect.TypeFor[Job](),
	"service_hints":              reflect.TypeFor[Hints](),
	"service_grad_params":        reflect.TypeFor[GradParams](),
	"service_round_answer":       reflect.TypeFor[RoundResponse](),
	"service_decision":           reflect.TypeFor[Decision](),
	"service_job_config":         reflect.TypeFor[JobConfig](),
	"service_oracle_answers":     reflect.TypeFor[OracleAnswers](),
	"service_error":              reflect.TypeFor[ErrorResponse](),
	"service_changes_request":    reflect.TypeFor[ChangesRequest](),
	"service_keyed_job":          reflect.TypeFor[KeyedJob](),
	"service_job_change":         reflect.TypeFor[JobChange](),
	"service_policy_stats":       reflect.TypeFor[PolicyStats](),
	"service_admission_request":  reflect.TypeFor[AdmissionRequest](),
}

func isService(def string) bool { return strings.HasPrefix(def, "service_") }

// TestGoTypesMatchSchema: every service_* object definition of the
// protocol's schema has a Go type of this package and every message type
// here a definition, its JSON fields the definition's properties, the
// fields without omitempty exactly its required ones, and no other
// property allowed.
func TestGoTypesMatchSchema(t *testing.T) {
	root := schematest.MustLoad(t, protocol.Schema)
	schematest.CheckGoTypes(t, root, goDefs, isService)
}

// TestMessagesMatchSchema: the bodies of real exchanges with a server
// validate against their service_* definitions: session requests (with
// an autoscaler too) and the server's session responses, the documented
// example round and its documented answer, the answers of Pollux with an
// autoscaler and of Optimus+Oracle (its oracle queries, the oracle answers
// posted back, its decision), and an error.
func TestMessagesMatchSchema(t *testing.T) {
	root := schematest.MustLoad(t, protocol.Schema)
	check := func(def, body string) {
		t.Helper()
		schematest.ValidateJSON(t, root, def, []byte(body))
	}
	_, ts, _ := newTestServer(t, Config{})
	open := func(body string) string {
		t.Helper()
		check("service_session_request", body)
		status, out := do(t, "POST", ts.URL+"/v1/sessions", body, "")
		if status != 201 {
			t.Fatalf("create session %s: %d %s", body, status, out)
		}
		check("service_session_response", out)
		var r SessionResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Session
	}
	round := threeJobs(t)
	check("service_round_request", round)
	want, err := os.ReadFile("testdata/three-jobs.out.json")
	if err != nil {
		t.Fatal(err)
	}
	check("service_round_answer", string(want))

	scaled := open(`{"policy": "pollux", "seed": 1, "restart_delay_s": 30, "options": {}, "autoscaler": {"name": "goodput", "min_nodes": 1, "max_nodes": 4}}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions/"+scaled+"/rounds", round, "")
	if status != 200 || !strings.Contains(out, `"desired_nodes"`) {
		t.Fatalf("pollux with an autoscaler: %d %s", status, out)
	}
	check("service_round_answer", out)

	base := ts.URL + "/v1/sessions/" + open(`{"policy": "optimus", "seed": 0}`)
	status, out = do(t, "POST", base+"/rounds", round, "")
	queries := 0
	for ; status == 200 && strings.Contains(out, "oracle_queries"); queries++ {
		if queries > 1000 {
			t.Fatal("more than 1000 queries")
		}
		check("service_round_answer", out)
		var r RoundResponse
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.OracleQueries) != 1 {
			t.Fatalf("%v %s", err, out)
		}
		answers, err := json.Marshal(OracleAnswers{QueryID: r.QueryID, Answers: []protocol.Answer{toyAnswer(r.OracleQueries[0])}})
		if err != nil {
			t.Fatal(err)
		}
		check("service_oracle_answers", string(answers))
		status, out = do(t, "POST", base+"/oracle", string(answers), "")
	}
	if status != 200 || queries == 0 || !strings.Contains(out, `"jobs"`) {
		t.Fatalf("optimus after %d queries: %d %s", queries, status, out)
	}
	check("service_round_answer", out)

	status, out = do(t, "POST", ts.URL+"/v1/sessions/none/rounds", round, "")
	if status != 404 {
		t.Fatalf("no such session: %d %s", status, out)
	}
	check("service_error", out)
}

// TestValidatorRejectsService: bodies with an unknown field, without a
// required one or with a value of the wrong type fail their definition.
func TestValidatorRejectsService(t *testing.T) {
	root := schematest.MustLoad(t, protocol.Schema)
	for _, c := range []struct{ def, body string }{
		{"service_session_request", `{"policy": "pollux", "seed": 1, "sed": 2}`},
		{"service_session_request", `{"seed": 1}`},
		{"service_session_request", `{"policy": "pollux", "seed": -1}`},
		{"service_session_request", `{"policy": "pollux", "seed": 1, "autoscaler": {"name": "goodput", "min_nodes": 1}}`},
		{"service_round_request", `{"time": 0, "nodes": []}`},
		{"service_round_request", `{"time": 0, "nodes": [], "jobs": [], "extra": 1}`},
		{"service_round_request", `{"time": 0, "nodes": [{"name": "a", "gpus": 1.5}], "jobs": []}`},
		{"service_round_request", `{"time": 0, "nodes": [], "jobs": [{"name": "a", "submission_time": 0, "restarts": 0}]}`},
		{"service_round_request", `{"time": 0, "nodes": [], "jobs": [{"name": "a", "submission_time": 0, "restarts": 0, "allocation": [], "hints": {"initBatchSize": 1, "perfParams": {"alpha_c": 1}}}]}`},
		{"service_round_answer", `{"jobs": [{"name": "a", "allocation": ["n"], "config": {"local_bsz": 1, "accum_steps": 0}}]}`},
		{"service_round_answer", `{"oracle_queries": [{"type": "query", "job": "a", "fact": "age"}]}`},
		{"service_oracle_answers", `{"answers": [{"type": "answer", "value": 1}]}`},
		{"service_error", `{"message": "x"}`},
		{"service_nothing", `{}`},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.body), &v); err != nil {
			t.Fatal(err)
		}
		if root.ValidateDef(c.def, v) == nil {
			t.Errorf("%s %s: valid", c.def, c.body)
		}
	}
}
