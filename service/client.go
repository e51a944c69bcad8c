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
		return NewRemote(o, env)
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
// every round by posting it to a session.
type Remote struct {
	base    string
	token   string
	http    *http.Client
	session string
	// policy is the service's policy, as its session names it.
	policy string
	traits policies.Traits
	err    error
}

var (
	_ policies.Policy   = (*Remote)(nil)
	_ policies.Fallible = (*Remote)(nil)
	_ policies.Named    = (*Remote)(nil)
	_ io.Closer         = (*Remote)(nil)
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
	req := SessionRequest{Policy: o.Policy, Options: json.RawMessage(o.Options), Seed: env.Seed, RestartDelay: env.RestartDelay}
	if err := p.call("POST", "/v1/sessions", req, &resp); err != nil {
		return nil, err
	}
	p.session, p.policy = resp.Session, resp.Policy
	p.traits = resp.Traits.Policies()
	return p, nil
}

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

func (p *Remote) round(now float64, c policies.Cluster, jobs []policies.Job) (policies.Decision, error) {
	path := "/v1/sessions/" + p.session
	var resp RoundResponse
	if err := p.call("POST", path+"/rounds", EncodeRound(now, c, jobs), &resp); err != nil {
		return policies.Decision{}, err
	}
	var byName map[string]int
	for len(resp.OracleQueries) > 0 {
		if byName == nil {
			byName = make(map[string]int, len(jobs))
			for i := range jobs {
				byName[jobs[i].Name] = i
			}
		}
		q := resp.OracleQueries[0]
		i, ok := byName[q.Job]
		if !ok || jobs[i].Oracle == nil {
			return policies.Decision{}, fmt.Errorf("the service asked about job %q, which has no oracle this round", q.Job)
		}
		a, err := protocol.AnswerQuery(jobs[i].Oracle, &q)
		if err != nil {
			return policies.Decision{}, fmt.Errorf("the service asked: %w", err)
		}
		id := resp.QueryID
		resp = RoundResponse{}
		if err := p.call("POST", path+"/oracle", OracleAnswers{QueryID: id, Answers: []protocol.Answer{a}}, &resp); err != nil {
			return policies.Decision{}, err
		}
	}
	if len(resp.Jobs) != len(jobs) {
		return policies.Decision{}, fmt.Errorf("the service decided for %d jobs, %d were posted", len(resp.Jobs), len(jobs))
	}
	index := make(map[string]int, c.Nodes)
	for n := range c.Nodes {
		index[NodeName(n)] = n
	}
	dec := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i, d := range resp.Jobs {
		if d.Name != jobs[i].Name {
			return policies.Decision{}, fmt.Errorf("the service's decision %d is for job %q, not %q", i, d.Name, jobs[i].Name)
		}
		if len(d.Allocation) == 0 {
			continue
		}
		a := make([]int, c.Nodes)
		for _, name := range d.Allocation {
			n, ok := index[name]
			if !ok {
				return policies.Decision{}, fmt.Errorf("the service allocated job %q on unknown node %q", d.Name, name)
			}
			a[n]++
		}
		dec.Alloc[i] = a
	}
	return dec, nil
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
