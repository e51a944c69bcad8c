package pollux

// entry is the number of GPUs one job holds on one node.
type entry struct {
	node int32
	gpus int32
}

// state is an allocation matrix (jobs × nodes) in sparse form: row i, the
// allocation of job i in priority order, is ents[off[i]:off[i+1]], entries
// sorted by node with gpus > 0. A job spans at most a few nodes, so this
// costs O(jobs) where the dense matrix costs O(jobs × nodes) — what lets
// the search scale to thousands of nodes.
type state struct {
	off  []int32
	ents []entry
}

func (s *state) row(i int) []entry { return s.ents[s.off[i]:s.off[i+1]] }

// begin empties s for writing rows in order.
func (s *state) begin() {
	s.off = append(s.off[:0], 0)
	s.ents = s.ents[:0]
}

// endRow closes the row being written.
func (s *state) endRow() { s.off = append(s.off, int32(len(s.ents))) }

// copyFrom makes s a copy of o.
func (s *state) copyFrom(o *state) {
	s.off = append(s.off[:0], o.off...)
	s.ents = append(s.ents[:0], o.ents...)
}

// appendRows appends rows [from, to) of o.
func (s *state) appendRows(o *state, from, to int) {
	base := int32(len(s.ents)) - o.off[from]
	s.ents = append(s.ents, o.ents[o.off[from]:o.off[to]]...)
	for i := from + 1; i <= to; i++ {
		s.off = append(s.off, o.off[i]+base)
	}
}

// fromDense builds a state from a dense jobs × nodes matrix.
func fromDense(dense []int, jobs, nodes int) state {
	var s state
	s.begin()
	for i := 0; i < jobs; i++ {
		for c, v := range dense[i*nodes : (i+1)*nodes] {
			if v > 0 {
				s.ents = append(s.ents, entry{int32(c), int32(v)})
			}
		}
		s.endRow()
	}
	return s
}

// denseRow expands row i to a per-node slice of length nodes, or nil if
// the job holds no GPU.
func (s *state) denseRow(i, nodes int) []int {
	r := s.row(i)
	if len(r) == 0 {
		return nil
	}
	out := make([]int, nodes)
	for _, e := range r {
		out[e.node] = int(e.gpus)
	}
	return out
}

// rowStats returns the GPUs and nodes of a row.
func rowStats(r []entry) (k, n int) {
	for _, e := range r {
		k += int(e.gpus)
	}
	return k, len(r)
}

func equalRows(a, b []entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// gpusOn is the GPUs row r holds on node c.
func gpusOn(r []entry, c int32) int32 {
	for _, e := range r {
		if e.node == c {
			return e.gpus
		}
		if e.node > c {
			break
		}
	}
	return 0
}
