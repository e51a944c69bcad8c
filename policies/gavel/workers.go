package gavel

import (
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// worker is one GPU: a node of the cluster and a slot on it.
type worker struct{ node, slot int }

// placeWorkers places the round's picks as Gavel's code does
// (scheduler/scheduler.py _schedule_jobs_on_workers and
// _assign_workers_to_job, copied by the Sia artifact as gavel.py
// schedule_jobs_on_workers and assign_workers_to_job), option
// placement=workers. Per GPU type, the jobs picked there are taken in
// decreasing GPU count (picking order among equals); for each count, the
// jobs that ran on the type last round keep their GPUs when none of them
// is taken yet, then the others take free GPUs in worker order (the
// type's nodes in cluster order, slots in order) from a pointer that only
// moves forward, so a job may span more nodes than it needs. order lists
// the picked jobs in picking order; prev holds last round's workers.
func placeWorkers(c policies.Cluster, types []string, jobs []policies.Job, pick, order []int, prev map[string][]worker) (alloc [][]int, now map[string][]worker) {
	alloc = make([][]int, len(jobs))
	now = map[string][]worker{}
	for k, t := range types {
		var servers [][]worker
		for n := 0; n < c.Nodes; n++ {
			if c.NodeType(n) != t {
				continue
			}
			s := make([]worker, c.NodeGPUs(n))
			for g := range s {
				s[g] = worker{n, g}
			}
			servers = append(servers, s)
		}
		var here []int // jobs picked on t, in picking order
		for _, i := range order {
			if pick[i] == k {
				here = append(here, i)
			}
		}
		slices.SortStableFunc(here, func(a, b int) int { return jobs[b].Request.GPUs - jobs[a].Request.GPUs })
		taken := map[worker]bool{}
		ptr := 0
		for x := 0; x < len(here); {
			size := jobs[here[x]].Request.GPUs
			end := x
			for end < len(here) && jobs[here[end]].Request.GPUs == size {
				end++
			}
			group := here[x:end]
			for _, i := range group {
				ws, ok := prev[jobs[i].Name]
				if !ok || len(ws) != size || c.NodeType(ws[0].node) != t || slices.ContainsFunc(ws, func(w worker) bool { return taken[w] }) {
					continue
				}
				now[jobs[i].Name] = ws
				for _, w := range ws {
					taken[w] = true
				}
			}
			for _, i := range group {
				ws := now[jobs[i].Name]
				for len(ws) < size && ptr < len(servers) {
					if len(servers[ptr]) == 0 {
						ptr++
						continue
					}
					w := servers[ptr][0]
					if !taken[w] {
						ws = append(ws, w)
						taken[w] = true
					}
					servers[ptr] = servers[ptr][1:]
				}
				if len(ws) != size {
					ws = nil // cannot happen: the picks fit the type
				}
				if ws != nil {
					now[jobs[i].Name] = ws
				} else {
					delete(now, jobs[i].Name)
				}
			}
			x = end
		}
	}
	for i := range jobs {
		ws := now[jobs[i].Name]
		if ws == nil {
			continue
		}
		a := make([]int, c.Nodes)
		for _, w := range ws {
			a[w.node]++
		}
		alloc[i] = a
	}
	return alloc, now
}
