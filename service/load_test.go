package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// loadPolicies are the policies the load test's sessions take in turn:
// Pollux (a search with state), Tiresias (queues with state),
// Optimus+Oracle (oracle queries) and FIFO.
var loadPolicies = []string{"pollux", "tiresias", "optimus", "fifo"}

// loadRound is round r of session k's closed loop: 4 nodes of 4 GPUs and
// up to 8 jobs that arrive and leave at their own rounds, each holding
// what the previous answer gave it.
func loadRound(k, r int, held map[string][]string, restarts map[string]int) RoundRequest {
	req := RoundRequest{Time: float64(60 * r)}
	for n := range 4 {
		req.Nodes = append(req.Nodes, Node{Name: fmt.Sprintf("node-%d", n), GPUs: 4})
	}
	for i := range 8 {
		start, end := (i*7+k)%23, (i*7+k)%23+40+(i*13+k)%60
		if r < start || r >= end {
			continue
		}
		name := fmt.Sprintf("job-%d", i)
		alloc := held[name]
		if alloc == nil {
			alloc = []string{}
		}
		h := &Hints{InitBatchSize: 64 * (1 + i%3), LocalBszBounds: []int{16, 256}, MaxBatchSize: 4096,
			MaxProfiledReplicas: len(alloc), GradParams: &GradParams{Norm: 0.1 + 0.01*float64(i), Var: 1 + float64(r%7)}}
		if r > start {
			h.PerfParams = &protocol.Params{AlphaC: 0.02 + 0.01*float64(i%4), BetaC: 0.001, AlphaN: 0.3, BetaN: 0.01,
				AlphaR: 0.05, BetaR: 0.005, Gamma: 1.3}
		}
		req.Jobs = append(req.Jobs, Job{Name: name, Application: "app", SubmissionTime: float64(60 * start),
			Restarts: restarts[name], Allocation: alloc, RequestGPUs: 1 + i%4, RequestBatch: 64 * (1 + i%3),
			Epoch: (r - start) / 10, Hints: h})
	}
	return req
}

// toyAnswer answers an oracle query with the facts of a toy job: 10
// epochs of 100 steps, a step of 1/GPUs seconds.
func toyAnswer(q protocol.Query) protocol.Answer {
	a := protocol.Answer{Type: protocol.TypeAnswer, OK: true}
	switch q.Fact {
	case protocol.FactEpochs:
		a.Value = 10
	case protocol.FactIterations:
		a.Value = float64(100 * (q.Epoch + 1))
	case protocol.FactRemainingIterations:
		a.Value = 500
	default:
		k := 0
		for _, g := range q.Placement {
			k += g
		}
		a.Value = 1 / float64(max(k, 1))
	}
	return a
}

// post sends v and decodes the answer, which must be 200.
func post(c *http.Client, url string, v, out any) error {
	body, _ := json.Marshal(v)
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 && resp.StatusCode != 201 {
		return fmt.Errorf("%s: %d %s", url, resp.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}

// loadSession runs session k's closed loop for rounds rounds and returns
// its decisions, one JSON line per round.
func loadSession(c *http.Client, url string, k, rounds int) ([]string, error) {
	var sr SessionResponse
	if err := post(c, url+"/v1/sessions", SessionRequest{Policy: loadPolicies[k%len(loadPolicies)], Seed: uint64(k)}, &sr); err != nil {
		return nil, err
	}
	held, restarts := map[string][]string{}, map[string]int{}
	var out []string
	for r := range rounds {
		var resp RoundResponse
		if err := post(c, url+"/v1/sessions/"+sr.Session+"/rounds", loadRound(k, r, held, restarts), &resp); err != nil {
			return nil, err
		}
		for len(resp.OracleQueries) > 0 {
			q, id := resp.OracleQueries[0], resp.QueryID
			resp = RoundResponse{}
			if err := post(c, url+"/v1/sessions/"+sr.Session+"/oracle", OracleAnswers{QueryID: id, Answers: []protocol.Answer{toyAnswer(q)}}, &resp); err != nil {
				return nil, err
			}
		}
		line, _ := json.Marshal(resp)
		out = append(out, string(line))
		for _, d := range resp.Jobs {
			if len(held[d.Name]) > 0 && fmt.Sprint(held[d.Name]) != fmt.Sprint(d.Allocation) {
				restarts[d.Name]++
			}
			held[d.Name] = d.Allocation
		}
	}
	return out, nil
}

// TestLoad: many sessions at once, each a closed loop of rounds, decide
// exactly what the same sessions decide one by one: 64 sessions × 100
// rounds (about 20 s on two busy cores; 16 × 50 with -short or -race,
// which is several times slower).
func TestLoad(t *testing.T) {
	sessions, rounds := 64, 100
	if testing.Short() || raceEnabled {
		sessions, rounds = 16, 50
	}
	_, ts, _ := newTestServer(t, Config{Limits: Limits{MaxSessions: 2 * sessions}})
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: sessions}, Timeout: 5 * time.Minute}
	start := time.Now()
	alone := make([][]string, sessions)
	for k := range sessions {
		var err error
		if alone[k], err = loadSession(c, ts.URL, k, rounds); err != nil {
			t.Fatal(err)
		}
	}
	mid := time.Now()
	together := make([][]string, sessions)
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for k := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if together[k], err = loadSession(c, ts.URL, k, rounds); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d sessions × %d rounds: one by one %.1f s, at once %.1f s", sessions, rounds, mid.Sub(start).Seconds(), time.Since(mid).Seconds())
	busy := 0
	for k := range sessions {
		for r := range rounds {
			if alone[k][r] != together[k][r] {
				t.Fatalf("session %d round %d: one by one %s, at once %s", k, r, alone[k][r], together[k][r])
			}
			if bytes.Contains([]byte(alone[k][r]), []byte(`"allocation":["node`)) {
				busy++
			}
		}
	}
	if busy < sessions*rounds/2 {
		t.Errorf("only %d of %d rounds allocated anything", busy, sessions*rounds)
	}
}
