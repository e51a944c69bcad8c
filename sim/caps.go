package sim

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
)

// checkCaps checks each job's GPUs in a decision against its caps
// (policies.GPUCap): under a policy that chooses GPU counts, no job may
// hold more than its application's cap or than its batch limits allow.
// (That a policy running jobs on their request gives exactly the request
// is checked with the node capacities, in checkDecision.) views are the
// jobs as the policy saw them, in decision order; the decision's shape has
// been checked already. A violation is an error naming the job, the round
// and the policy.
func (e *engine) checkCaps(views []policies.Job, dec policies.Decision) error {
	for i, a := range dec.Alloc {
		if err := e.checkCap(&views[i], a); err != nil {
			return err
		}
	}
	return nil
}

// checkCap checks one job's allocation a against its cap (see checkCaps).
func (e *engine) checkCap(j *policies.Job, a []int) error {
	if e.traits.UserGPUs {
		return nil
	}
	if k, limit := policies.Sum(a), policies.GPUCap(j, e.traits); limit > 0 && k > limit {
		return fmt.Errorf("invariant violated: policy %s gave job %s %d GPUs in the round at t=%v, above its cap of %d (application cap %d, batch limits %d-%d per GPU, largest batch %d)",
			e.policy.Name(), j.Name, k, e.now, limit, j.MaxGPUs, j.Limits.MinLocal, j.Limits.MaxLocal, capBatch(j, e.traits))
	}
	return nil
}

// capBatch is the largest total batch behind a job's batch cap (see
// policies.GPUCap), for error messages.
func capBatch(j *policies.Job, t policies.Traits) int {
	if t.AdaptiveBatch {
		return j.Limits.MaxBatch
	}
	return j.Request.Batch
}

// minGPUs is the fewest GPUs job j fits in on allocation a's GPU type
// (profiles.App.MinGPUs; 0 for the six reference applications). The
// engine treats an allocation of fewer as none, as AdaptDL's allocator
// repairs a decision below a job's min_replicas: a policy that does not
// know the job's memory loses those GPUs for the round.
func (e *engine) minGPUs(j *job, a []int) int {
	app := j.on()
	if e.cfg.typed() {
		if t := e.cfg.Cluster.AllocType(a); t != "" {
			if ta := j.app.ForType(t); ta != nil {
				app = ta
			}
		}
	}
	return j.floor(app)
}

// floor is the fewest GPUs job j may run on with app's profile (a GPU
// type's): the application's MinGPUs, or for a rigid job (see job.rigid)
// with a floor, the GPUs it asked for, at least that floor.
func (j *job) floor(app *profiles.App) int {
	if app.MinGPUs > 0 && j.rigid {
		return max(app.MinGPUs, j.spec.Replicas)
	}
	return app.MinGPUs
}

// viewFloor is the floor the policy sees for job j (policies.Job.MinGPUs):
// on the type it holds for a job holding GPUs, else the largest floor
// over the types it is offered (types: those it can run on, see
// fitting), so that a policy giving a waiting job at least that many
// GPUs of any offered type gives it GPUs it can run on. A job's floor
// differs between types (an A100-40GB holds less of a model than an
// H100): the base profile's floor alone let Pollux offer a waiting job
// too few GPUs of another type, which the engine then took back, round
// after round.
func (j *job) viewFloor() int {
	if j.alloc != nil || len(j.types) == 0 {
		return j.floor(j.on())
	}
	f := 0
	for _, t := range j.types {
		f = max(f, j.floor(j.app.ForType(t)))
	}
	return f
}

// fitting are the types of ts (offered to job j) where j can run: their
// GPUs in cluster c hold its floor there, and a rigid job's request is
// at least its model's floor there.
func (j *job) fitting(c policies.Cluster, ts []string) []string {
	var out []string
	for _, t := range ts {
		a := j.app.ForType(t)
		if j.floor(a) <= c.TypeGPUs(t) && (!j.rigid || a.MinGPUs <= j.spec.Replicas) {
			out = append(out, t)
		}
	}
	return out
}

// checkFloor refuses a job with a floor (an LLM job) that could never
// run: a rigid one that asks for fewer GPUs than its model fits in on
// every GPU type of the cluster it can use, and any one whose floor is
// more GPUs than the cluster has of every type it can use.
func checkFloor(cfg Config, j *job) error {
	if j.app.MinGPUs == 0 {
		return nil
	}
	least, on := j.app.MinGPUs, j.app.Type
	types := []string{j.app.Type}
	if cfg.typed() {
		least = 0
		types = offered(cfg.Cluster, j.app)
		for _, t := range types {
			if m := j.app.ForType(t).MinGPUs; least == 0 || m < least {
				least, on = m, t
			}
		}
	}
	if j.rigid && least > j.spec.Replicas {
		return fmt.Errorf("asks for %d GPUs, but %s fits in no fewer than %d %s GPUs (policies that do not size LLM jobs run them on their request)",
			j.spec.Replicas, j.spec.App, least, on)
	}
	if cfg.typed() {
		if len(types) > 0 && len(j.fitting(cfg.Cluster, types)) == 0 {
			return fmt.Errorf("%s fits in no fewer than %d %s GPUs, more than the cluster has of any GPU type it can use", j.spec.App, least, on)
		}
	} else if total := cfg.Cluster.TotalGPUs(); least > total {
		return fmt.Errorf("%s fits in no fewer than %d GPUs, more than the cluster's %d", j.spec.App, least, total)
	}
	return nil
}
