"""A test policy whose second round raises an exception."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import polluxsim_policy as pp  # noqa: E402


class Raises(pp.Policy):
    name = "raises"
    user_gpus = True

    def __init__(self):
        self.rounds = 0

    def schedule(self, now, cluster, jobs):
        self.rounds += 1
        print("round", self.rounds, "with", len(jobs), "jobs")  # to standard error
        if self.rounds == 2:
            return [1 / 0 for _ in jobs]
        return [None] * len(jobs)


if __name__ == "__main__":
    pp.main(Raises())
