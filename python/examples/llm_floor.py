"""Floor first: an example of a policy that sizes LLM jobs itself
(protocol version 4: the trait sizes_llm_jobs, Job.min_gpus,
Job.node_unit, Cluster.racks), the port of the Go policy in
policies/external's LLM parity test.

Every job runs on want GPUs: for an LLM job the smallest power of two at
least its memory floor (min_gpus), for any other job its request. In
workload order, a job holding want GPUs keeps them; the others are placed
on what is left, taking a multiple of job.tensor_unit(want) GPUs on every
node (no tensor group splits across nodes): within the rack with the most
usable GPUs that holds the job (ties: the lowest rack), else on any nodes,
the nodes with the most usable GPUs first (ties: the lowest node). A job
that does not fit waits. Batch sizes are the users'.

    polluxsim run --profiles llm --cluster h100:4x8,racks=2,oversub=4 \\
        --policy external --policy-opt command='python3 python/examples/llm_floor.py' ...
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402


def want(job):
    """The GPUs the job runs on."""
    if job.min_gpus <= 0:
        return job.request.gpus
    k = 1
    while k < job.min_gpus:
        k *= 2
    return k


def place(cluster, free, k, unit):
    """k GPUs in multiples of unit per node (see the module's doc),
    subtracted from free; None when they do not fit."""
    usable = [f // unit * unit for f in free]
    if sum(usable) < k:
        return None
    racks = {}
    for n, u in enumerate(usable):
        racks[cluster.rack(n)] = racks.get(cluster.rack(n), 0) + u
    best = -1
    for r in sorted(racks):
        if racks[r] >= k and (best < 0 or racks[r] > racks[best]):
            best = r
    nodes = [n for n in range(len(free)) if best < 0 or cluster.rack(n) == best]
    nodes.sort(key=lambda n: (-usable[n], n))
    alloc = [0] * len(free)
    left = k
    for n in nodes:
        if left == 0:
            break
        take = min(usable[n], left)
        alloc[n] = take
        free[n] -= take
        left -= take
    return alloc


class FloorFirst(pp.Policy):
    name = "llm-floor"
    sizes_llm_jobs = True

    def schedule(self, now, cluster, jobs):
        free = [cluster.node_gpus(n) for n in range(cluster.nodes)]
        out = [None] * len(jobs)
        for i, j in enumerate(jobs):
            if j.alloc and j.gpus() == want(j):
                out[i] = j.alloc
                for n, v in enumerate(j.alloc):
                    free[n] -= v
        for i, j in enumerate(jobs):
            if out[i] is None:
                k = want(j)
                out[i] = place(cluster, free, k, j.tensor_unit(k))
        return out


if __name__ == "__main__":
    sys.exit(pp.serve(FloorFirst()))
