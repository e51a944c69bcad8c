"""Smallest job first: a short policy to start from.

Each round, jobs run on the GPUs they asked for, the smallest requests
first (ties: the earlier submission, then the name); a job that does not
fit waits while smaller ones behind it start (backfilling); running jobs
keep their GPUs unless a smaller waiting job needs them.

    polluxsim run --policy external --policy-opt command='python3 python/examples/smallest_first.py'
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402


class SmallestFirst(pp.Policy):
    name = "smallest-first"
    user_gpus = True  # jobs run on exactly the GPUs they asked for

    def schedule(self, now, cluster, jobs):
        order = sorted(range(len(jobs)), key=lambda i: (jobs[i].request.gpus, jobs[i].submit, jobs[i].name))
        # Who runs: the smallest requests that fit in the cluster's GPUs.
        left = cluster.total_gpus()
        runs = set()
        for i in order:
            if jobs[i].request.gpus <= left:
                runs.add(i)
                left -= jobs[i].request.gpus
        # Running jobs that still run keep their GPUs; the others start on
        # the nodes with the most free GPUs.
        alloc = [jobs[i].alloc if i in runs and jobs[i].gpus() > 0 else None for i in range(len(jobs))]
        free = pp.free_gpus(cluster, alloc)
        for i in order:
            if i in runs and alloc[i] is None:
                alloc[i] = pp.place_job(cluster, free, jobs[i].request.gpus, jobs[i])
        return alloc


if __name__ == "__main__":
    pp.main(SmallestFirst())
