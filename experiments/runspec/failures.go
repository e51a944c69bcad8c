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

// pinnedFaults is a fault model read for the Failures setting it was
// read for.
type pinnedFaults struct {
	failures string
	model    *faults.Model
}

// PinFaults reads the spec's fault model once (its fault log from
// FaultFiles when set) and keeps it: the checks, the engine and the
// run's identity (FaultLog) of the returned spec then all see the log as
// it was read, though the file change during the run. A spec already
// pinned for its Failures is returned as it is.
func (s RunSpec) PinFaults() (RunSpec, error) {
	if s.pinned.model != nil && s.pinned.failures == s.Failures {
		return s, nil
	}
	m, err := faults.ParseIn(s.Failures, s.FaultFiles)
	if err != nil {
		return s, err
	}
	s.pinned = pinnedFaults{failures: s.Failures, model: m}
	return s, nil
}

// Settings is the spec's settings alone: where its fault logs are read
// from, and what PinFaults read from them, set aside (their content is
// part of a run's identity through FaultLog).
func (s RunSpec) Settings() RunSpec {
	s.FaultFiles, s.pinned = nil, pinnedFaults{}
	return s
}

// FaultModel is the spec's fault model (nil for none): the one PinFaults
// read, or else read now, its fault logs from FaultFiles when set.
func (s RunSpec) FaultModel() (*faults.Model, error) {
	if s.pinned.model != nil && s.pinned.failures == s.Failures {
		return s.pinned.model, nil
	}
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
