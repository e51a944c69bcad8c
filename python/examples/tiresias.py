"""Tiresias (NSDI'19), ported from policies/tiresias: the discretised
two-queue form the Pollux paper compares against. Jobs run with the GPUs
and batch size their users asked for; a job moves from the high- to the
low-priority queue once its attained service (executed time x requested
GPUs) reaches a threshold (16 GPU-hours); each round the queues are
scanned in order and every job that still fits runs, the rest are
preempted; new jobs go to the nodes with the most free GPUs.

    polluxsim run --policy external --policy-opt command='python3 python/examples/tiresias.py'

Options: --demote-gpu-hours H (default 16); --full answers only full
rounds (no schedule_incremental).
"""

import argparse
import bisect
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_policy as pp  # noqa: E402


class Entry:
    """What the policy keeps about one job (full rounds)."""
    __slots__ = ("name", "executed", "last_check", "running", "demoted", "idx", "seen")

    def __init__(self, name, now):
        self.name, self.executed, self.last_check = name, 0.0, now
        self.running = self.demoted = False
        self.idx, self.seen = 0, 0


class Node:
    """A job's entry in incremental rounds, linked in its bucket."""
    __slots__ = ("key", "job", "want", "executed", "last_check", "running", "demoted", "pos", "b", "prev", "nxt")

    def __init__(self, key, job, now):
        self.key, self.job, self.want = key, job, job.request.gpus
        self.executed, self.last_check = 0.0, now
        self.running = self.demoted = False
        self.pos, self.b, self.prev, self.nxt = 0, None, None, None


class Bucket:
    """A queue's jobs of one GPU count, in queue order."""
    __slots__ = ("want", "head", "tail", "cur")

    def __init__(self, want):
        self.want, self.head, self.tail, self.cur = want, None, None, None


class Queue:
    """One priority queue as buckets by GPU count."""

    def __init__(self):
        self.buckets, self.wants, self.pos = {}, [], 0

    def push(self, n):
        b = self.buckets.get(n.want)
        if b is None:
            b = self.buckets[n.want] = Bucket(n.want)
            bisect.insort(self.wants, n.want)
        n.pos, self.pos = self.pos, self.pos + 1
        n.b, n.prev, n.nxt = b, b.tail, None
        if b.tail is not None:
            b.tail.nxt = n
        else:
            b.head = n
        b.tail = n

    def scan(self, left, run):
        """Run, in queue order, every job that fits in left GPUs."""
        for w in self.wants:
            self.buckets[w].cur = self.buckets[w].head
        while left > 0:
            best = None
            for w in self.wants:
                if w > left:
                    break
                b = self.buckets[w]
                if b.cur is not None and (best is None or b.cur.pos < best.cur.pos):
                    best = b
            if best is None:
                break
            run.append(best.cur)
            left -= best.want
            best.cur = best.cur.nxt
        return left


def unlink(n):
    b = n.b
    if n.prev is not None:
        n.prev.nxt = n.nxt
    else:
        b.head = n.nxt
    if n.nxt is not None:
        n.nxt.prev = n.prev
    else:
        b.tail = n.prev
    n.b = n.prev = n.nxt = None


class Tiresias(pp.Policy):
    name = "tiresias"
    user_gpus = True

    def __init__(self, demote_gpu_hours=16.0, full=False):
        self.demote_gpu_hours = demote_gpu_hours
        self.threshold = demote_gpu_hours * 3600
        # full rounds
        self.queue0, self.queue1, self.known, self.round = [], [], {}, 0
        # incremental rounds
        self.by_key, self.queues, self.running = {}, (Queue(), Queue()), []
        if full:
            self.schedule_incremental = None

    def options(self):
        return {"demote_gpu_hours": self.demote_gpu_hours}

    def schedule(self, now, cluster, jobs):
        self.round += 1
        ents, arrived = [], []
        for i, j in enumerate(jobs):
            e = self.known.get(j.name)
            if e is None:
                e = self.known[j.name] = Entry(j.name, now)
                arrived.append(e)
            e.idx, e.seen = i, self.round
            ents.append(e)
        # Forget finished jobs, keeping queue order.
        for e in self.queue0 + self.queue1:
            if e.seen != self.round:
                del self.known[e.name]
        self.queue0 = [e for e in self.queue0 if e.seen == self.round]
        self.queue1 = [e for e in self.queue1 if e.seen == self.round]
        # New jobs enter the high-priority queue in arrival order.
        self.queue0 += arrived
        # Account executed time and demote, in input order.
        demoted = False
        for i, e in enumerate(ents):
            if e.running:
                e.executed += now - e.last_check
                if float(jobs[i].request.gpus) * e.executed >= self.threshold and not e.demoted:
                    e.demoted = demoted = True
                    self.queue1.append(e)
            e.last_check = now
        if demoted:
            self.queue0 = [e for e in self.queue0 if not e.demoted]
        # Decide who runs: scan the queues in order; any job that fits runs.
        alloc = [None] * len(jobs)
        left = cluster.total_gpus()
        for q in (self.queue0, self.queue1):
            for e in q:
                j = jobs[e.idx]
                if j.request.gpus <= left:
                    e.running = True
                    left -= j.request.gpus
                    if j.gpus() > 0:
                        alloc[e.idx] = j.alloc
                else:
                    e.running = False
        # Place newly started jobs on the nodes with the most free GPUs.
        free = pp.free_gpus(cluster, alloc)
        for q in (self.queue0, self.queue1):
            for e in q:
                if e.running and alloc[e.idx] is None:
                    alloc[e.idx] = pp.place_job(cluster, free, jobs[e.idx].request.gpus, jobs[e.idx])
        return alloc

    def schedule_incremental(self, now, cluster, added, removed):
        changes = []
        for k in removed:
            n = self.by_key.pop(k, None)
            if n is not None:
                unlink(n)
                n.running = False
        # Account executed time and demote, in key order, among the jobs the
        # last round ran and that are still here.
        self.running = [n for n in self.running if n.running]
        for n in self.running:
            n.executed += now - n.last_check
            n.last_check = now
            if float(n.want) * n.executed >= self.threshold and not n.demoted:
                n.demoted = True
                unlink(n)
                self.queues[1].push(n)
        # New jobs enter the high-priority queue in key order.
        for k, j in added:
            n = self.by_key[k] = Node(k, j, now)
            self.queues[0].push(n)
            if j.gpus() > 0:
                self.running.append(n)  # placed before the policy knew it
        # Decide who runs.
        run = []
        left = self.queues[0].scan(cluster.total_gpus(), run)
        self.queues[1].scan(left, run)
        for n in self.running:
            n.running = False
        kept, started = [], []
        for n in run:
            if not n.running:
                n.last_check = now
            n.running = True
            if n.job.gpus() > 0:
                kept.append(n.job.alloc)
            else:
                started.append(n)
        # The last round's running jobs that no longer run lose their GPUs.
        for n in self.running:
            if not n.running and n.job.gpus() > 0:
                changes.append((n.key, None))
        # Place the started jobs, in queue order, on the most free nodes.
        free = pp.free_gpus(cluster, kept)
        for n in started:
            a = pp.place_job(cluster, free, n.want, n.job)
            if a is not None:
                changes.append((n.key, a))
        run.sort(key=lambda n: n.key)
        self.running = run
        return changes


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Tiresias over the polluxsim policy protocol")
    ap.add_argument("--demote-gpu-hours", type=float, default=16.0)
    ap.add_argument("--full", action="store_true", help="answer only full rounds")
    a = ap.parse_args()
    if not (0 < a.demote_gpu_hours <= 1e9):
        ap.error("--demote-gpu-hours must be in (0, 1e9]")
    pp.main(Tiresias(a.demote_gpu_hours, a.full))
