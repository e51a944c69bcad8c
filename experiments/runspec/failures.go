package runspec

import (
	"fmt"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/policies"
)

// checkFailures validates the spec's fault model (Failures): its syntax
// and values, what it cannot be combined with yet, and that a job on one
// node can get through its restart (the engine checks each job's own
// size when the workload is known).
func (s RunSpec) checkFailures() error {
	m, err := faults.Parse(s.Failures)
	if err != nil || m == nil {
		return err
	}
	if m.Spares > 0 && s.Autoscaler != "" {
		return fmt.Errorf("--failures spares=%d and --autoscaler cannot be combined: the autoscaler orders nodes, none is held back", m.Spares)
	}
	return m.CheckProgress("on one node", []int{0}, []string{policies.DefaultType}, s.RestartDelay)
}
