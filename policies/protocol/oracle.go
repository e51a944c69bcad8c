package protocol

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// AnswerQuery answers query q from oracle o, the job's (the engine's
// side of an oracle query, whatever carries it: policies/external's
// child process, the service's HTTP client). An unknown fact is an
// error.
func AnswerQuery(o policies.Oracle, q *Query) (Answer, error) {
	a := Answer{Type: TypeAnswer, OK: true}
	switch q.Fact {
	case FactEpochs:
		a.Value = float64(o.Epochs())
	case FactIterations:
		a.Value = o.Iterations(q.Batch, q.Epoch)
	case FactIterTime:
		a.Value = o.IterTime(q.Placement, q.Local, q.Accum)
	case FactRemainingIterations:
		a.Value = o.RemainingIterations(q.Batch)
	case FactTypeIterTime:
		a.Value, a.OK = o.TypeIterTime(q.GPUType, q.Placement, q.Batch)
	case FactStepTime:
		a.Value, a.Sync = o.StepTime(q.Placement, q.Local)
	case FactCompletionEpoch:
		a.Value = float64(o.CompletionEpoch(q.Batch))
	default:
		return a, fmt.Errorf("queried the unknown fact %q of job %s", q.Fact, q.Job)
	}
	return a, nil
}
