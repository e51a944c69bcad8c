package profiles

// TableTruth is the Truth of an application read from measured tables in
// the reference format (see Load): step times interpolated as described in
// interp.go, training curves as described on trainingCurves. It is
// immutable once built, so any number of simulations may share it from
// parallel goroutines.
type TableTruth struct {
	*trainingCurves
	measured map[string]*curve // by placementKey of the normalised placement
	// maxDigits is the largest node count of a measured placement.
	maxDigits int
	grid      *grid
	// Placements, Scalability and Validation are the rows the Truth was
	// built from, for reports and tests; the Truth does not change if they
	// are modified.
	Placements  []PlacementRow
	Scalability []ScalabilityRow
	Validation  map[int][]ValidationRow
}

// NewTableTruth builds a Truth from parsed tables. validation maps each
// validated total batch size to its run; it must have at least one entry
// with at least one row, and placements at least one row.
func NewTableTruth(placements []PlacementRow, scalability []ScalabilityRow, validation map[int][]ValidationRow) *TableTruth {
	t := &TableTruth{
		measured:    map[string]*curve{},
		Placements:  placements,
		Scalability: scalability,
		Validation:  validation,
	}
	byKey := map[string][]PlacementRow{}
	var keys []string
	for _, row := range placements {
		k := placementKey(row.Placement)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], row)
		t.maxDigits = max(t.maxDigits, len(row.Placement))
	}
	for _, k := range keys {
		var samples []gridSample
		for _, row := range byKey[k] {
			samples = append(samples, gridSample{1, 1, row.Local, row.Step, row.Sync})
		}
		t.measured[k] = buildGrid(samples).levels[0].pairs[0]
	}
	t.grid = buildGrid(referenceSamples(placements, scalability))
	batches := sortedKeys(validation)
	fb := make([]float64, len(batches))
	runs := make([][]ValidationRow, len(batches))
	for i, b := range batches {
		fb[i] = float64(b)
		runs[i] = validation[b]
	}
	t.trainingCurves = newTrainingCurves(fb, runs)
	return t
}

// Step implements Truth. Entries of placement that are not positive are
// ignored; an empty placement costs nothing (0, 0). A per-GPU batch that is
// not positive (or NaN) is treated as the smallest measured one.
func (t *TableTruth) Step(placement []int, local float64) (step, sync float64) {
	var buf [16]int
	p := buf[:0]
	reps := 0
	for _, g := range placement {
		if g > 0 {
			p = append(p, g)
			reps += g
		}
	}
	if len(p) == 0 {
		return 0, 0
	}
	if !(local > 0) {
		local = 0
	}
	if len(p) <= t.maxDigits {
		if c := t.lookup(p); c != nil {
			return c.at(local, false)
		}
	}
	return t.grid.at(len(p), reps, local)
}

// lookup finds the measured curve of placement p (non-zero entries), or nil.
func (t *TableTruth) lookup(p []int) *curve {
	var key [maxPlacementDigits]byte
	s := bestRotation(p)
	for i := range p {
		g := p[(s+i)%len(p)]
		if g > 9 {
			return nil
		}
		key[i] = byte('0' + g)
	}
	return t.measured[string(key[:len(p)])]
}

// Measured reports whether placement (in any rotation, zeros ignored) is
// one of the measured placements.
func (t *TableTruth) Measured(placement []int) bool {
	p := NormalizePlacement(placement)
	return len(p) > 0 && len(p) <= t.maxDigits && t.lookup(p) != nil
}
