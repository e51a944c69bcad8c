"""A trivial policy for measuring the protocol's cost: every job gets
nothing, in full and in changes-only rounds."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import polluxsim_policy as pp  # noqa: E402


class Nothing(pp.Policy):
    name = "nothing"
    user_gpus = True

    def schedule(self, now, cluster, jobs):
        return [None] * len(jobs)


if __name__ == "__main__":
    pp.main(Nothing())
