package sim

// Closed-loop arrivals (paper §5.4.2, hyper-parameter search): with
// Config.ClosedLoop = N > 0, the first N jobs of the workload arrive at
// their submission times and every other job is submitted, in workload
// order, the moment an earlier one finishes, so that at most N are active
// at once until the workload's jobs are used up. The submission times of
// the later jobs in the workload are ignored.

// initialArrivals is the number of jobs that arrive on their own.
func (e *engine) initialArrivals() int {
	if e.cfg.ClosedLoop > 0 {
		return min(e.cfg.ClosedLoop, len(e.jobs))
	}
	return len(e.jobs)
}

// submitNext submits the next job of a closed loop, if any, now.
func (e *engine) submitNext() {
	if e.cfg.ClosedLoop <= 0 || e.nextSubmit >= len(e.jobs) {
		return
	}
	j := e.jobs[e.nextSubmit]
	e.nextSubmit++
	j.spec.Time = e.now
	j.last = e.now
	e.events.push(event{time: e.now, kind: evArrival, job: j.idx})
}
