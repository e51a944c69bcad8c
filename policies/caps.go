package policies

// GPUCap is the most GPUs job j may hold under a policy with traits t, or
// 0 when only the cluster bounds it. It is the one statement of a job's
// caps: the simulator enforces it on every decision and the conformance
// suite (policies/conformance) checks every policy against it.
//
// A policy that runs jobs on their request (t.UserGPUs) must give a job
// exactly Request.GPUs or nothing; the user chose that count, so GPUCap is
// Request.GPUs and the caps below do not apply. Any other policy chooses
// the count itself and must respect:
//   - the application's cap MaxGPUs, when positive;
//   - the job's batch limits: every GPU processes at least Limits.MinLocal
//     samples per step, so a job whose total batch is at most B may hold at
//     most B / MinLocal GPUs (at least 1), where B is Limits.MaxBatch when
//     the job adapts its batch size (t.AdaptiveBatch) and its requested
//     batch otherwise.
func GPUCap(j *Job, t Traits) int {
	if t.UserGPUs {
		return j.Request.GPUs
	}
	limit := 0
	batch := j.Request.Batch
	if t.AdaptiveBatch {
		batch = j.Limits.MaxBatch
	}
	if j.Limits.MinLocal > 0 && batch > 0 {
		limit = max(batch/j.Limits.MinLocal, 1)
	}
	if j.MaxGPUs > 0 && (limit == 0 || j.MaxGPUs < limit) {
		limit = j.MaxGPUs
	}
	return limit
}
