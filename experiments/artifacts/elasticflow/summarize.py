#!/usr/bin/env python3
"""Summarises runs of ElasticFlow's artifact simulator (run.sh's OUT_DIRs).

usage: summarize.py OUT_DIR...

For each folder prints the workload, the policy, the jobs, how many met
their deadline, and the deadline satisfactory ratio: the last line of the
simulator's final_result.csv (ddl_satis_ratio, which it computes as jobs
finished by their deadline over jobs submitted), checked against the
"accepted jobs" / "declined jobs" counts it prints last. Standard library
only.
"""
import csv
import os
import re
import sys


def summarize(d):
    res = os.path.join(d, "final_result.csv")
    if not os.path.isfile(res):
        raise ValueError("%s: no final_result.csv (the run did not finish)" % d)
    with open(res, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError("%s: final_result.csv has no result" % res)
    last = rows[-1]
    ratio = float(last["ddl_satis_ratio"])
    accepted = declined = None
    log = os.path.join(d, "stdout.log")
    if os.path.isfile(log):
        with open(log, errors="replace") as f:
            for line in f:
                m = re.match(r"(accepted|declined) jobs: (-?\d+)", line)
                if m:
                    if m.group(1) == "accepted":
                        accepted = int(m.group(2))
                    else:
                        declined = int(m.group(2))
    jobs = None
    if accepted is not None and declined is not None:
        jobs = accepted + declined
        if jobs > 0 and abs(accepted / jobs - ratio) > 1e-9:
            raise ValueError("%s: ratio %g but %d of %d jobs accepted" % (d, ratio, accepted, jobs))
    trace = os.path.splitext(os.path.basename(last["trace_file"]))[0]
    return trace, last["scheduler"], jobs, accepted, ratio


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    print("%-18s %-14s %6s %6s %7s" % ("workload", "policy", "jobs", "met", "ratio"))
    status = 0
    for d in argv[1:]:
        try:
            trace, policy, jobs, met, ratio = summarize(d)
        except (OSError, ValueError, KeyError) as e:
            print("summarize.py: %s" % e, file=sys.stderr)
            status = 1
            continue
        print("%-18s %-14s %6s %6s %7.3f" % (trace, policy, "-" if jobs is None else jobs,
                                             "-" if met is None else met, ratio))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
