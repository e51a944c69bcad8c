package protocol

import (
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// FromJob is the wire form of j (its oracle left out). Slices and maps are
// shared with j, not copied: encode the result before j changes.
func FromJob(j *policies.Job) Job {
	w := Job{
		Name:          j.Name,
		App:           j.App,
		Submit:        j.Submit,
		Deadline:      j.Deadline,
		Age:           j.Age,
		Restarts:      j.Restarts,
		Interruptions: j.Interruptions,
		Attained:      j.Attained,
		Alloc:         j.Alloc,
		Request:       Request{GPUs: j.Request.GPUs, Batch: j.Request.Batch},
		Limits:        fromLimits(j.Limits),
		FixedBatch:    j.FixedBatch,
		MaxGPUs:       j.MaxGPUs,
		MinGPUs:       j.MinGPUs,
		NodeUnit:      j.NodeUnit,
		MaxSeenGPUs:   j.MaxSeenGPUs,
		Grad:          GradStats{Sqr: j.Grad.Sqr, Var: j.Grad.Var},
		Epoch:         j.Epoch,
		Types:         j.Types,
	}
	if j.Params != nil {
		p := j.Params.Named()
		w.Params = &p
	}
	if j.TypeModels != nil {
		w.TypeModels = make(map[string]TypeModel, len(j.TypeModels))
		for t, m := range j.TypeModels {
			w.TypeModels[t] = TypeModel{Params: m.Params.Named(), Limits: fromLimits(m.Limits)}
		}
	}
	return w
}

// Policies is the job as a policy in process sees it, without an oracle.
func (w *Job) Policies() policies.Job {
	j := policies.Job{
		Name:          w.Name,
		App:           w.App,
		Submit:        w.Submit,
		Deadline:      w.Deadline,
		Age:           w.Age,
		Restarts:      w.Restarts,
		Interruptions: w.Interruptions,
		Attained:      w.Attained,
		Alloc:         w.Alloc,
		Request:       policies.Request{GPUs: w.Request.GPUs, Batch: w.Request.Batch},
		Limits:        w.Limits.models(),
		FixedBatch:    w.FixedBatch,
		MaxGPUs:       w.MaxGPUs,
		MinGPUs:       w.MinGPUs,
		NodeUnit:      w.NodeUnit,
		MaxSeenGPUs:   w.MaxSeenGPUs,
		Grad:          models.GradStats{Sqr: w.Grad.Sqr, Var: w.Grad.Var},
		Epoch:         w.Epoch,
		Types:         w.Types,
	}
	if w.Params != nil {
		p := w.Params.Params()
		j.Params = &p
	}
	if w.TypeModels != nil {
		j.TypeModels = make(map[string]policies.TypeModel, len(w.TypeModels))
		for t, m := range w.TypeModels {
			j.TypeModels[t] = policies.TypeModel{Params: m.Params.Params(), Limits: m.Limits.models()}
		}
	}
	return j
}

// FromCluster is the wire form of c.
func FromCluster(c policies.Cluster) Cluster {
	w := Cluster{Nodes: c.Nodes, GPUsPerNode: c.GPUsPerNode, Racks: c.Racks, Oversubscription: c.Oversubscription}
	for _, p := range c.Pools {
		w.Pools = append(w.Pools, Pool{Type: p.Type, Nodes: p.Nodes, GPUsPerNode: p.GPUsPerNode, Price: p.Price, Name: p.Name})
	}
	return w
}

// Policies is the cluster as policies.Cluster.
func (w Cluster) Policies() policies.Cluster {
	c := policies.Cluster{Nodes: w.Nodes, GPUsPerNode: w.GPUsPerNode, Racks: w.Racks, Oversubscription: w.Oversubscription}
	for _, p := range w.Pools {
		c.Pools = append(c.Pools, policies.Pool{Type: p.Type, Nodes: p.Nodes, GPUsPerNode: p.GPUsPerNode, Price: p.Price, Name: p.Name})
	}
	return c
}

// FromTraits is the wire form of t.
func FromTraits(t policies.Traits) Traits {
	return Traits{AdaptiveBatch: t.AdaptiveBatch, NeedsOracle: t.NeedsOracle, UserGPUs: t.UserGPUs, SizesLLMJobs: t.SizesLLMJobs}
}

// Policies is the traits as policies.Traits.
func (t Traits) Policies() policies.Traits {
	return policies.Traits{AdaptiveBatch: t.AdaptiveBatch, NeedsOracle: t.NeedsOracle, UserGPUs: t.UserGPUs, SizesLLMJobs: t.SizesLLMJobs}
}

func fromLimits(l models.Limits) Limits {
	return Limits{InitBatch: l.InitBatch, MaxBatch: l.MaxBatch, MinLocal: l.MinLocal, MaxLocal: l.MaxLocal}
}

func (l Limits) models() models.Limits {
	return models.Limits{InitBatch: l.InitBatch, MaxBatch: l.MaxBatch, MinLocal: l.MinLocal, MaxLocal: l.MaxLocal}
}

// ForVersion drops from the job what a conversation of version v cannot
// carry: node_unit before LLMVersion.
func (w *Job) ForVersion(v int) {
	if v < LLMVersion {
		w.NodeUnit = 0
	}
}

// ForVersion is the cluster as a conversation of version v carries it:
// one tier before LLMVersion.
func (w Cluster) ForVersion(v int) Cluster {
	if v < LLMVersion {
		w.Racks, w.Oversubscription = 0, 0
	}
	return w
}
