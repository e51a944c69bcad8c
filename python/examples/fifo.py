"""FIFO, ported from policies/fifo: jobs run in arrival order on the GPUs
their users asked for; a job that does not fit waits, and so do all jobs
behind it (no backfilling); running jobs are never preempted.

    polluxsim run --policy external --policy-opt command='python3 python/examples/fifo.py'

--full answers only full rounds (no schedule_incremental).
"""

import bisect
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402


class FIFO(pp.Policy):
    name = "fifo"
    user_gpus = True

    def __init__(self, full=False):
        self.keys = []   # tracked keys, increasing (incremental rounds)
        self.jobs = {}   # key -> job
        self.held = {}   # key -> job holding GPUs
        if full:
            self.schedule_incremental = None

    def schedule(self, now, cluster, jobs):
        alloc = [list(j.alloc) if j.gpus() > 0 else None for j in jobs]
        free = pp.free_gpus(cluster, alloc)
        for i, j in enumerate(jobs):
            if alloc[i] is not None:
                continue
            a = pp.place_job(cluster, free, j.request.gpus, j)
            if a is None:
                break
            alloc[i] = a
        return alloc

    def schedule_incremental(self, now, cluster, added, removed):
        for k in removed:
            i = bisect.bisect_left(self.keys, k)
            if i < len(self.keys) and self.keys[i] == k:
                del self.keys[i]
            self.jobs.pop(k, None)
            self.held.pop(k, None)
        for k, j in added:
            bisect.insort(self.keys, k)
            self.jobs[k] = j
            if j.gpus() > 0:
                self.held[k] = j  # placed before the policy knew it
        free = pp.free_gpus(cluster, [j.alloc for j in self.held.values()])
        changes = []
        for k in self.keys:
            j = self.jobs[k]
            if j.gpus() > 0:
                continue
            a = pp.place_job(cluster, free, j.request.gpus, j)
            if a is None:
                break
            changes.append((k, a))
            self.held[k] = j
        return changes


if __name__ == "__main__":
    pp.main(FIFO(full="--full" in sys.argv[1:]))
