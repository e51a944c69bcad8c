package service

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// latencyRound is round r of a cluster of nodes × 4 GPUs with 100 active
// jobs, all with fitted models; 5 jobs leave and 5 arrive every round and
// the gradient statistics drift, so that Pollux searches every round.
func latencyRound(nodes, r int, held map[string][]string) RoundRequest {
	req := RoundRequest{Time: float64(60 * (r + 1))}
	for n := range nodes {
		req.Nodes = append(req.Nodes, Node{Name: fmt.Sprintf("node-%d", n), GPUs: 4})
	}
	for i := range 100 {
		born := r - (i+5*r)%20 // each job lives 20 rounds
		name := fmt.Sprintf("job-%d-%d", i, born)
		alloc := held[name]
		if alloc == nil {
			alloc = []string{}
		}
		req.Jobs = append(req.Jobs, Job{Name: name, Application: "app", SubmissionTime: float64(60 * max(born, 0)),
			Allocation: alloc, RequestGPUs: 1 + i%4, RequestBatch: 128,
			Hints: &Hints{InitBatchSize: 128, LocalBszBounds: []int{32, 256}, MaxBatchSize: 8192,
				MaxProfiledReplicas: max(len(alloc), 1),
				GradParams:          &GradParams{Norm: 0.05 + 0.001*float64(i), Var: 1 + 0.1*float64((i+r)%10)},
				PerfParams: &protocol.Params{AlphaC: 0.02 + 0.002*float64(i%10), BetaC: 0.0005, AlphaN: 0.3, BetaN: 0.01,
					AlphaR: 0.05, BetaR: 0.005, Gamma: 1.3}}})
	}
	return req
}

// percentile is the p-th percentile (nearest rank) of xs.
func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(p/100*float64(len(s))))]
}

// BenchmarkRoundLatency: the latency of a Pollux round with 100 active
// jobs at 16 × 4 and 256 × 4 GPUs, decided in process (Schedule on the
// decoded round) and through the service on a loopback port (encoding,
// HTTP, decoding, deciding, answering), over a closed loop of rounds;
// reports p50 and p99 in milliseconds (docs/performance.md).
//
// FIFO's rounds, which cost next to nothing to decide, measure what the
// service adds to a round of 100 jobs: JSON both ways and the loopback
// HTTP exchange.
func BenchmarkRoundLatency(b *testing.B) {
	for _, pol := range []string{"pollux", "fifo"} {
		for _, nodes := range []int{16, 256} {
			for _, mode := range []string{"in-process", "service"} {
				b.Run(fmt.Sprintf("%s/%dx4/%s", pol, nodes, mode), func(b *testing.B) {
					var lat []float64
					for b.Loop() {
						lat = append(lat, latencyLoop(b, pol, nodes, mode, 40)...)
					}
					b.ReportMetric(percentile(lat, 50)*1e3, "p50-ms")
					b.ReportMetric(percentile(lat, 99)*1e3, "p99-ms")
				})
			}
		}
	}
}

// latencyLoop runs rounds rounds of a fresh session and returns each
// round's latency in seconds.
func latencyLoop(b *testing.B, policy string, nodes int, mode string, rounds int) []float64 {
	held := map[string][]string{}
	var lat []float64
	if mode == "in-process" {
		pol, err := testExt.Policies.Build(policy, "", policies.Env{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		for r := range rounds {
			req := latencyRound(nodes, r, held)
			rd, err := decodeRound(&req, DefaultLimits(), policies.Traits{})
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			d := pol.Schedule(rd.now, rd.cluster, rd.jobs)
			lat = append(lat, time.Since(start).Seconds())
			for i, j := range rd.jobs {
				held[j.Name] = replicas(d.Alloc[i], func(n int) string { return rd.names[n] })
			}
		}
		return lat
	}
	_, ts, _ := newTestServer(b, Config{})
	c := &http.Client{}
	var sr SessionResponse
	if err := post(c, ts.URL+"/v1/sessions", SessionRequest{Policy: policy, Seed: 1}, &sr); err != nil {
		b.Fatal(err)
	}
	for r := range rounds {
		req := latencyRound(nodes, r, held)
		var resp RoundResponse
		start := time.Now()
		if err := post(c, ts.URL+"/v1/sessions/"+sr.Session+"/rounds", req, &resp); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start).Seconds())
		for _, d := range resp.Jobs {
			held[d.Name] = d.Allocation
		}
	}
	return lat
}
