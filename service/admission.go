package service

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/polluxsim/polluxsim/policies"
)

// Admission control (policies.Admitter) over HTTP: a session whose policy
// has it says "admission": true, and takes POST
// /v1/sessions/{id}/admissions, asking whether to admit a job at its
// submission given the jobs active then. The answer is {"job", "declined"?}
// (absent: admitted) or, for a policy with an oracle, its queries first,
// as a round's. docs/serve.md#admission-control.

// AdmissionRequest asks a session's policy whether to admit Job, submitted
// at Time, given the jobs active at that moment (Active, in submission
// order, Job not among them) on Nodes (POST /v1/sessions/{id}/admissions).
type AdmissionRequest struct {
	Time   float64 `json:"time"`
	Nodes  []Node  `json:"nodes"`
	Job    Job     `json:"job"`
	Active []Job   `json:"active"`
	// Racks and Oversubscription are the round's (RoundRequest).
	Racks            *int    `json:"racks,omitempty"`
	Oversubscription float64 `json:"oversubscription,omitempty"`
}

// admits says whether a session's policy has admission control.
func admits(p policies.Policy) bool {
	_, ok := p.(policies.Admitter)
	return ok
}

// decodeAdmission checks an admission request as a round of the active
// jobs and the job, the job last (its fields named job, the active jobs'
// active[i]), for a policy of traits t; the job asked about holds no GPU.
func decodeAdmission(req *AdmissionRequest, lim Limits, t policies.Traits) (*round, error) {
	if len(req.Job.Allocation) > 0 {
		return nil, errorf("job.allocation: the job asked about is being submitted and holds no GPU")
	}
	n := len(req.Active)
	rr := RoundRequest{Time: req.Time, Nodes: req.Nodes, Jobs: append(req.Active[:n:n], req.Job), Racks: req.Racks, Oversubscription: req.Oversubscription}
	field := func(i int) string {
		if i == n {
			return "job"
		}
		return "active[" + strconv.Itoa(i) + "]"
	}
	r, err := decodeRoundNamed(&rr, lim, t, field)
	if err != nil {
		return nil, err
	}
	if err := needsBatch("job", &r.out[n].job, t, true); err != nil { // the job asked about first
		return nil, err
	}
	for i := range n {
		if err := needsBatch(field(i), &r.out[i].job, t, true); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// postAdmission serves an admission request.
func (s *Server) postAdmission(w http.ResponseWriter, r *http.Request) {
	var req AdmissionRequest
	s.withSession(w, r, &req, func(sess *session) (RoundResponse, int, error) {
		rd, err := decodeAdmission(&req, s.lim, sess.traits)
		if err != nil {
			return RoundResponse{}, 400, err
		}
		if err := sess.awaitingOracle(); err != nil {
			return RoundResponse{}, 409, err
		}
		if !admits(sess.policy) {
			return RoundResponse{}, 409, fmt.Errorf("session %s: policy %s has no admission control; it admits every job", sess.id, sess.policy.Name())
		}
		return sess.next(sess.startAdmission(rd, s.lim.MaxOracleQueries))
	})
}

// admitted is the job of an admission round: its index in the policy's
// view (the request's last job).
func (r *round) admitted() int { return r.out[len(r.out)-1].view }

// admit runs the policy's admission on rr's round: the job asked about,
// and the other jobs of the view as the active ones.
func (s *session) admit(r *round) (name, declined string) {
	i := r.admitted()
	active := make([]policies.Job, 0, len(r.jobs)-1)
	active = append(active, r.jobs[:i]...)
	active = append(active, r.jobs[i+1:]...)
	j := &r.jobs[i]
	c := r.cluster
	if c.Nodes == 0 { // every GPU held by pinned jobs: asked of the whole cluster
		c = r.full
	}
	return j.Name, policies.DeclineReason(s.policy.(policies.Admitter).Admit(r.now, c, j, active))
}
