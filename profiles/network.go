package profiles

// Network is where the nodes of a placement sit in a two-tier network:
// Racks[i] is the rack of the node of the placement's i-th non-zero entry
// (entries in node order), racks of consecutive nodes under a spine whose
// uplinks carry 1/Oversub of what a rack's NICs can send. The zero Network
// is one tier, and so is a placement on one rack: only traffic crossing
// racks is slowed. Racks of another length than the placement's non-zero
// entries describe no placement; the step is then one tier's.
type Network struct {
	Racks   []int
	Oversub float64
}

// spansRacks reports whether a placement under n crosses racks.
func (n Network) spansRacks() bool {
	for _, r := range n.Racks {
		if r != n.Racks[0] {
			return true
		}
	}
	return false
}

// NetworkTruth is a Truth whose step depends on the racks a placement
// spans (the llm set's: its data-parallel rings slow down across an
// oversubscribed spine). Truths without it (the six measured
// applications, whose tables have no network model) run at their Step
// whatever the racks.
type NetworkTruth interface {
	Truth
	// StepAcross is Step for a placement whose nodes sit in the racks of
	// n (len(n.Racks) = len(placement), entries in node order, no zeros).
	StepAcross(placement []int, n Network, local float64) (step, sync float64)
}

// stepOn is the true step of the application on placement in network n:
// Truth.Step unless the placement crosses racks and the truth models
// the network.
func (a *App) stepOn(placement []int, n Network, local float64) (step, sync float64) {
	if n.spansRacks() {
		if t, ok := a.Truth.(NetworkTruth); ok {
			return t.StepAcross(placement, n, local)
		}
	}
	return a.Truth.Step(placement, local)
}

// nonZero is the number of non-zero entries of a placement.
func nonZero(placement []int) int {
	n := 0
	for _, g := range placement {
		if g != 0 {
			n++
		}
	}
	return n
}
