package service

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// llmRound is a round of one waiting LLM job (floor minGPUs, request
// and max_replicas 64, node_unit 8) on nodes idle 8-GPU h100 nodes.
func llmRound(nodes, minGPUs int) string {
	var ns []string
	for n := range nodes {
		ns = append(ns, fmt.Sprintf(`{"name": "n%d", "gpus": 8, "gpu_type": "h100"}`, n))
	}
	return fmt.Sprintf(`{"time": 600, "nodes": [%s], "jobs": [{"name": "llm", "submission_time": 0, "restarts": 0,
		"min_gpus": %d, "request_gpus": 64, "max_replicas": 64, "node_unit": 8, "allocation": []}]}`, strings.Join(ns, ", "), minGPUs)
}

// llmGPUs sends round to a pollux session and returns the GPUs its one
// job is given.
func llmGPUs(t *testing.T, url, id, round string) int {
	t.Helper()
	status, out := do(t, "POST", url+"/v1/sessions/"+id+"/rounds", round, "")
	var resp RoundResponse
	if status != 200 || json.Unmarshal([]byte(out), &resp) != nil || len(resp.Jobs) != 1 {
		t.Fatalf("%d %s", status, out)
	}
	return len(resp.Jobs[0].Allocation)
}

// TestLLMFloorAccepted: a floor equal to the request and max_replicas (a
// client of a rigid policy) is accepted, and so is one above the round's
// GPUs (the nodes may grow): that job gets none, not a 400.
func TestLLMFloorAccepted(t *testing.T) {
	_, ts, _ := newTestServer(t, Config{})
	id := openSession(t, ts.URL, `{"policy": "pollux", "seed": 1}`)
	if k := llmGPUs(t, ts.URL, id, llmRound(4, 33)); k != 0 {
		t.Errorf("floor 33 on 32 GPUs: given %d", k)
	}
	id = openSession(t, ts.URL, `{"policy": "fifo"}`)
	if k := llmGPUs(t, ts.URL, id, llmRound(16, 64)); k != 64 {
		t.Errorf("fifo, floor = request = 64 on 128 GPUs: given %d, want 64", k)
	}
}

// TestLLMFloorReached: a waiting LLM job whose floor fits the idle
// cluster (16 × 8 GPUs) gets at least its floor in its first round, for
// floors a single mutation of Pollux's search rarely reaches from an empty
// row (34, 40, 64). Below its floor a job is worth nothing, so the search
// has no slope to climb; before the search was seeded with the floors
// packed on free GPUs (policies/pollux floorseed.go), floors up to 33
// were reached and 34 and above never were, round after round.
func TestLLMFloorReached(t *testing.T) {
	for _, floor := range []int{34, 40, 64} {
		_, ts, _ := newTestServer(t, Config{})
		id := openSession(t, ts.URL, `{"policy": "pollux", "seed": 1}`)
		if k := llmGPUs(t, ts.URL, id, llmRound(16, floor)); k < floor {
			t.Errorf("floor %d on 128 idle GPUs: given %d", floor, k)
		}
	}
}
