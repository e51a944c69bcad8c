package service

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// RemoteAdmitting is a Remote whose service's policy has admission control
// (the session says "admission": true): the simulator asks it about every
// job at its submission (POST /v1/sessions/{id}/admissions) and a job it
// declines never runs, as in process.
type RemoteAdmitting struct{ *Remote }

// RemoteAdmittingIncremental is a RemoteIncremental whose service's policy
// has admission control.
type RemoteAdmittingIncremental struct{ *RemoteIncremental }

var (
	_ policies.Admitter    = (*RemoteAdmitting)(nil)
	_ policies.Admitter    = (*RemoteAdmittingIncremental)(nil)
	_ policies.Incremental = (*RemoteAdmittingIncremental)(nil)
)

// Admit implements policies.Admitter: the service's answer.
func (p *RemoteAdmitting) Admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	return p.admit(now, c, j, active)
}

// Admit implements policies.Admitter: the service's answer.
func (p *RemoteAdmittingIncremental) Admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	return p.admit(now, c, j, active)
}

// admit posts the admission of job j and returns the reason the service's
// policy declines it ("" admits it). A failure admits the job and sets
// Err, which ends the run.
func (p *Remote) admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	if p.err != nil {
		return ""
	}
	declined, err := p.admission1(now, c, j, active)
	if err != nil {
		p.err = fmt.Errorf("admission of job %s: %w", j.Name, err)
		return ""
	}
	return declined
}

func (p *Remote) admission1(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) (string, error) {
	req := AdmissionRequest{Time: now, Nodes: encodeNodes(c), Job: encodeJob(j), Active: make([]Job, len(active)), Racks: racksOf(c), Oversubscription: c.Oversubscription}
	for i := range active {
		req.Active[i] = encodeJob(&active[i])
	}
	resp, err := p.post("admissions", req, func(name string) *policies.Job {
		if name == j.Name {
			return j
		}
		for i := range active {
			if active[i].Name == name {
				return &active[i]
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if resp.Job != j.Name {
		return "", fmt.Errorf("the service answered the admission of job %q", resp.Job)
	}
	return resp.Declined, nil
}
