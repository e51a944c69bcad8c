package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/internal/strictjson"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// Limits bound what the service accepts and keeps.
type Limits struct {
	// MaxBody is the largest request body, bytes.
	MaxBody int64
	// MaxJobs and MaxNodes bound one round's jobs and nodes.
	MaxJobs, MaxNodes int
	// MaxSessions bounds the sessions alive at once.
	MaxSessions int
	// IdleTimeout is how long a session lives without a request (a round
	// waiting for oracle answers included).
	IdleTimeout time.Duration
	// MaxOracleQueries bounds the oracle queries of one round that the
	// session's cache does not answer.
	MaxOracleQueries int
	// MaxGPUs bounds the GPUs of one round's nodes, all together, and so
	// what one job may ask for (request_gpus, max_replicas).
	MaxGPUs int
	// MaxJobNodes bounds a round's jobs × nodes: a policy's view of a
	// round holds up to a number per job and node (an allocation).
	MaxJobNodes int
	// MaxResponse bounds the answer to a round, bytes: a round whose
	// answer could be larger is refused before it is decided.
	MaxResponse int64
	// MaxConns bounds the connections open at once (more wait to be
	// accepted).
	MaxConns int
	// BodyTimeout is the longest a request's body may take to arrive, and
	// an answer to be sent.
	BodyTimeout time.Duration
}

// DefaultMaxResponse is the default of Limits.MaxResponse, and the
// largest answer the client (the policy remote) reads: 64 MiB.
const DefaultMaxResponse = 64 << 20

// DefaultLimits are the service's limits unless told otherwise: 16 MiB
// bodies, 20,000 jobs, 4,096 nodes, 65,536 GPUs and 4,194,304 jobs × nodes
// per round, 64 MiB answers, 256 sessions, 10 minutes idle, 1,000,000
// oracle queries per round, 256 connections, 30 s to receive a body.
func DefaultLimits() Limits {
	return Limits{MaxBody: 16 << 20, MaxJobs: 20000, MaxNodes: 4096, MaxSessions: 256,
		IdleTimeout: 10 * time.Minute, MaxOracleQueries: 1000000, MaxGPUs: 1 << 16, MaxJobNodes: 1 << 22,
		MaxResponse: DefaultMaxResponse, MaxConns: 256, BodyTimeout: 30 * time.Second}
}

// Config configures a Server.
type Config struct {
	// Registry holds the policies sessions may use (nil: none).
	Registry *policies.Registry
	// Autoscalers holds the autoscalers sessions may use (nil: none).
	Autoscalers *autoscalers.Registry
	// Limits (zero fields: DefaultLimits' values).
	Limits Limits
	// Token, when not empty, is the bearer token every request must carry.
	Token string
	// Allow names the policies with effects (policies.Effects: starting
	// processes, reading files or the environment, reaching the network)
	// that callers may use; a policy with effects not named is refused.
	// Only the operator sets it (polluxsim serve --allow-policy).
	Allow []string
	// CostlyOptions lets callers set policy options above their serve
	// bounds (policies.CheckServeBounds: options whose memory or time grow
	// with their value, such as Pollux's population). Only the operator
	// sets it (polluxsim serve --allow-costly-options).
	CostlyOptions bool
	// Log receives what callers are not told: why a policy with effects
	// could not be built (nil: nowhere).
	Log io.Writer
}

// Server is the allocator service: its sessions and HTTP handlers.
type Server struct {
	reg      *policies.Registry
	scalers  *autoscalers.Registry
	lim      Limits
	tokenSum [sha256.Size]byte
	token    bool
	allow    map[string]bool
	costly   bool
	log      io.Writer
	bodies   bodies

	mu       sync.Mutex
	sessions map[string]*session
	stopped  bool
}

// New returns a server with no sessions.
func New(cfg Config) *Server {
	s := &Server{reg: cfg.Registry, lim: cfg.Limits, sessions: map[string]*session{}, allow: map[string]bool{}, costly: cfg.CostlyOptions, log: cfg.Log}
	for _, name := range cfg.Allow {
		s.allow[name] = true
	}
	if s.log == nil {
		s.log = io.Discard
	}
	if s.reg == nil {
		s.reg = policies.MustRegistry()
	}
	if s.scalers = cfg.Autoscalers; s.scalers == nil {
		s.scalers = autoscalers.MustRegistry()
	}
	d := DefaultLimits()
	s.lim.MaxBody = positiveOr(s.lim.MaxBody, d.MaxBody)
	s.lim.MaxJobs = positiveOr(s.lim.MaxJobs, d.MaxJobs)
	s.lim.MaxNodes = positiveOr(s.lim.MaxNodes, d.MaxNodes)
	s.lim.MaxSessions = positiveOr(s.lim.MaxSessions, d.MaxSessions)
	s.lim.IdleTimeout = positiveOr(s.lim.IdleTimeout, d.IdleTimeout)
	s.lim.MaxOracleQueries = positiveOr(s.lim.MaxOracleQueries, d.MaxOracleQueries)
	s.lim.MaxGPUs = positiveOr(s.lim.MaxGPUs, d.MaxGPUs)
	s.lim.MaxJobNodes = positiveOr(s.lim.MaxJobNodes, d.MaxJobNodes)
	s.lim.MaxResponse = positiveOr(s.lim.MaxResponse, d.MaxResponse)
	s.lim.MaxConns = positiveOr(s.lim.MaxConns, d.MaxConns)
	s.lim.BodyTimeout = positiveOr(s.lim.BodyTimeout, d.BodyTimeout)
	if cfg.Token != "" {
		s.token, s.tokenSum = true, sha256.Sum256([]byte(cfg.Token))
	}
	return s
}

// Handler returns the service's HTTP handler:
//
//	POST   /v1/sessions               create a session (SessionRequest)
//	POST   /v1/sessions/{id}/rounds   decide a round (RoundRequest)
//	POST   /v1/sessions/{id}/oracle   answer the pending oracle query
//	DELETE /v1/sessions/{id}          close a session
//	GET    /v1/healthz                liveness
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sessions", s.createSession)
	mux.HandleFunc("POST /v1/sessions/{id}/rounds", s.postRound)
	mux.HandleFunc("POST /v1/sessions/{id}/changes", s.postChanges)
	mux.HandleFunc("POST /v1/sessions/{id}/admissions", s.postAdmission)
	mux.HandleFunc("POST /v1/sessions/{id}/oracle", s.postOracle)
	mux.HandleFunc("DELETE /v1/sessions/{id}", s.deleteSession)
	mux.HandleFunc("GET /v1/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, 404, fmt.Errorf("%s %s: no such endpoint", r.Method, r.URL.Path))
	})
	return s.front(mux)
}

// writeJSON writes v as the response, one line.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // a client gone is not the service's error
}

// writeError writes a one-line JSON error.
func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, ErrorResponse{Error: strings.ReplaceAll(err.Error(), "\n", " ")})
}

// decodeBody decodes a request's body (read whole, bounded, by front)
// strictly into v: 400 when malformed.
func (s *Server) decodeBody(_ http.ResponseWriter, r *http.Request, v any) (int, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return 400, fmt.Errorf("request body: %v", err)
	}
	if err := strictjson.Decode(data, v); err != nil {
		return 400, fmt.Errorf("request body: %v", err)
	}
	return 0, nil
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	var req SessionRequest
	if status, err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, status, err)
		return
	}
	sess, status, err := s.newSession(&req)
	if err != nil {
		writeError(w, status, err)
		return
	}
	opts, _ := json.Marshal(sess.opts)
	writeJSON(w, 201, SessionResponse{Session: sess.s.id, Policy: req.Policy, Options: opts,
		Traits:      protocol.FromTraits(sess.s.traits),
		IdleTimeout: s.lim.IdleTimeout.Seconds(), Incremental: incremental(sess.s.policy), Admission: admits(sess.s.policy)})
}

type created struct {
	s    *session
	opts policies.OptionSet
}

// newSession builds a session's policy and autoscaler and registers it.
func (s *Server) newSession(req *SessionRequest) (created, int, error) {
	if err := finite("restart_delay_s", req.RestartDelay); err != nil {
		return created{}, 400, err
	}
	reg, ok := s.reg.Lookup(req.Policy)
	if ok && reg.Effects != 0 && !s.allow[req.Policy] {
		return created{}, 403, fmt.Errorf("policy: %s %s, so callers may use it only when the operator enables it (polluxsim serve --allow-policy %s)",
			req.Policy, reg.Effects, req.Policy)
	}
	var layers []any
	if len(req.Options) > 0 {
		layers = append(layers, req.Options)
	}
	opts, err := s.reg.Resolve(req.Policy, "", layers...)
	if err != nil {
		return created{}, 400, fmt.Errorf("policy: %v", err)
	}
	if !s.costly {
		if err := policies.CheckServeBounds(reg, opts); err != nil {
			return created{}, 400, fmt.Errorf("options: %v; the operator can lift the bound (polluxsim serve --allow-costly-options)", err)
		}
	}
	pol, err := s.reg.Build(req.Policy, opts, policies.Env{Seed: req.Seed, RestartDelay: req.RestartDelay})
	if err != nil && reg.Effects != 0 {
		// Its reason may tell what is on the server's disk, in its
		// environment or on its network: the operator's to read.
		fmt.Fprintf(s.log, "polluxsim serve: a session of policy %s was refused: %v\n", req.Policy, err)
		return created{}, 400, fmt.Errorf("policy: %s could not be started; the service's log says why", req.Policy)
	}
	if err != nil {
		return created{}, 400, fmt.Errorf("policy: %v", err)
	}
	registered := false
	defer func() {
		if !registered { // a session refused releases its policy
			_ = policies.Close(pol)
		}
	}()
	sess := &session{policy: pol, traits: pol.Traits(), stats: req.PolicyStats}
	if a := req.Autoscaler; a != nil {
		if a.MinNodes < 0 || a.MaxNodes < max(a.MinNodes, 1) {
			return created{}, 400, fmt.Errorf("autoscaler: want 0 ≤ min_nodes ≤ max_nodes and max_nodes ≥ 1, got %d and %d", a.MinNodes, a.MaxNodes)
		}
		var al []any
		if len(a.Options) > 0 {
			al = append(al, a.Options)
		}
		aopts, err := s.scalers.Resolve(a.Name, "", al...)
		if err != nil {
			return created{}, 400, fmt.Errorf("autoscaler: %v", err)
		}
		if sess.scaler, err = s.scalers.Build(a.Name, aopts); err != nil {
			return created{}, 400, fmt.Errorf("autoscaler: %v", err)
		}
		sess.min, sess.max = a.MinNodes, a.MaxNodes
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return created{}, 500, err
	}
	sess.id = hex.EncodeToString(id[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return created{}, 503, errors.New("the service is stopping")
	}
	if len(s.sessions) >= s.lim.MaxSessions {
		return created{}, 429, fmt.Errorf("%d sessions open, the service's limit; close one (DELETE /v1/sessions/ID) or wait for one to expire", s.lim.MaxSessions)
	}
	sess.last = time.Now()
	s.sessions[sess.id] = sess
	registered = true
	return created{s: sess, opts: opts}, 201, nil
}

// acquire finds a session and marks it busy (not to be expired).
func (s *Server) acquire(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %q: no such session (expired, closed or never created)", id)
	}
	sess.busy++
	sess.last = time.Now()
	return sess, nil
}

// release ends a request on a session.
func (s *Server) release(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess.busy--
	sess.last = time.Now()
	if sess.closed {
		delete(s.sessions, sess.id)
	}
}

func (s *Server) postRound(w http.ResponseWriter, r *http.Request) {
	var req RoundRequest
	s.withSession(w, r, &req, func(sess *session) (RoundResponse, int, error) {
		rd, err := decodeRound(&req, s.lim, sess.traits)
		if err != nil {
			return RoundResponse{}, 400, err
		}
		if err := sess.awaitingOracle(); err != nil {
			return RoundResponse{}, 409, err
		}
		if sess.changes {
			return RoundResponse{}, 409, fmt.Errorf("session %s takes changes-only rounds (POST /v1/sessions/%s/changes): its policy is driven one way", sess.id, sess.id)
		}
		sess.full = true
		return sess.next(sess.start(rd, nil, s.lim.MaxOracleQueries))
	})
}

// postChanges serves a changes-only round of an incremental session
// (changes.go).
func (s *Server) postChanges(w http.ResponseWriter, r *http.Request) {
	var req ChangesRequest
	s.withSession(w, r, &req, func(sess *session) (RoundResponse, int, error) {
		if err := sess.awaitingOracle(); err != nil {
			return RoundResponse{}, 409, err
		}
		if _, ok := sess.policy.(policies.Incremental); !ok {
			return RoundResponse{}, 409, fmt.Errorf("session %s: policy %s does not decide incrementally; post full rounds (POST /v1/sessions/%s/rounds)", sess.id, sess.policy.Name(), sess.id)
		}
		if sess.scaler != nil {
			return RoundResponse{}, 409, fmt.Errorf("session %s has an autoscaler, which needs every job: post full rounds", sess.id)
		}
		if sess.full {
			return RoundResponse{}, 409, fmt.Errorf("session %s takes full rounds (POST /v1/sessions/%s/rounds): its policy is driven one way", sess.id, sess.id)
		}
		if sess.views == nil {
			sess.views = map[int64]*policies.Job{}
		}
		rd, ch, err := decodeChanges(&req, s.lim, sess.views, sess.traits)
		if err != nil {
			return RoundResponse{}, 400, err
		}
		for _, k := range ch.removed { // its oracle's answers go with it
			delete(sess.cache.m, jobKey(sess.views[k]))
		}
		sess.changes = true
		in := ch.apply(rd, sess.views)
		return sess.next(sess.start(rd, &in, s.lim.MaxOracleQueries))
	})
}

func (s *Server) postOracle(w http.ResponseWriter, r *http.Request) {
	var req OracleAnswers
	s.withSession(w, r, &req, func(sess *session) (RoundResponse, int, error) {
		if len(req.Answers) != 1 {
			return RoundResponse{}, 400, fmt.Errorf("answers: want the answer to the one pending query, got %d answers", len(req.Answers))
		}
		if req.QueryID < 1 {
			return RoundResponse{}, 400, fmt.Errorf("query_id: want the pending query's id (its query_id), got %d", req.QueryID)
		}
		rr := sess.run
		if rr == nil {
			return RoundResponse{}, 409, fmt.Errorf("session %s has no pending oracle query", sess.id)
		}
		if req.QueryID != rr.pendingID {
			return RoundResponse{}, 409, fmt.Errorf("query_id: %d is not the pending query, %d (an answer retried or sent twice?)", req.QueryID, rr.pendingID)
		}
		if err := checkAnswer(rr.pending, req.Answers[0]); err != nil {
			return RoundResponse{}, 400, err
		}
		sess.run = nil
		rr.answers <- req.Answers[0]
		return sess.next(rr)
	})
}

// withSession serves a POST on session {id}, in one order for every
// such endpoint: the session is found first (404 when unknown or
// closed), then the body is decoded strictly into body (400), then f
// runs, holding the session's lock for its whole length (it checks the
// body against the session, 400 naming the field, then serves it).
func (s *Server) withSession(w http.ResponseWriter, r *http.Request, body any, f func(*session) (RoundResponse, int, error)) {
	sess, err := s.acquire(r.PathValue("id"))
	if err != nil {
		writeError(w, 404, err)
		return
	}
	defer s.release(sess)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.closed {
		writeError(w, 404, fmt.Errorf("session %q: closed", sess.id))
		return
	}
	if status, err := s.decodeBody(w, r, body); err != nil {
		writeError(w, status, err)
		return
	}
	resp, status, err := f(sess)
	if err != nil {
		writeError(w, status, err)
		return
	}
	writeJSON(w, status, resp)
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	sess, err := s.acquire(r.PathValue("id"))
	if err != nil {
		writeError(w, 404, err)
		return
	}
	defer s.release(sess)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.closeLocked()
	w.WriteHeader(204)
}

// Expire closes the sessions idle for longer than the idle timeout at
// time now and returns how many it closed.
func (s *Server) Expire(now time.Time) int {
	return s.remove(false, func(sess *session) bool {
		return sess.busy == 0 && now.Sub(sess.last) > s.lim.IdleTimeout
	})
}

// Sessions is the number of open sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// closeAll closes every session and refuses new ones.
func (s *Server) closeAll() {
	s.remove(true, func(*session) bool { return true })
}

// remove closes the sessions which selects (it is called with s.mu
// held), stop also refusing new ones, and returns how many it closed
// once their policies are closed.
func (s *Server) remove(stop bool, which func(*session) bool) int {
	s.mu.Lock()
	s.stopped = s.stopped || stop
	var gone []*session
	for id, sess := range s.sessions {
		if which(sess) {
			gone = append(gone, sess)
			delete(s.sessions, id)
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup // policies end at once, not one after another
	for _, sess := range gone {
		wg.Go(func() {
			sess.mu.Lock()
			sess.closeLocked()
			sess.mu.Unlock()
		})
	}
	wg.Wait()
	return len(gone)
}

// Serve serves on ln until ctx is done, then stops accepting, lets the
// requests in progress finish (for at most drain), closes every session
// and returns. Idle sessions are expired meanwhile.
func (s *Server) Serve(ctx context.Context, ln net.Listener, drain time.Duration) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10,
		IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(newLimitListener(ln, s.lim.MaxConns)) }()
	tick := time.NewTicker(min(s.lim.IdleTimeout/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case err := <-errc:
			s.closeAll()
			return err
		case now := <-tick.C:
			s.Expire(now)
		case <-ctx.Done():
			s.cutBodies()
			sctx, cancel := context.WithTimeout(context.Background(), drain)
			err := hs.Shutdown(sctx)
			cancel()
			s.closeAll()
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("requests still in progress after %v; stopped anyway", drain)
			}
			return err
		}
	}
}

// positiveOr is v when it is positive, else def (a limit left unset takes
// its default).
func positiveOr[T int | int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// incremental says whether p decides incrementally (a session of it takes
// changes-only rounds).
func incremental(p policies.Policy) bool {
	_, ok := p.(policies.Incremental)
	return ok
}
