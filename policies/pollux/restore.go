package pollux

// restore puts back, in priority order, the current allocation of each job
// with a memory floor (an LLM job, Job.MinGPUs > 0) whose row in st
// differs from it, wherever its nodes have room in st and the job's value
// is no lower there (unchanged, it pays no re-allocation factor): each
// such step raises the fitness or keeps it, as only that job's value
// changes. It returns st with those rows restored (a new state) and its
// fitness, or st and fit unchanged when nothing was restored.
//
// Why: the search's single-GPU moves cannot bring a job back to its
// current nodes (every step on the way is a change), and a new job's
// floor above 1 GPU is out of their reach (every step below it is worth
// nothing), so with LLM jobs arriving the chosen state comes from the
// genetic algorithm's population, with running jobs moved at the same
// size for nothing (docs/scale.md). Jobs without a floor are left to the
// search as before.
func (pr *problem) restore(st *state, fit float64) (*state, float64) {
	if !pr.anyFloor() {
		return st, fit
	}
	used := make([]int32, pr.nNodes)
	multi := make([]int32, pr.nNodes) // multi-node jobs per node
	rows := make([][]entry, pr.nJobs)
	for i := range rows {
		rows[i] = st.row(i)
		_, n := rowStats(rows[i])
		for _, e := range rows[i] {
			used[e.node] += e.gpus
			if n > 1 {
				multi[e.node]++
			}
		}
	}
	changed := false
	for i := range rows {
		base := pr.base.row(i)
		if pr.minGPUs[i] <= 0 || len(base) == 0 || equalRows(rows[i], base) {
			continue
		}
		k, n := rowStats(rows[i])
		bk, bn := rowStats(base)
		if pr.overCaps(i, bn, bk) || pr.valueAt(i, bn, bk, false) < pr.valueAt(i, n, k, true) {
			continue
		}
		if !pr.fits(i, rows[i], base, used, multi) {
			continue
		}
		for _, e := range rows[i] {
			used[e.node] -= e.gpus
			if n > 1 {
				multi[e.node]--
			}
		}
		for _, e := range base {
			used[e.node] += e.gpus
			if bn > 1 {
				multi[e.node]++
			}
		}
		rows[i] = base
		changed = true
	}
	if !changed {
		return st, fit
	}
	out := &state{}
	out.begin()
	for _, r := range rows {
		out.ents = append(out.ents, r...)
		out.endRow()
	}
	return out, pr.fitness(out)
}

// anyFloor reports whether some job has a memory floor.
func (pr *problem) anyFloor() bool {
	for _, f := range pr.minGPUs {
		if f > 0 {
			return true
		}
	}
	return false
}

// fits reports whether job i's row can be replaced by base given the GPUs
// used and the multi-node jobs on each node with row in place: node
// capacity, and with interference avoidance no node of a multi-node base
// shared with another multi-node job.
func (pr *problem) fits(i int, row, base []entry, used, multi []int32) bool {
	_, n := rowStats(row)
	_, bn := rowStats(base)
	for _, e := range base {
		free := pr.caps[e.node] - used[e.node] + gpusOn(row, e.node)
		if e.gpus > free {
			return false
		}
		if pr.avoid && bn > 1 {
			others := multi[e.node]
			if n > 1 && gpusOn(row, e.node) > 0 {
				others-- // the job itself
			}
			if others > 0 {
				return false
			}
		}
	}
	return true
}
