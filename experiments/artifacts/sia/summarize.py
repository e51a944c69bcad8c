#!/usr/bin/env python3
"""Summarise runs of the Sia artifact's simulator (its --output logs, JSON
lines) as polluxsim prints them: per workload, average JCT, makespan (last
completion minus first submission, as its utils/print_run_stats.py) and
restarts, and per application the mean JCT and restarts. Standard library
only."""
import collections
import json
import sys


def last_record(path):
    rec = None
    with open(path) as f:
        for line in f:
            if line.strip():
                rec = line
    return json.loads(rec)


def main(paths):
    for path in paths:
        jobs = last_record(path)["submitted_jobs"]
        done = [j for j in jobs if j["completion_time"] is not None]
        jct = [j["completion_time"] - j["submission_time"] for j in done]
        makespan = max(j["completion_time"] for j in done) - min(j["submission_time"] for j in jobs)
        restarts = sum(j["num_restarts"] or 0 for j in done)
        print("%s: %d of %d jobs done, avg JCT %.0f s (%.2f h), makespan %.0f s, restarts %d"
              % (path, len(done), len(jobs), sum(jct) / len(jct), sum(jct) / len(jct) / 3600, makespan, restarts))
        by = collections.defaultdict(list)
        for j in done:
            by[j["name"].rsplit("-", 1)[0]].append(j)
        for app, js in sorted(by.items()):
            n = len(js)
            print("  %-12s n=%4d jct=%7.0f restarts=%5.2f" % (
                app, n, sum(j["completion_time"] - j["submission_time"] for j in js) / n,
                sum(j["num_restarts"] or 0 for j in js) / n))


if __name__ == "__main__":
    main(sys.argv[1:])
