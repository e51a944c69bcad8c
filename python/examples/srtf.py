"""Shortest remaining GPU-time first with an oracle, ported from
policies/srtf: an example of oracle queries. Jobs run at the GPUs and batch
size their users asked for; every round they are ranked by the GPU-time
they still need (remaining iterations x true iteration time on their
requested GPUs packed onto nodes, x GPUs), asked of the simulator; in that
order every job that still fits runs (smaller jobs may pass a blocked large
one) and the rest are preempted. Jobs that keep running keep their nodes;
newly started ones go to the nodes with the most free GPUs.

    polluxsim run --policy external --policy-opt command='python3 python/examples/srtf.py'
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402


def step_time(job, n, per_node):
    """optimus.StepTime: the true time of one step of job at its requested
    batch on n GPUs packed onto nodes, with accumulation when the per-GPU
    batch exceeds the memory limit (at least one on a single GPU)."""
    lim = job.limits
    local = pp.ceil_batch(job.request.batch / n)
    min_accum = 1 if n == 1 else 0
    s = max(int(pp.ceil_batch(local / lim.max_local)) - 1, 0, min_accum)  # models.SplitLocal
    atomic = pp.ceil_batch(local / (s + 1))
    m = int(atomic)
    if lim.max_batch > 0:  # Limits.CapLocal
        m = min(m, lim.max_batch // (n * (s + 1)))
    return job.iter_time(pp.packed_placement(n, per_node), float(m), s)


def remaining_gpu_time(job, per_node):
    n = job.request.gpus
    return job.remaining_iterations(job.request.batch) * step_time(job, n, per_node) * float(n)


class SRTF(pp.Policy):
    name = "srtf"
    user_gpus = True
    needs_oracle = True

    def schedule(self, now, cluster, jobs):
        rem = [remaining_gpu_time(j, cluster.max_node_gpus()) for j in jobs]
        order = sorted(range(len(jobs)), key=lambda i: (rem[i], jobs[i].submit))
        return pp.run_in_order(cluster, jobs, order)


if __name__ == "__main__":
    pp.main(SRTF())
