"""A test policy whose schedule (or schedule_incremental) returns what its
first argument names instead of a decision: int, ints, float, pair or
incremental-int."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import polluxsim_policy as pp  # noqa: E402

MODE = sys.argv[1]


class Returns(pp.Policy):
    name = "returns"
    user_gpus = True

    def schedule(self, now, cluster, jobs):
        if MODE == "int":
            return 3
        if MODE == "ints":
            return [0 for _ in jobs]
        if MODE == "float":
            return [[1.0] + [0] * (cluster.nodes - 1) for _ in jobs]
        return [None] * len(jobs)

    def schedule_incremental(self, now, cluster, added, removed):
        if MODE == "incremental-int":
            return 5
        if MODE == "pair":
            return [(k, None, "x") for k, _ in added]
        return []


if __name__ == "__main__":
    pp.main(Returns())
