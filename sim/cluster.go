package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// This file holds the engine's support for clusters of node pools
// (Config.Cluster.Pools): per-node capacities, GPU types, and per-type
// ground truth. A cluster without pools takes none of these paths.

// typed reports whether the cluster is given as node pools.
func (c *Config) typed() bool { return len(c.Cluster.Pools) > 0 }

// checkPools validates the cluster's pools.
func checkPools(c policies.Cluster) error {
	if len(c.Pools) == 0 {
		return nil
	}
	nodes, per := 0, 0
	price := map[string]float64{}
	for i, p := range c.Pools {
		if q, ok := price[p.Type]; ok && q != p.Price {
			return fmt.Errorf("cluster pool %d (%s): price %v differs from another %s pool's %v (one price per GPU type)", i+1, p.Type, p.Price, p.Type, q)
		}
		price[p.Type] = p.Price
		if p.Type == "" {
			return fmt.Errorf("cluster pool %d has no GPU type", i+1)
		}
		if p.Nodes <= 0 || p.GPUsPerNode <= 0 {
			return fmt.Errorf("cluster pool %d (%s) must have at least one node of at least one GPU, got %d x %d", i+1, p.Type, p.Nodes, p.GPUsPerNode)
		}
		if p.Price < 0 || math.IsNaN(p.Price) || math.IsInf(p.Price, 0) {
			return fmt.Errorf("cluster pool %d (%s): price must be a non-negative number, got %v", i+1, p.Type, p.Price)
		}
		nodes += p.Nodes
		per = max(per, p.GPUsPerNode)
	}
	if nodes != c.Nodes || per != c.GPUsPerNode {
		return fmt.Errorf("cluster has %d nodes of up to %d GPUs, its pools %d of up to %d (build it with policies.NewCluster)", c.Nodes, c.GPUsPerNode, nodes, per)
	}
	return nil
}

// checkTypes verifies, on a cluster of pools, that every GPU type serves
// some application of the workload and every job has a type to run on.
func checkTypes(c policies.Cluster, set *profiles.Set, w *traces.Workload, userGPUs bool) error {
	apps := map[string]bool{}
	for _, j := range w.Jobs {
		apps[j.App] = true
	}
	for _, t := range c.Types() {
		served := false
		for name := range apps {
			if a := set.Apps[name]; a != nil && a.ForType(t) != nil {
				served = true
			}
		}
		if !served {
			return fmt.Errorf("cluster GPU type %s: no application of workload %s has measured tables for it in profiles %s", t, w.Source, set.Source)
		}
	}
	names := slices.Sorted(maps.Keys(apps))
	for _, p := range c.Pools {
		for _, name := range names {
			if set.Apps[name] == nil {
				continue
			}
			if a := set.Apps[name].ForType(p.Type); a != nil && a.NodeGPUs > 0 && p.GPUsPerNode != a.NodeGPUs {
				return fmt.Errorf("cluster GPU type %s: nodes of %d GPUs, but application %s models %s nodes of exactly %d, one NVLink domain (its memory floor and step times assume it; profiles %s)",
					p.Type, p.GPUsPerNode, name, p.Type, a.NodeGPUs, set.Source)
			}
		}
	}
	for i, spec := range w.Jobs {
		a := set.Apps[spec.App]
		most := 0
		for _, t := range c.Types() {
			if a.ForType(t) != nil {
				most = max(most, c.TypeGPUs(t))
			}
		}
		if most == 0 {
			return fmt.Errorf("workload %s: job %s (job %d): application %s has tables for none of the cluster's GPU types %v (it has %v)",
				w.Source, spec.Name, i+1, spec.App, c.Types(), a.Types())
		}
		if userGPUs && spec.Replicas > most {
			return fmt.Errorf("workload %s: job %s (job %d) asks for %d GPUs, the cluster has at most %d of one type it can use",
				w.Source, spec.Name, i+1, spec.Replicas, most)
		}
	}
	return nil
}

// offered lists the cluster's GPU types job j's application has tables for.
func offered(c policies.Cluster, app *profiles.App) []string {
	var ts []string
	for _, t := range c.Types() {
		if app.ForType(t) != nil {
			ts = append(ts, t)
		}
	}
	return ts
}

// bootstrap emulates Sia's arrival profiling on a cluster of several GPU
// types: the job's agent measures one GPU of every offered type at the
// smallest, a middle and the largest per-GPU batch size there and fits
// θ_sys per type from these (with the fit's priors for what one GPU cannot
// show: synchronisation).
func (e *engine) bootstrap(j *job) error {
	for _, t := range j.types {
		a := j.app.ForType(t)
		lim := a.Limits
		var obs []models.Observation
		for _, m := range []int{lim.MinLocal, (lim.MinLocal + lim.MaxLocal) / 2, lim.MaxLocal} {
			step, sync := a.Truth.Step([]int{1}, float64(m))
			obs = append(obs, models.Observation{Nodes: 1, GPUs: 1, Local: float64(m), TIter: step, TGrad: max(step-sync, 0)})
		}
		if err := j.agent.bootstrap(t, obs); err != nil {
			return fmt.Errorf("job %s: bootstrap fit on %s: %w", j.spec.Name, t, err)
		}
	}
	return nil
}

// typeModels is what the job's agent knows per offered type.
func (j *job) typeModels() map[string]policies.TypeModel {
	m := make(map[string]policies.TypeModel, len(j.types))
	for _, t := range j.types {
		p, ok := j.agent.typeParams(t)
		if !ok {
			continue
		}
		m[t] = policies.TypeModel{Params: p, Limits: j.app.ForType(t).Limits}
	}
	return m
}

// checkTypedAlloc verifies that a job's allocation on a cluster of pools,
// whose GPUs are of type t ("": more than one, policies.Cluster.AllocType),
// holds GPUs of one type the job may use.
func (e *engine) checkTypedAlloc(j *job, t string) error {
	if t == "" {
		return fmt.Errorf("policy %s gave job %s GPUs of more than one type (t=%v)", e.policy.Name(), j.spec.Name, e.now)
	}
	if j.app.ForType(t) == nil {
		return fmt.Errorf("policy %s gave job %s GPUs of type %s, for which %s has no measured tables (t=%v)",
			e.policy.Name(), j.spec.Name, t, j.spec.App, e.now)
	}
	return nil
}

// checkNetwork reports a two-tier network (Cluster.Racks) the engine
// cannot keep: one that does not describe the cluster, or one on a
// cluster whose nodes change (an elastic cluster) or are renumbered
// (spare nodes held back under failures), where racks of consecutive
// nodes would no longer be the racks given.
func (c *Config) checkNetwork() error {
	if err := c.Cluster.CheckNetwork(); err != nil {
		return fmt.Errorf("--cluster: %w", err)
	}
	switch {
	case c.Cluster.Racks == 0:
		return nil
	case c.Elastic != nil:
		return fmt.Errorf("--cluster racks=%d on an elastic cluster: racks need a fixed set of nodes", c.Cluster.Racks)
	case c.Failures != nil && c.Failures.Spares > 0:
		return fmt.Errorf("--cluster racks=%d with --failures spares=%d: spares renumber the nodes in service; give racks without spares", c.Cluster.Racks, c.Failures.Spares)
	}
	return nil
}

// network is where the nodes of alloc sit in the cluster's two-tier
// network, for the step model (profiles.Network): nil racks on one tier
// and when alloc uses one rack, where every step is one tier's.
func (c *Config) network(alloc []int) profiles.Network {
	if c.Cluster.Racks <= 1 {
		return profiles.Network{}
	}
	var racks []int
	first, spans := -1, false
	for n, v := range alloc {
		if v > 0 {
			r := c.Cluster.Rack(n)
			if first < 0 {
				first = r
			}
			spans = spans || r != first
			racks = append(racks, r)
		}
	}
	if !spans {
		return profiles.Network{}
	}
	return profiles.Network{Racks: racks, Oversub: c.Cluster.Oversubscription}
}
