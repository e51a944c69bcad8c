"""Earliest deadline first, with optional admission control, ported from
policies/edf: an example of admission across the process boundary
(protocol version 3). Jobs run at the GPUs and batch size their users
asked for; every round the jobs with a deadline are ranked by deadline
(ties: submission), the best-effort jobs after them by submission; in that
order every job that still fits runs (a smaller job may pass a blocked
larger one) and the rest are preempted (run_in_order).

With --admission the policy declines, at its submission, a job whose
deadline it could not meet even alone on its requested GPUs from that
moment: the restart delay, then its remaining steps at the true step time,
asked of the simulator's oracle.

    polluxsim run --policy external --policy-opt command='python3 python/examples/edf.py --admission'
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402

DECLINE_REASON = "deadline cannot be met even alone on its requested GPUs"  # edf.DeclineReason


def order_key(job):
    """edf.Before: jobs with a deadline first, by deadline; then by
    submission (sorted is stable: ties keep the round's order)."""
    if job.deadline > 0:
        return (0, job.deadline, job.submit)
    return (1, 0.0, job.submit)


class EDF(pp.Policy):
    name = "edf"
    user_gpus = True

    def __init__(self, admission=False):
        self.admission = admission
        self.needs_oracle = admission
        self.delay = 0.0
        if not admission:
            self.admit = None  # admits every job: no admission declared

    def options(self):
        return {"admission": self.admission}

    def start(self, seed, restart_delay):
        self.delay = restart_delay

    def schedule(self, now, cluster, jobs):
        order = sorted(range(len(jobs)), key=lambda i: order_key(jobs[i]))
        return pp.run_in_order(cluster, jobs, order)

    def earliest(self, now, cluster, job):
        """edf.Policy.Earliest: the earliest finish of job started now,
        alone, on its requested GPUs packed onto the fewest nodes."""
        k = job.request.gpus
        placement = pp.packed_placement(k, cluster.max_node_gpus())
        m, s = pp.split_batch(job.limits, k, float(job.request.batch))
        m = max(m, 1)
        batch = k * m * (s + 1)
        return now + self.delay + job.remaining_iterations(batch) * job.iter_time(placement, float(m), s)

    def admit(self, now, cluster, job, active):
        if job.deadline <= 0:
            return None
        if self.earliest(now, cluster, job) > job.deadline:
            return DECLINE_REASON
        return None


if __name__ == "__main__":
    pp.main(EDF(admission="--admission" in sys.argv[1:]))
