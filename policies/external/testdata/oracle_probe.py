"""A test policy: FIFO (python/examples/fifo.py) that, every round, asks
the simulator every oracle fact of every job and prints the answers to
standard error, one line each: oracle JOB FACT WHERE BITS OK, WHERE the GPU
type or placement asked about (or -), BITS the float64's bits as an integer
(exact); step_time gives two lines, step and sync."""

import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python", "examples"))
from fifo import FIFO  # noqa: E402
import polluxsim_policy as pp  # noqa: E402


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


class Probe(FIFO):
    name = "oracle-probe"
    needs_oracle = True

    def schedule(self, now, cluster, jobs):
        for j in jobs:
            g, b = j.request.gpus, j.request.batch
            answers = [
                ("epochs", "", j.epochs(), True),
                ("iterations", "", j.iterations(b, 1), True),
                ("iter_time", "", j.iter_time([g], b / g, 0), True),
                ("remaining_iterations", "", j.remaining_iterations(b), True),
                ("completion_epoch", "", j.completion_epoch(b), True),
            ]
            for place in ([g], [1, 1]):
                step, sync = j.step_time(place, b / g)
                where = ",".join(map(str, place))
                answers += [("step", where, step, True), ("sync", where, sync, True)]
            for t in ("t4", "nosuchgpu"):
                v, ok = j.type_iter_time(t, [g], b)
                answers.append(("type_iter_time", t, v, ok))
            for fact, t, v, ok in answers:
                print("oracle", j.name, fact, t or "-", bits(v), ok)
        return super().schedule(now, cluster, jobs)


if __name__ == "__main__":
    pp.main(Probe(full=True))
