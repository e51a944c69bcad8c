package external

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// Policy is a policy running in a child process, spoken to through
// policies/protocol over the child's standard input and output. Start
// makes one; Close ends its child. A fault (the child exits, hangs,
// answers nonsense) ends the conversation: the round's decision is
// empty, Err says what went wrong, and the child is killed.
type Policy struct {
	c       *child
	command string
	timeout time.Duration
	ready   protocol.Ready
	traits  policies.Traits
	// version is the conversation's protocol version (negotiated).
	version int
	round   int
	// fault is what ended the conversation, naming the command and the
	// round (Err adds the policy's name).
	fault error
	// names are the jobs of the round in progress by name, for oracle
	// queries.
	names map[string]*policies.Job
}

// Incremental is a Policy whose child answers incremental rounds
// (policies.Incremental).
type Incremental struct {
	*Policy
	// views are the jobs the child knows, by key.
	views *protocol.Tracker
}

var (
	_ policies.Policy      = (*Policy)(nil)
	_ policies.Fallible    = (*Policy)(nil)
	_ policies.Named       = (*Policy)(nil)
	_ io.Closer            = (*Policy)(nil)
	_ policies.Incremental = (*Incremental)(nil)
)

// Config is how to start an external policy.
type Config struct {
	// Argv is the command and its arguments (see Split).
	Argv []string
	// Timeout bounds the handshake and each round, wall-clock (0:
	// DefaultRoundTimeout seconds).
	Timeout time.Duration
	// Env is the run's environment, told to the child in hello.
	Env policies.Env
	// MaxMessage is the longest message read from the child, bytes (0:
	// DefaultMaxMessage).
	MaxMessage int
	// Log receives the child's standard error, each line prefixed with
	// "[policy NAME] ", NAME the command's first two words without their
	// folders, e.g. "python3 tiresias.py" (nil: os.Stderr).
	Log io.Writer
}

// Start starts the child and holds the handshake: hello, then ready. The
// result is an *Incremental when the child says it answers incremental
// rounds, and an Admitting or AdmittingIncremental when it declares
// admission control (admit.go). The error, like every fault's, is one
// line naming the command (the registry's Build puts the policy's name
// before it).
func Start(cfg Config) (policies.Policy, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("the command is empty (set it: --policy-opt command='python3 my_policy.py')")
	}
	log := cfg.Log
	if log == nil {
		log = os.Stderr
	}
	command := strings.Join(cfg.Argv, " ")
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = DefaultMaxMessage
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRoundTimeout * time.Second
	}
	c, err := start(cfg.Argv, cfg.MaxMessage, log, "[policy "+shortName(cfg.Argv)+"] ")
	if err != nil {
		return nil, fmt.Errorf("command %q does not start: %w", command, err)
	}
	p := &Policy{c: c, command: command, timeout: cfg.Timeout}
	if err := p.handshake(cfg.Env); err != nil {
		p.Close()
		return nil, p.fault
	}
	if p.ready.Incremental {
		return withAdmission(p, &Incremental{Policy: p, views: protocol.NewTracker()}), nil
	}
	return withAdmission(p, p), nil
}

// shortName is the first two words of argv without their folders.
func shortName(argv []string) string {
	name := filepath.Base(argv[0])
	if len(argv) > 1 {
		name += " " + filepath.Base(argv[1])
	}
	return name
}

// handshake sends hello and reads ready.
func (p *Policy) handshake(env policies.Env) error {
	deadline := time.Now().Add(p.timeout)
	hello := protocol.Hello{Type: protocol.TypeHello, Protocol: protocol.MinVersion, MaxProtocol: protocol.Version,
		Seed: env.Seed, RestartDelay: env.RestartDelay}
	if err := p.write(hello, deadline, "the handshake"); err != nil {
		return err
	}
	msg, err := p.read(deadline, "the handshake")
	if err != nil {
		return err
	}
	r, ok := msg.(*protocol.Ready)
	if !ok {
		return p.fail("the handshake", fmt.Errorf("answered hello with a %s message, want ready", protocol.TypeOf(msg)))
	}
	v, err := protocol.Negotiate(hello, r.Protocol)
	if err != nil {
		return p.fail("the handshake", err)
	}
	if r.Name == "" {
		return p.fail("the handshake", errors.New("its ready message names no policy"))
	}
	if r.Admission && v < protocol.AdmissionVersion {
		return p.fail("the handshake", fmt.Errorf("declared admission, which protocol version %d added, in a conversation of version %d",
			protocol.AdmissionVersion, v))
	}
	if r.Traits.SizesLLMJobs && v < protocol.LLMVersion {
		return p.fail("the handshake", fmt.Errorf("declared the trait sizes_llm_jobs, which protocol version %d added, in a conversation of version %d",
			protocol.LLMVersion, v))
	}
	p.ready, p.traits, p.version = *r, r.Traits.Policies(), v
	return nil
}

// Name implements policies.Policy: "external", the name it is registered
// under; the child's own name is ChildName.
func (*Policy) Name() string { return Name }

// ChildName is the name the child gave in its handshake.
func (p *Policy) ChildName() string { return p.ready.Name }

// ReportedName implements policies.Named: the name the child reported in
// its handshake (ChildName), recorded as the run's policy_name.
func (p *Policy) ReportedName() string { return p.ready.Name }

// Version is the protocol version the child chose in its handshake.
func (p *Policy) Version() int { return p.version }

// Options are the options the child reported in its handshake.
func (p *Policy) Options() map[string]any { return p.ready.Options }

// Traits implements policies.Policy: the child's.
func (p *Policy) Traits() policies.Traits { return p.traits }

// Err implements policies.Fallible.
func (p *Policy) Err() error {
	if p.fault == nil {
		return nil
	}
	return fmt.Errorf("policy %s: %w", Name, p.fault)
}

// Close ends the child (see child.close); it is safe to call more than
// once and while a round is in progress in another goroutine, which then
// fails.
func (p *Policy) Close() error {
	p.c.close()
	return nil
}

// Schedule implements policies.Policy: one round message, the child's
// queries answered, its decision returned.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	empty := policies.Decision{Alloc: make([][]int, len(jobs))}
	if p.fault != nil {
		return empty
	}
	p.round++
	msg := protocol.Round{Type: protocol.TypeRound, Round: p.round, Now: now, Cluster: protocol.FromCluster(c).ForVersion(p.version),
		Jobs: make([]protocol.Job, len(jobs))}
	clear(p.names)
	if p.names == nil {
		p.names = map[string]*policies.Job{}
	}
	for i := range jobs {
		msg.Jobs[i] = protocol.FromJob(&jobs[i])
		msg.Jobs[i].ForVersion(p.version)
		p.names[jobs[i].Name] = &jobs[i]
	}
	d, ok := roundTrip(p, msg, now, protocol.TypeDecision, func(d *protocol.Decision) int { return d.Round })
	if !ok {
		return empty
	}
	return policies.Decision{Alloc: d.Alloc}
}

// ScheduleIncremental implements policies.Incremental: the round's
// arrivals and completions, and the views of the jobs holding GPUs or
// that lost them, in one incremental_round message; the child's changes
// returned.
func (p *Incremental) ScheduleIncremental(now float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
	if p.fault != nil {
		return nil
	}
	p.round++
	msg := protocol.IncrementalRound{Type: protocol.TypeIncrementalRound, Round: p.round, Now: now, Cluster: protocol.FromCluster(c).ForVersion(p.version),
		Removed: r.Removed}
	for _, k := range r.Removed {
		if j := p.views.Job(k); j != nil {
			delete(p.names, j.Name)
		}
	}
	if p.names == nil {
		p.names = map[string]*policies.Job{}
	}
	for _, t := range r.Added {
		p.names[t.Job.Name] = t.Job
		msg.Added = append(msg.Added, protocol.Keyed{Key: t.Key, Job: protocol.FromJob(t.Job)})
	}
	for _, t := range p.views.Round(r) {
		msg.Updated = append(msg.Updated, protocol.Keyed{Key: t.Key, Job: protocol.FromJob(t.Job)})
	}
	for i := range msg.Added {
		msg.Added[i].Job.ForVersion(p.version)
	}
	for i := range msg.Updated {
		msg.Updated[i].Job.ForVersion(p.version)
	}
	d, ok := roundTrip(p.Policy, msg, now, protocol.TypeIncrementalDecision, func(d *protocol.IncrementalDecision) int { return d.Round })
	if !ok {
		return nil
	}
	changes := make([]policies.Change, len(d.Changes))
	for i, ch := range d.Changes {
		if !p.views.Changed(ch.Key) {
			p.fail(p.where(now), fmt.Errorf("changed the allocation of job key %d, which it was not given or which finished", ch.Key))
			return nil
		}
		changes[i] = policies.Change{Key: ch.Key, Alloc: ch.Alloc}
	}
	return changes
}

// roundTrip sends a round's message and returns the child's answer, a
// message of type D (want) for this round (round reads its round number); a
// fault is recorded and ok is false otherwise.
func roundTrip[D any](p *Policy, msg any, now float64, want string, round func(*D) int) (d *D, ok bool) {
	ans, err := p.exchange(msg, now)
	if err != nil {
		return nil, false
	}
	if d, ok = ans.(*D); !ok {
		p.fail(p.where(now), fmt.Errorf("answered a %s message with a %s message, want %s", protocol.TypeOf(msg), protocol.TypeOf(ans), want))
		return nil, false
	}
	if r := round(d); r != p.round {
		p.fail(p.where(now), fmt.Errorf("answered round %d with the decision of round %d", p.round, r))
		return nil, false
	}
	return d, true
}

// exchange sends a round's message and reads messages, answering the
// child's queries, until its decision (returned) within the round's time.
func (p *Policy) exchange(msg any, now float64) (any, error) {
	return p.exchangeAt(msg, p.where(now))
}

// exchangeAt is exchange for the exchange named where (a round, an
// admission).
func (p *Policy) exchangeAt(msg any, where string) (any, error) {
	deadline := time.Now().Add(p.timeout)
	if err := p.write(msg, deadline, where); err != nil {
		return nil, err
	}
	for {
		ans, err := p.read(deadline, where)
		if err != nil {
			return nil, err
		}
		q, ok := ans.(*protocol.Query)
		if !ok {
			return ans, nil
		}
		a, err := p.answer(q)
		if err != nil {
			return nil, p.fail(where, err)
		}
		if err := p.write(a, deadline, where); err != nil {
			return nil, err
		}
	}
}

// where names the round in progress.
func (p *Policy) where(now float64) string { return fmt.Sprintf("round %d (t=%v)", p.round, now) }

// write sends one message by deadline.
func (p *Policy) write(msg any, deadline time.Time, where string) error {
	data, err := protocol.Encode(msg)
	if err != nil {
		return p.fail(where, err)
	}
	if err := p.c.send(data, deadline); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return p.fail(where, fmt.Errorf("did not read its input within %v (round_timeout)", p.timeout))
		}
		return p.fail(where, fmt.Errorf("stopped reading its input (%v); %s", err, p.c.exitStatus(exitWait)))
	}
	return nil
}

// read receives one message by deadline; an error message from the child
// is a fault quoting it.
func (p *Policy) read(deadline time.Time, where string) (any, error) {
	line, err := p.c.receive(deadline)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, p.fail(where, fmt.Errorf("no answer within %v (round_timeout)", p.timeout))
	case errors.Is(err, errTooLong):
		return nil, p.fail(where, fmt.Errorf("sent %v", err))
	case errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed):
		return nil, p.fail(where, fmt.Errorf("closed its output without answering: %s", p.c.exitStatus(exitWait)))
	case err != nil:
		return nil, p.fail(where, fmt.Errorf("reading its output: %v; %s", err, p.c.exitStatus(exitWait)))
	}
	msg, err := protocol.Decode(line)
	var invalid *protocol.MessageError
	switch {
	case errors.As(err, &invalid):
		return nil, p.fail(where, fmt.Errorf("sent an invalid %v", err))
	case err != nil:
		return nil, p.fail(where, fmt.Errorf("wrote %s to its standard output, which is not a protocol message (%v): log to standard error", quote(line), err))
	}
	if e, ok := msg.(*protocol.Error); ok {
		return nil, p.fail(where, fmt.Errorf("reported an error: %s", oneLine(e.Message)))
	}
	return msg, nil
}

// fail records the conversation's fault (the first one), kills the
// child, and returns the fault.
func (p *Policy) fail(where string, err error) error {
	if p.fault == nil {
		p.fault = fmt.Errorf("command %q: %s: %w", p.command, where, err)
	}
	p.c.kill()
	return p.fault
}

// quote shows the start of a stray line.
func quote(line []byte) string {
	const n = 80
	if len(line) > n {
		return fmt.Sprintf("%q…", line[:n])
	}
	return fmt.Sprintf("%q", line)
}

// oneLine folds a message onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
