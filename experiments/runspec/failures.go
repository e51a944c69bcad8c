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
	m, err := s.FaultModel()
	if err != nil || m == nil {
		return err
	}
	if m.Spares > 0 && s.Autoscaler != "" {
		return fmt.Errorf("--failures spares=%d and --autoscaler cannot be combined: the autoscaler orders nodes, none is held back", m.Spares)
	}
	return m.CheckProgress("on one node", []int{0}, []string{policies.DefaultType}, s.RestartDelay)
}

// FaultModel is the spec's fault model (nil for none), its fault logs read
// from FaultFiles when set.
func (s RunSpec) FaultModel() (*faults.Model, error) {
	return faults.ParseIn(s.Failures, s.FaultFiles)
}

// FaultLog is the content digest of the fault log the spec replays, ""
// for none: part of a run's identity (outputs.Identity.FaultLog), so that
// an edited log is another run though its name is the same.
func (s RunSpec) FaultLog() string {
	if m, err := s.FaultModel(); err == nil && m != nil {
		return m.Digest
	}
	return ""
}
