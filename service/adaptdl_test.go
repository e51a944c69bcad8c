package service

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// roundOf posts a round to a new session of policy and returns the
// decoded answer, failing unless it is a 200.
func roundOf(t *testing.T, policy, body string) RoundResponse {
	t.Helper()
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "`+policy+`"}`)
	status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", body, "")
	if status != 200 {
		t.Fatalf("%s: %d %s", policy, status, out)
	}
	var resp RoundResponse
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"desired_nodes":`) {
		t.Errorf("%s: no desired_nodes: %s", policy, out)
	}
	return resp
}

// TestAdaptDLReplicaRange (issue 43, problems 3 and 4): a job without
// request_gpus, as AdaptDL sends it, runs under Tiresias and FIFO on the
// top of AdaptDL's replica range, max(2·maxProfiledReplicas, 1) within
// max_replicas, raised to min_replicas, within what its batch allows
// (every replica localBszBounds[0] samples of the user's batch); a job that never
// asked for an adaptive batch starts on an empty cluster under every
// policy.
func TestAdaptDLReplicaRange(t *testing.T) {
	for i, tc := range []struct {
		job  string
		gpus int
	}{
		{`"hints": {"initBatchSize": 128, "maxBatchSize": null, "localBszBounds": null}`, 1},
		{`"hints": {"initBatchSize": 128, "maxProfiledReplicas": 2}`, 4},
		{`"max_replicas": 3, "hints": {"initBatchSize": 128, "maxProfiledReplicas": 2}`, 3},
		{`"min_replicas": 2, "hints": {"initBatchSize": 128}`, 2},
		{`"min_replicas": 3, "max_replicas": 2`, 3},
		// The user's batch of 64 in replicas of at least 32 samples: 2.
		{`"hints": {"initBatchSize": 64, "maxBatchSize": 96, "localBszBounds": [32, 64], "maxProfiledReplicas": 4, ` + perf + `}`, 2},
		{`"hints": {"initBatchSize": 64, "maxBatchSize": 96, "maxProfiledReplicas": 4}`, 8},
		{`"hints": {"initBatchSize": 64, "maxProfiledReplicas": 1000}`, 8},
	} {
		for _, policy := range []string{"tiresias", "fifo"} {
			t.Run(fmt.Sprintf("%d %s", i, policy), func(t *testing.T) {
				resp := roundOf(t, policy, oneJobRound(`{"name": "j", "submission_time": 0, "allocation": [], `+tc.job+`}`))
				if got := len(resp.Jobs[0].Allocation); got != tc.gpus {
					t.Errorf("%s: %d GPUs, want %d", tc.job, got, tc.gpus)
				}
			})
		}
	}
	for _, policy := range []string{"pollux"} { // Optimus: the Python tests answer its oracle
		resp := roundOf(t, policy, oneJobRound(`{"name": "j", "submission_time": 0, "allocation": [], "hints": {"initBatchSize": 128, "maxBatchSize": null, "localBszBounds": null}}`))
		if len(resp.Jobs[0].Allocation) != 1 {
			t.Errorf("%s: %+v, want the job started on 1 GPU", policy, resp.Jobs[0])
		}
	}
}

// TestAdaptDLKeptOrder (issue 43, problem 5): a kept allocation is
// answered in the order it was given, so that AdaptDL's
// _update_allocations, which compares lists, does not restart the job.
func TestAdaptDLKeptOrder(t *testing.T) {
	given := []string{"b", "a", "b"}
	alloc, _ := json.Marshal(given)
	for _, tc := range []struct{ policy, job string }{
		{"fifo", `"request_gpus": 3`},
		{"tiresias", `"request_gpus": 3`},
		{"pollux", `"preemptible": false, "hints": {"initBatchSize": 128, "maxProfiledReplicas": 3, ` + perf + `}`},
	} {
		resp := roundOf(t, tc.policy, oneJobRound(`{"name": "j", "submission_time": 0, "allocation": `+string(alloc)+`, `+tc.job+`}`))
		if got := resp.Jobs[0].Allocation; !slices.Equal(got, given) {
			t.Errorf("%s: %v, want it kept as given, %v", tc.policy, got, given)
		}
	}
}

// TestAdaptDLDesiredNodes (issue 43, problem 6): every decision carries
// desired_nodes without an autoscaler, at least the nodes in use, at
// most twice the nodes (AdaptDL's virtual nodes), 0 without jobs.
func TestAdaptDLDesiredNodes(t *testing.T) {
	for _, policy := range []string{"pollux", "tiresias", "fifo"} {
		for _, body := range []string{threeJobs(t), oneJobRound(``),
			oneJobRound(`{"name": "j", "submission_time": 0, "allocation": ["a", "b"], "request_gpus": 2, "hints": {"initBatchSize": 128, "maxProfiledReplicas": 1, ` + perf + `}}`)} {
			resp := roundOf(t, policy, body)
			inUse := map[string]bool{}
			for _, d := range resp.Jobs {
				for _, n := range d.Allocation {
					inUse[n] = true
				}
			}
			switch d := resp.DesiredNodes; {
			case len(resp.Jobs) == 0 && d != 0:
				t.Errorf("%s: no jobs, desired_nodes %d, want 0", policy, d)
			case len(resp.Jobs) > 0 && (d < max(len(inUse), 1) || d > 4):
				t.Errorf("%s: desired_nodes %d with %d nodes in use of 2", policy, d, len(inUse))
			}
		}
	}
}

// TestAdaptDLAccumulation (issue 43, problem 7): gradientAccumulation
// false is honoured: no accumulation step in any config, where the same
// job with accumulation allowed takes some.
func TestAdaptDLAccumulation(t *testing.T) {
	for _, tc := range []struct{ policy, job string }{
		// FIFO: the user's batch of 256 on one GPU of at most 64.
		{"fifo", `"request_gpus": 1, "request_batch": 256, "hints": {"initBatchSize": 256, "localBszBounds": [32, 64]}`},
		// Pollux: a noisy job whose best batch is beyond its GPUs' 64 each.
		{"pollux", `"hints": {"initBatchSize": 256, "maxBatchSize": 8192, "localBszBounds": [32, 64], "maxProfiledReplicas": 1, "gradParams": {"norm": 0.001, "var": 10}, ` + perf + `}`},
	} {
		accum := map[bool]int{}
		for _, allowed := range []bool{true, false} {
			job := strings.Replace(tc.job, `"hints": {`, fmt.Sprintf(`"hints": {"gradientAccumulation": %v, `, allowed), 1)
			resp := roundOf(t, tc.policy, oneJobRound(`{"name": "j", "submission_time": 0, "allocation": ["a"], `+job+`}`))
			c := resp.Jobs[0].Config
			if c == nil {
				t.Fatalf("%s: no config: %+v", tc.policy, resp.Jobs[0])
			}
			accum[allowed] = c.AccumSteps
			if k := len(resp.Jobs[0].Allocation); c.LocalBsz > 64 || c.BatchSize != k*c.LocalBsz*(c.AccumSteps+1) {
				t.Errorf("%s, accumulation %v: %+v on %d GPUs", tc.policy, allowed, *c, k)
			}
		}
		if accum[false] != 0 || accum[true] == 0 {
			t.Errorf("%s: accumulation steps %d allowed, %d forbidden; want some, none", tc.policy, accum[true], accum[false])
		}
	}
}

// TestAdaptDLPreemptible (issue 43, problem 7): a non-preemptible job
// keeps its allocation and its GPUs stay its own under every policy; a
// non-preemptible job without GPUs is placed like the others; min_replicas
// is none or at least that many; preemptible nodes are used last.
func TestAdaptDLPreemptible(t *testing.T) {
	pinned := `{"name": "pinned", "submission_time": 0, "allocation": ["b", "a", "b"], "preemptible": false, "request_gpus": 3, "hints": {"initBatchSize": 128, "maxProfiledReplicas": 3, ` + perf + `}}`
	greedy := `{"name": "greedy", "submission_time": 0, "allocation": [], "request_gpus": 5, "hints": {"initBatchSize": 1024, "maxBatchSize": 8192, "localBszBounds": [16, 512], "maxProfiledReplicas": 8, ` + perf + `}}`
	for _, policy := range []string{"pollux", "tiresias", "fifo"} {
		resp := roundOf(t, policy, `{"time": 60, "nodes": [{"name": "a", "gpus": 4}, {"name": "b", "gpus": 4}], "jobs": [`+greedy+`, `+pinned+`]}`)
		if got := resp.Jobs[1].Allocation; !slices.Equal(got, []string{"b", "a", "b"}) {
			t.Errorf("%s: the non-preemptible job got %v, want its own", policy, got)
		}
		used := map[string]int{"a": 1, "b": 2}
		for _, n := range resp.Jobs[0].Allocation {
			if used[n]++; used[n] > 4 {
				t.Errorf("%s: node %s over its GPUs: %+v", policy, n, resp.Jobs)
			}
		}
	}
	for _, policy := range []string{"pollux", "tiresias", "fifo"} {
		resp := roundOf(t, policy, oneJobRound(`{"name": "j", "submission_time": 0, "allocation": [], "min_replicas": 3, "hints": {"initBatchSize": 128, "maxProfiledReplicas": 4, `+perf+`}}`))
		if k := len(resp.Jobs[0].Allocation); k != 0 && k < 3 {
			t.Errorf("%s: min_replicas 3, %d GPUs", policy, k)
		}
		if policy != "pollux" && len(resp.Jobs[0].Allocation) != 8 {
			t.Errorf("%s: %v, want the replica range's top, 8", policy, resp.Jobs[0].Allocation)
		}
	}
	resp := roundOf(t, "fifo", `{"time": 60, "nodes": [{"name": "a", "gpus": 4, "preemptible": true}, {"name": "b", "gpus": 4}], "jobs": [{"name": "j", "submission_time": 0, "allocation": [], "request_gpus": 2}]}`)
	if got := resp.Jobs[0].Allocation; !slices.Equal(got, []string{"b", "b"}) {
		t.Errorf("a job of 2 GPUs on a preemptible node a and a node b: %v, want [b b]", got)
	}
}

// TestAdaptDLBadFields: AdaptDL's fields out of range are a 400 naming
// the field.
func TestAdaptDLBadFields(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "pollux"}`)
	for _, tc := range []struct{ job, want string }{
		{`"min_replicas": -1`, "jobs[0].min_replicas: want an integer ≥ 0"},
		{`"min_replicas": 4, "request_gpus": 2`, "jobs[0].min_replicas: 4 is above request_gpus 2"},
		{`"min_replicas": 9999999`, "jobs[0].min_replicas: 9999999 GPUs, more than the service's limit"},
		{`"min_replicas": 4, "hints": {"initBatchSize": 64, "maxBatchSize": 96, "localBszBounds": [32, 64], ` + perf + `}`, "jobs[0].min_replicas: 4 replicas of at least 32 samples each"},
		{`"preemptible": 1`, "preemptible"},
		{`"hints": {"initBatchSize": 64, "gradientAccumulation": "no"}`, "gradientAccumulation"},
	} {
		status, out := do(t, "POST", ts.URL+"/v1/sessions/"+id+"/rounds", oneJobRound(`{"name": "j", "submission_time": 0, "allocation": [], `+tc.job+`}`), "")
		if status != 400 {
			t.Errorf("%s: %d %s, want 400", tc.job, status, out)
			continue
		}
		oneLineError(t, out, tc.want)
	}
}
