package service

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// perf is a throughput model for hints.
const perf = `"perfParams": {"alpha_c": 0.01, "beta_c": 0.0002, "alpha_n": 0.2, "beta_n": 0.01, "alpha_r": 0.02, "beta_r": 0.002, "gamma": 1.2}`

// oneJobRound is a round of one job (its JSON) on 2 nodes of 4 GPUs.
func oneJobRound(job string) string {
	return `{"time": 60, "nodes": [{"name": "a", "gpus": 4}, {"name": "b", "gpus": 4}], "jobs": [` + job + `]}`
}

// TestHintsFallbacks: a job without hints, or whose hints leave out
// maxBatchSize or localBszBounds (absent, null, [null, null]), is answered
// with AdaptDL's fallbacks (the largest batch maxBatchSize or else
// initBatchSize, the smallest per-GPU batch localBszBounds[0] or else 1,
// the largest localBszBounds[1] or else the largest batch): every number
// of its config within them, or no config for a job that names no batch.
func TestHintsFallbacks(t *testing.T) {
	for i, tc := range []struct {
		policy, job string
		// the bounds the config must keep; maxLocal 0: no config
		minLocal, maxLocal, maxBatch int
	}{
		{"fifo", `{"name": "j", "submission_time": 0, "allocation": [], "request_gpus": 2}`, 0, 0, 0},
		{"fifo", `{"name": "j", "submission_time": 0, "allocation": [], "request_gpus": 2, "request_batch": 64}`, 1, 64, 64},
		{"fifo", `{"name": "j", "submission_time": 0, "allocation": [], "request_gpus": 2, "hints": {"initBatchSize": 64, "maxBatchSize": null}}`, 1, 64, 64},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": []}`, 0, 0, 0},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": [], "hints": {"initBatchSize": 128}}`, 1, 128, 128},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": [], "hints": {"initBatchSize": 128, "maxBatchSize": null, "localBszBounds": null}}`, 1, 128, 128},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": ["a"], "hints": {"initBatchSize": 128, "maxBatchSize": 4096, "localBszBounds": [null, null], "maxProfiledReplicas": 1, ` + perf + `}}`, 1, 4096, 4096},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": ["a"], "hints": {"initBatchSize": 128, "maxBatchSize": 1024, "localBszBounds": [32, null], "maxProfiledReplicas": 1, ` + perf + `}}`, 32, 1024, 1024},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": ["a"], "hints": {"initBatchSize": 128, "maxBatchSize": 1024, "localBszBounds": [null, 64], "maxProfiledReplicas": 1, ` + perf + `}}`, 1, 64, 1024},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": ["a"], "hints": {"initBatchSize": 128, "maxBatchSize": 2147483647, "localBszBounds": [32, 1024], "maxProfiledReplicas": 8, ` + perf + `}}`, 32, 1024, 2147483647},
		{"pollux", `{"name": "j", "submission_time": 0, "allocation": ["a"], "hints": {"initBatchSize": 128, "maxProfiledReplicas": 1000000000, ` + perf + `}}`, 1, 128, 128},
	} {
		t.Run(fmt.Sprintf("%d %s", i, tc.policy), func(t *testing.T) {
			t.Log(tc.job)
			_, ts, _ := newTestServer(t, Config{})
			id := openSession(t, ts.URL, `{"policy": "`+tc.policy+`"}`)
			status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", oneJobRound(tc.job), "")
			if status != 200 {
				t.Fatalf("%d %s", status, out)
			}
			var resp RoundResponse
			if err := json.Unmarshal([]byte(out), &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp.Jobs) != 1 || len(resp.Jobs[0].Allocation) == 0 {
				t.Fatalf("the job got no GPUs, so no config to check: %s", out)
			}
			d := resp.Jobs[0]
			k := len(d.Allocation)
			switch c := d.Config; {
			case tc.maxLocal == 0 && c != nil:
				t.Errorf("config %+v for a job that names no batch, want none", *c)
			case tc.maxLocal == 0:
			case c == nil:
				t.Errorf("no config: %s", out)
			case c.LocalBsz < tc.minLocal || c.LocalBsz > tc.maxLocal || c.AccumSteps < 0 ||
				c.BatchSize != k*c.LocalBsz*(c.AccumSteps+1) || c.BatchSize > tc.maxBatch:
				t.Errorf("config %+v on %d GPUs, want local_bsz in [%d, %d], batch_size = GPUs × local_bsz × (accum_steps + 1) ≤ %d",
					*c, k, tc.minLocal, tc.maxLocal, tc.maxBatch)
			}
		})
	}
}

// TestInconsistentHints: hints that no batch can satisfy, and batch sizes
// past the service's limit, are refused with a 400 naming the field.
func TestInconsistentHints(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "pollux"}`)
	for _, tc := range []struct{ job, want string }{
		{`"hints": {"initBatchSize": 10000, "maxBatchSize": 10}`, "jobs[0].hints.maxBatchSize: 10 is below initBatchSize 10000"},
		{`"hints": {"initBatchSize": 8, "maxBatchSize": 100, "localBszBounds": [500, 600]}`, "jobs[0].hints.localBszBounds: the smallest per-GPU batch 500 is above initBatchSize 8"},
		{`"hints": {"maxBatchSize": 100, "localBszBounds": [500, 600]}`, "jobs[0].hints.localBszBounds: the smallest per-GPU batch 500 is above maxBatchSize 100"},
		{`"request_batch": 50, "hints": {"maxBatchSize": 10}`, "jobs[0].hints.maxBatchSize: 10 is below initBatchSize 50 (or request_batch without it)"},
		{`"hints": {"initBatchSize": 128, "localBszBounds": [64, 32]}`, "jobs[0].hints.localBszBounds: want [min, max] with 0 ≤ min ≤ max"},
		{`"hints": {"initBatchSize": 128, "maxBatchSize": 9223372036854775807}`, "jobs[0].hints.maxBatchSize: 9223372036854775807 samples, more than the service's limit of 2147483647"},
		{`"hints": {"initBatchSize": 4294967296}`, "jobs[0].hints.initBatchSize: 4294967296 samples, more than"},
		{`"hints": {"initBatchSize": 128, "localBszBounds": [1, 4294967296]}`, "jobs[0].hints.localBszBounds: 4294967296 samples, more than"},
		{`"request_batch": 4611686018427387904`, "jobs[0].request_batch: 4611686018427387904 samples, more than"},
		{`"fixed_batch": 4611686018427387904`, "jobs[0].fixed_batch: 4611686018427387904 samples, more than"},
		{`"hints": {"maxBatchSize": 128, ` + perf + `}`, "jobs[0].hints.initBatchSize: missing, and perfParams need it"},
		{`"type_hints": {"t4": {"initBatchSize": 100, "maxBatchSize": 10, ` + perf + `}}`, `jobs[0].type_hints["t4"].maxBatchSize: 10 is below initBatchSize 100`},
	} {
		body := oneJobRound(`{"name": "j", "submission_time": 0, "allocation": [], ` + tc.job + `}`)
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", body, "")
		if status != 400 {
			t.Errorf("%s: %d %s, want 400", tc.job, status, out)
			continue
		}
		oneLineError(t, out, tc.want)
	}
	// The session is unharmed: it decides a sound round.
	if status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", threeJobs(t), ""); status != 200 {
		t.Errorf("after the refusals: %d %s", status, out)
	}
}

// greedyPolicy gives the first job every GPU of every node.
type greedyPolicy struct{}

func (greedyPolicy) Name() string            { return "greedy" }
func (greedyPolicy) Traits() policies.Traits { return policies.Traits{AdaptiveBatch: true} }
func (greedyPolicy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	if len(jobs) > 0 {
		d.Alloc[0] = make([]int, c.Nodes)
		for n := range d.Alloc[0] {
			d.Alloc[0][n] = c.NodeGPUs(n)
		}
	}
	return d
}

// TestDecisionOverCap: a policy that gives a job more GPUs than its batch
// limits allow (8 GPUs for a largest batch of 256 at 64 per GPU at
// least), for which no configuration is within its hints, is a 500 that
// closes the session, not an answer outside the hints.
func TestDecisionOverCap(t *testing.T) {
	reg, _ := testRegistry(t)
	if err := reg.Register(policies.Registration{Name: "greedy", New: func(any, policies.Env) (policies.Policy, error) {
		return greedyPolicy{}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(New(Config{Registry: reg}).Handler())
	defer ts.Close()
	id := openSession(t, ts.URL, `{"policy": "greedy"}`)
	body := oneJobRound(`{"name": "j", "submission_time": 0, "allocation": [], "hints": {"initBatchSize": 128, "maxBatchSize": 256, "localBszBounds": [64, 128]}}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", body, "")
	if status != 500 {
		t.Fatalf("%d %s, want 500", status, out)
	}
	oneLineError(t, out, "policy gave job j 8 GPUs, above its cap of 4")
	if status, _ := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", body, ""); status != 404 {
		t.Errorf("the session after the 500: %d, want 404 (closed)", status)
	}
}
