package external

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// answer answers an oracle query of the round in progress from the job's
// oracle (only a policy whose traits ask for one may query).
func (p *Policy) answer(q *protocol.Query) (protocol.Answer, error) {
	a := protocol.Answer{Type: protocol.TypeAnswer, OK: true}
	if !p.traits.NeedsOracle {
		return a, fmt.Errorf("sent an oracle query, but its traits do not set needs_oracle")
	}
	if v := protocol.FactVersion(q.Fact); v > p.version {
		return a, fmt.Errorf("queried the fact %q of protocol version %d in a conversation of version %d", q.Fact, v, p.version)
	}
	j := p.names[q.Job]
	if j == nil {
		return a, fmt.Errorf("queried job %q, which is not in the round", q.Job)
	}
	o := j.Oracle
	if o == nil {
		return a, fmt.Errorf("queried job %q, which has no oracle", q.Job)
	}
	return protocol.AnswerQuery(o, q)
}
