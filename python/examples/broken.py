"""A deliberately broken policy, for the conformance suite to catch: it
puts every job's requested GPUs on node 0, whatever node 0 holds (the
capacity rule; policies/conformance's broken-over-capacity does the same
in Go)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402


class OverCapacity(pp.Policy):
    name = "broken-over-capacity"
    user_gpus = True

    def schedule(self, now, cluster, jobs):
        alloc = []
        for j in jobs:
            a = [0] * cluster.nodes
            a[0] = j.request.gpus
            alloc.append(a)
        return alloc


if __name__ == "__main__":
    pp.main(OverCapacity())
