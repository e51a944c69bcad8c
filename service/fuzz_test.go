package service

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/internal/strictjson"
	"github.com/polluxsim/polluxsim/policies"
)

// FuzzRoundRequest: the request decoder never panics, and a round it
// accepts is consistent (no node over its GPUs) and survives the
// client's encoding: EncodeRound of the decoded round, decoded again,
// gives the same cluster and the same job views.
func FuzzRoundRequest(f *testing.F) {
	example, err := os.ReadFile("testdata/three-jobs.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(`{"time": 1, "nodes": [{"name": "a", "gpus": 2, "gpu_type": "a100"}, {"name": "b", "gpus": 8}], "jobs": [{"name": "j", "submission_time": 0, "restarts": 0, "allocation": ["a", "b", "b"], "gpu_types": ["a100"], "type_hints": {"a100": {"initBatchSize": 4, "perfParams": {"alpha_c": 1, "beta_c": 0, "alpha_n": 0, "beta_n": 0, "alpha_r": 0, "beta_r": 0, "gamma": 1}}}}]}`))
	f.Add([]byte(`{"time": 0, "nodes": [{"name": "a", "gpus": 1}], "jobs": [{"name": "j", "submission_time": 0, "restarts": 0, "allocation": ["a", "a"]}]}`))
	f.Add([]byte(`{"time": 7, "nodes": [{"name": "a", "gpus": 2}], "jobs": [{"name": "j", "submission_time": 0, "restarts": 1, "interruptions": 3, "allocation": []}]}`))
	f.Add([]byte(`{"time": 5, "nodes": [{"name": "a", "gpus": 4}], "jobs": [{"name": "j", "submission_time": 1, "restarts": 2, "allocation": [], "hints": {"initBatchSize": 8, "localBszBounds": [1, 2, 3]}}]}`))
	f.Add([]byte(`{"time": 9, "nodes": [{"name": "a", "gpus": 4, "preemptible": true}, {"name": "b", "gpus": 4}], "jobs": [{"name": "p", "submission_time": 0, "restarts": 0, "allocation": ["b", "a", "b"], "preemptible": false, "min_replicas": 2}, {"name": "j", "submission_time": 1, "restarts": 0, "allocation": ["a"], "min_replicas": 3, "max_replicas": 2, "hints": {"initBatchSize": 8, "localBszBounds": [2, null], "gradientAccumulation": false, "maxProfiledReplicas": 1, "perfParams": {"alpha_c": 1, "beta_c": 0, "alpha_n": 0, "beta_n": 0, "alpha_r": 0, "beta_r": 0, "gamma": 1}}}]}`))
	f.Add([]byte(`{"time": 3, "nodes": [{"name": "a", "gpus": 8, "gpu_type": "h100"}, {"name": "b", "gpus": 8, "gpu_type": "h100"}], "racks": 2, "oversubscription": 4, "jobs": [{"name": "l", "submission_time": 0, "restarts": 0, "allocation": ["a", "b"], "min_gpus": 2, "node_unit": 8}]}`))
	lim := Limits{MaxJobs: 64, MaxNodes: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req RoundRequest
		if strictjson.Decode(data, &req) != nil {
			return
		}
		r, err := decodeRound(&req, lim, policies.Traits{})
		if err != nil {
			return
		}
		used := make([]int, r.cluster.Nodes)
		for _, j := range r.jobs {
			for n, v := range j.Alloc {
				used[n] += v
			}
		}
		for n, u := range used {
			if u > r.cluster.NodeGPUs(n) {
				t.Fatalf("node %d: %d GPUs used of %d", n, u, r.cluster.NodeGPUs(n))
			}
		}
		again := EncodeRound(r.now, r.cluster, r.jobs)
		text, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		var req2 RoundRequest
		if err := strictjson.Decode(text, &req2); err != nil {
			t.Fatalf("%v: %s", err, text)
		}
		r2, err := decodeRound(&req2, lim, policies.Traits{})
		if err != nil {
			t.Fatalf("the encoded round is refused: %v: %s", err, text)
		}
		if !reflect.DeepEqual(r.cluster, r2.cluster) {
			t.Fatalf("cluster %+v, again %+v", r.cluster, r2.cluster)
		}
		if !reflect.DeepEqual(r.jobs, r2.jobs) {
			t.Fatalf("jobs\n%+v\nagain\n%+v", r.jobs, r2.jobs)
		}
	})
}
