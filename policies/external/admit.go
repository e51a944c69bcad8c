package external

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// Admission control across the process boundary (protocol version 3): a
// child whose ready message sets "admission" is asked, once per job at its
// submission, whether to admit it (an admit message, answered by an
// admission message, queries in between as in a round). Start returns it
// as an Admitting or AdmittingIncremental policy, which implement
// policies.Admitter; a child that does not declare it is a Policy or an
// Incremental, which admit every job without asking.

// Admitting is a Policy whose child declared admission control.
type Admitting struct{ *Policy }

// AdmittingIncremental is an Incremental whose child declared admission
// control.
type AdmittingIncremental struct{ *Incremental }

var (
	_ policies.Admitter    = (*Admitting)(nil)
	_ policies.Admitter    = (*AdmittingIncremental)(nil)
	_ policies.Incremental = (*AdmittingIncremental)(nil)
)

// Admit implements policies.Admitter: the child's answer.
func (p *Admitting) Admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	return p.admit(now, c, j, active)
}

// Admit implements policies.Admitter: the child's answer.
func (p *AdmittingIncremental) Admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	return p.admit(now, c, j, active)
}

// withAdmission wraps pol (a *Policy or an *Incremental) when the child
// declared admission control.
func withAdmission(p *Policy, pol policies.Policy) policies.Policy {
	if !p.ready.Admission {
		return pol
	}
	if inc, ok := pol.(*Incremental); ok {
		return &AdmittingIncremental{Incremental: inc}
	}
	return &Admitting{Policy: p}
}

// admit sends an admit message about job j and returns the child's
// reason to decline it ("" admits it). A fault admits the job and is
// recorded (Err): the simulator then ends the run.
func (p *Policy) admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	if p.fault != nil {
		return ""
	}
	msg := protocol.Admit{Type: protocol.TypeAdmit, Now: now, Cluster: protocol.FromCluster(c).ForVersion(p.version),
		Job: protocol.FromJob(j), Active: make([]protocol.Job, len(active))}
	msg.Job.ForVersion(p.version)
	// The round's jobs by name, for the child's queries, are these while
	// it decides; the next round sets them anew (an incremental one keeps
	// its tracked jobs, so they are restored after).
	saved := p.names
	p.names = make(map[string]*policies.Job, len(active)+1)
	for i := range active {
		msg.Active[i] = protocol.FromJob(&active[i])
		msg.Active[i].ForVersion(p.version)
		p.names[active[i].Name] = &active[i]
	}
	p.names[j.Name] = j
	defer func() { p.names = saved }()
	where := fmt.Sprintf("admission of job %s (t=%v)", j.Name, now)
	ans, err := p.exchangeAt(msg, where)
	if err != nil {
		return ""
	}
	a, ok := ans.(*protocol.Admission)
	if !ok {
		p.fail(where, fmt.Errorf("answered an admit message with a %s message, want admission", protocol.TypeOf(ans)))
		return ""
	}
	if a.Job != j.Name {
		p.fail(where, fmt.Errorf("answered the admission of job %q", a.Job))
		return ""
	}
	return a.Declined
}
