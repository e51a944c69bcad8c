"""A policy in Python against Tiresias and Pollux, start to finish.

Writes a small policy (shortest request first: jobs asking for fewer GPUs
go first, FIFO among equals), runs it, Tiresias and Pollux on the
reference workloads paper:1..N (one sweep, N = 8 by default, or the first
argument), prints the mean JCT per policy and plots each policy's JCT CDF
to jct_cdf.png with matplotlib, or, without matplotlib, writes the CDF's
points to jct_cdf.csv. The output folder is the second argument (default
out/python-example).

    PYTHONPATH=python python3 examples/python/jct_cdf.py 8 out/python-example

The polluxsim binary is found as polluxsim.find_binary says ($POLLUXSIM,
the repository's bin/polluxsim after `make build`, or PATH).
"""

import csv
import os
import sys

import polluxsim
import polluxsim_policy as pp


class FewestGPUsFirst(pp.Policy):
    """Jobs asking for fewer GPUs first; a running job keeps its GPUs."""

    name = "fewest-gpus-first"
    user_gpus = True

    def schedule(self, now, cluster, jobs):
        alloc = [j.alloc if j.gpus() > 0 else None for j in jobs]
        free = pp.free_gpus(cluster, alloc)
        for i in sorted(range(len(jobs)), key=lambda i: (jobs[i].request.gpus, jobs[i].submit, jobs[i].name)):
            if alloc[i] is None:
                alloc[i] = pp.place_job(cluster, free, jobs[i].request.gpus, jobs[i])
        return alloc


def cdf(values):
    """(x, fraction of values <= x) at each value, sorted."""
    xs = sorted(values)
    return [(x, (i + 1) / len(xs)) for i, x in enumerate(xs)]


def main(workloads, out):
    spec = {
        "name": "python-example",
        "version": 1,
        "description": "A Python policy against Tiresias and Pollux on the reference workloads.",
        "workloads": {"count": workloads},
        "cells": [
            {"name": "fewest-gpus-first", "policy": FewestGPUsFirst},
            {"name": "tiresias", "policy": "tiresias"},
            {"name": "pollux", "policy": "pollux"},
        ],
    }
    res = polluxsim.sweep(spec, out=out, no_timing=True)
    jobs = res.jobs()
    if isinstance(jobs, list):  # no pandas: lists of dicts
        by_cell = {}
        for j in jobs:
            if j["jct_s"] is not None:
                by_cell.setdefault(j["cell"], []).append(j["jct_s"])
    else:
        by_cell = {c: list(g.dropna()) for c, g in jobs.groupby("cell", observed=True)["jct_s"]}
    for cell in sorted(by_cell):
        v = by_cell[cell]
        print("%-18s %4d jobs  mean JCT %7.0f s" % (cell, len(v), sum(v) / len(v)))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        path = os.path.join(out, "jct_cdf.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["cell", "jct_s", "fraction"])
            for cell in sorted(by_cell):
                w.writerows((cell, x, y) for x, y in cdf(by_cell[cell]))
        print("no matplotlib: wrote the CDF to", path)
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for cell in sorted(by_cell):
        pts = cdf(by_cell[cell])
        ax.step([x / 3600 for x, _ in pts], [y for _, y in pts], where="post", label=cell)
    ax.set_xscale("log")
    ax.set_xlabel("JCT (hours)")
    ax.set_ylabel("fraction of jobs")
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "jct_cdf.png")
    fig.savefig(path, dpi=120)
    print("wrote", path)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8, sys.argv[2] if len(sys.argv) > 2 else os.path.join("out", "python-example"))
