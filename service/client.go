package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// RemoteOptions are the options of the policy "remote": where the service
// runs, how to authenticate, and the session it is asked to open.
type RemoteOptions struct {
	URL       string  `option:"url" doc:"the service's base URL, e.g. http://127.0.0.1:8080"`
	TokenFile string  `option:"token_file" doc:"file holding the bearer token (none: no token)"`
	TokenEnv  string  `option:"token_env" doc:"environment variable holding the bearer token (none: no token)"`
	Policy    string  `option:"policy" doc:"the policy the service runs"`
	Options   string  `option:"options" doc:"that policy's options, a JSON object"`
	Timeout   float64 `option:"timeout_s" doc:"longest wait for one answer of the service, seconds, in (0, 1e6]"`
}

// Validate implements the options' check.
func (o *RemoteOptions) Validate() error {
	if o.URL != "" && !strings.HasPrefix(o.URL, "http://") && !strings.HasPrefix(o.URL, "https://") {
		return fmt.Errorf("url: want http://HOST:PORT or https://..., got %q", o.URL)
	}
	if o.TokenFile != "" && o.TokenEnv != "" {
		return errors.New("token_file and token_env: set one of them, not both")
	}
	if !(o.Timeout > 0) || o.Timeout > 1e6 {
		return fmt.Errorf("timeout_s: want a positive number of seconds, got %v", o.Timeout)
	}
	if !json.Valid([]byte(o.Options)) || !strings.HasPrefix(strings.TrimSpace(o.Options), "{") {
		return fmt.Errorf("options: want a JSON object, got %q", o.Options)
	}
	return nil
}

// RemoteRegistration is the registration of the policy "remote", a
// policy run by a polluxsim serve service (the CLI adds it to its
// extensions).
func RemoteRegistration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: "remote",
		Doc:  "a policy run by a polluxsim serve service: every round is posted to it (docs/serve.md)",
		// url, token_file and token_env
		Effects: policies.ReachesNetwork | policies.ReadsFiles | policies.ReadsEnv,
	}, func() RemoteOptions {
		return RemoteOptions{Policy: "pollux", Options: "{}", Timeout: 600}
	}, func(o RemoteOptions, env policies.Env) (policies.Policy, error) {
		p, err := NewRemote(o, env)
		if err != nil {
			return nil, err
		}
		switch {
		case p.incremental && p.admission:
			return &RemoteAdmittingIncremental{&RemoteIncremental{Remote: p, views: protocol.NewTracker(), names: map[string]*policies.Job{}}}, nil
		case p.incremental:
			return &RemoteIncremental{Remote: p, views: protocol.NewTracker(), names: map[string]*policies.Job{}}, nil
		case p.admission:
			return &RemoteAdmitting{p}, nil
		}
		return p, nil
	})
}

// maxTokenBytes bounds a token file.
const maxTokenBytes = 4096

// ReadToken reads a bearer token from a file (file) or an environment
// variable (env), at most one of them set; neither gives "" (no token).
// The token is never a command-line value, which other users see in ps.
func ReadToken(file, env string) (string, error) {
	o := RemoteOptions{TokenFile: file, TokenEnv: env}
	if file != "" && env != "" {
		return "", errors.New("a token from a file or from the environment: set one, not both")
	}
	switch {
	case o.TokenFile != "":
		f, err := inputfile.Open(o.TokenFile)
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
		if err != nil {
			return "", fmt.Errorf("token file %s: %w", o.TokenFile, err)
		}
		if len(data) > maxTokenBytes {
			return "", fmt.Errorf("token file %s: longer than %d bytes", o.TokenFile, maxTokenBytes)
		}
		t := strings.TrimSpace(string(data))
		if t == "" {
			return "", fmt.Errorf("token file %s: empty", o.TokenFile)
		}
		return t, nil
	case o.TokenEnv != "":
		t := strings.TrimSpace(os.Getenv(o.TokenEnv))
		if t == "" {
			return "", fmt.Errorf("token: environment variable %s is not set or empty", o.TokenEnv)
		}
		return t, nil
	}
	return "", nil
}

// Remote is the policy "remote": a client of the service that decides
// every round by posting it to a session. The policy's stats, when it
// reports any, come back with each decision and are its PolicyStats.
type Remote struct {
	base    string
	token   string
	http    *http.Client
	session string
	// policy is the service's policy, as its session names it.
	policy string
	traits policies.Traits
	err    error
	// incremental says the session's policy decides incrementally.
	incremental bool
	// admission says the session's policy has admission control.
	admission bool
	stats     policies.Stats
}

// RemoteIncremental is a Remote whose service's policy decides
// incrementally (policies.Incremental): a run decided incrementally posts
// only what changed each round (POST /v1/sessions/{id}/changes; which
// views, protocol.Tracker says), as the engine gives an incremental policy
// in process.
type RemoteIncremental struct {
	*Remote
	views *protocol.Tracker
	names map[string]*policies.Job // the tracked jobs, for oracle queries
}

var (
	_ policies.Policy        = (*Remote)(nil)
	_ policies.Fallible      = (*Remote)(nil)
	_ policies.Named         = (*Remote)(nil)
	_ policies.StatsReporter = (*Remote)(nil)
	_ io.Closer              = (*Remote)(nil)
	_ policies.Incremental   = (*RemoteIncremental)(nil)
)

// NewRemote opens a session on the service for the run.
func NewRemote(o RemoteOptions, env policies.Env) (*Remote, error) {
	if o.URL == "" {
		return nil, errors.New("url: set the service's base URL (--policy-opt url=http://HOST:PORT)")
	}
	token, err := ReadToken(o.TokenFile, o.TokenEnv)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	p := &Remote{base: strings.TrimRight(o.URL, "/"), token: token,
		http: &http.Client{Transport: tr, Timeout: time.Duration(o.Timeout * float64(time.Second))}}
	var resp SessionResponse
	req := SessionRequest{Policy: o.Policy, Options: json.RawMessage(o.Options), Seed: env.Seed, RestartDelay: env.RestartDelay,
		PolicyStats: true}
	if err := p.call("POST", "/v1/sessions", req, &resp); err != nil {
		return nil, err
	}
	p.session, p.policy = resp.Session, resp.Policy
	p.traits = resp.Traits.Policies()
	p.incremental, p.admission = resp.Incremental, resp.Admission
	return p, nil
}

// PolicyStats implements policies.StatsReporter: what the service's
// policy reported with its latest decision (nothing if it reports
// nothing).
func (p *Remote) PolicyStats() policies.Stats { return p.stats }

// Name implements policies.Policy.
func (p *Remote) Name() string { return "remote" }

// ReportedName implements policies.Named: the service's policy, as the
// session names it (a run's policy_name; its policy is "remote").
func (p *Remote) ReportedName() string { return p.policy }

// Traits implements policies.Policy: the service's policy's.
func (p *Remote) Traits() policies.Traits { return p.traits }

// Err implements policies.Fallible: why the latest round failed.
func (p *Remote) Err() error { return p.err }

// Close implements io.Closer: it closes the session (the run pipeline
// calls it when a run ends). A session that cannot be closed expires.
func (p *Remote) Close() error {
	if p.session == "" {
		return nil
	}
	err := p.call("DELETE", "/v1/sessions/"+p.session, nil, nil)
	p.session = ""
	p.http.CloseIdleConnections()
	return err
}

// Schedule implements policies.Policy: it posts the round, answers the
// service's oracle queries from the jobs' oracles and returns the
// service's decision. A failure leaves no decision and sets Err.
func (p *Remote) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	if p.err != nil {
		return policies.Decision{}
	}
	dec, err := p.round(now, c, jobs)
	if err != nil {
		p.err = err
		return policies.Decision{}
	}
	return dec
}

// post posts a round's body to the session's endpoint (rounds, changes
// or admissions), answers the service's oracle queries from the jobs job
// finds by name, and returns the decision.
func (p *Remote) post(endpoint string, body any, job func(name string) *policies.Job) (RoundResponse, error) {
	path := "/v1/sessions/" + p.session
	var resp RoundResponse
	if err := p.call("POST", path+"/"+endpoint, body, &resp); err != nil {
		return resp, err
	}
	for len(resp.OracleQueries) > 0 {
		q := resp.OracleQueries[0]
		j := job(q.Job)
		if j == nil || j.Oracle == nil {
			return resp, fmt.Errorf("the service asked about job %q, which has no oracle this round", q.Job)
		}
		a, err := protocol.AnswerQuery(j.Oracle, &q)
		if err != nil {
			return resp, fmt.Errorf("the service asked: %w", err)
		}
		id := resp.QueryID
		resp = RoundResponse{}
		if err := p.call("POST", path+"/oracle", OracleAnswers{QueryID: id, Answers: []protocol.Answer{a}}, &resp); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

func (p *Remote) round(now float64, c policies.Cluster, jobs []policies.Job) (policies.Decision, error) {
	var byName map[string]int
	resp, err := p.post("rounds", EncodeRound(now, c, jobs), func(name string) *policies.Job {
		if byName == nil {
			byName = make(map[string]int, len(jobs))
			for i := range jobs {
				byName[jobs[i].Name] = i
			}
		}
		if i, ok := byName[name]; ok {
			return &jobs[i]
		}
		return nil
	})
	if err != nil {
		return policies.Decision{}, err
	}
	p.stats = resp.PolicyStats.Stats()
	if len(resp.Jobs) != len(jobs) {
		return policies.Decision{}, fmt.Errorf("the service decided for %d jobs, %d were posted", len(resp.Jobs), len(jobs))
	}
	index := nodeIndex(c)
	dec := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i, d := range resp.Jobs {
		if d.Name != jobs[i].Name {
			return policies.Decision{}, fmt.Errorf("the service's decision %d is for job %q, not %q", i, d.Name, jobs[i].Name)
		}
		if dec.Alloc[i], err = perNode(c, index, d.Allocation); err != nil {
			return policies.Decision{}, fmt.Errorf("the service allocated job %q %w", d.Name, err)
		}
	}
	return dec, nil
}

// nodeIndex numbers the nodes of c by their names (NodeName).
func nodeIndex(c policies.Cluster) map[string]int {
	index := make(map[string]int, c.Nodes)
	for n := range c.Nodes {
		index[NodeName(n)] = n
	}
	return index
}

// perNode is an allocation given as the node of each replica as GPUs
// per node (nil for none).
func perNode(c policies.Cluster, index map[string]int, replicas []string) ([]int, error) {
	if len(replicas) == 0 {
		return nil, nil
	}
	a := make([]int, c.Nodes)
	for _, name := range replicas {
		n, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("on unknown node %q", name)
		}
		a[n]++
	}
	return a, nil
}

// ScheduleIncremental implements policies.Incremental: it posts the
// round's arrivals and completions and the views that changed, answers
// the service's oracle queries, and returns the service's changes. A
// failure returns none and sets Err.
func (p *RemoteIncremental) ScheduleIncremental(now float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
	if p.err != nil {
		return nil
	}
	cs, err := p.changes(now, c, r)
	if err != nil {
		p.err = err
		return nil
	}
	return cs
}

func (p *RemoteIncremental) changes(now float64, c policies.Cluster, r policies.IncrementalRound) ([]policies.Change, error) {
	req := ChangesRequest{Time: now, Nodes: encodeNodes(c), Removed: r.Removed, Racks: racksOf(c), Oversubscription: c.Oversubscription}
	for _, k := range r.Removed {
		if j := p.views.Job(k); j != nil {
			delete(p.names, j.Name)
		}
	}
	for _, t := range r.Added {
		p.names[t.Job.Name] = t.Job
		req.Added = append(req.Added, KeyedJob{Key: t.Key, Job: encodeJob(t.Job)})
	}
	for _, t := range p.views.Round(r) {
		req.Updated = append(req.Updated, KeyedJob{Key: t.Key, Job: encodeJob(t.Job)})
	}
	resp, err := p.post("changes", req, func(name string) *policies.Job { return p.names[name] })
	if err != nil {
		return nil, err
	}
	p.stats = resp.PolicyStats.Stats()
	index := nodeIndex(c)
	cs := make([]policies.Change, len(resp.Changes))
	for i, ch := range resp.Changes {
		if !p.views.Changed(ch.Key) {
			return nil, fmt.Errorf("the service changed the allocation of job key %d, which is not tracked", ch.Key)
		}
		a, err := perNode(c, index, ch.Allocation)
		if err != nil {
			return nil, fmt.Errorf("the service allocated job key %d %w", ch.Key, err)
		}
		cs[i] = policies.Change{Key: ch.Key, Alloc: a}
	}
	return cs, nil
}

// maxResponse bounds an answer of the service: the service's own default
// bound on its answers.
const maxResponse = DefaultMaxResponse

// call posts in as JSON and decodes the answer into out; a non-2xx answer
// is an error carrying the service's message.
func (p *Remote) call(method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("service %s: %w", p.base, err)
		}
	}
	req, err := http.NewRequest(method, p.base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("service %s: %w", p.base, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return fmt.Errorf("service %s: %w", p.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("service %s: %s %s: %w", p.base, method, path, err)
	}
	if len(data) > maxResponse {
		return fmt.Errorf("service %s: %s %s: answer larger than %d bytes", p.base, method, path, maxResponse)
	}
	if resp.StatusCode/100 != 2 {
		var e ErrorResponse
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return fmt.Errorf("service %s: %s %s: %s: %s", p.base, method, path, resp.Status, e.Error)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("service %s: %s %s: %w", p.base, method, path, err)
	}
	return nil
}
