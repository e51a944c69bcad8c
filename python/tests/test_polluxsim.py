"""Tests of the polluxsim package against the binary ($POLLUXSIM, or where
find_binary looks; the tests skip without one). Run from the repository:

    POLLUXSIM=bin/polluxsim python3 python/tests/test_polluxsim.py

Go's examples/python test runs them (with pandas and without)."""

import json
import linecache
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))

import polluxsim  # noqa: E402
import polluxsim_policy as pp  # noqa: E402
from fifo import FIFO  # noqa: E402

try:
    BINARY = polluxsim.find_binary()
except polluxsim.PolluxsimError:
    BINARY = None

# A small generated workload, for the policy runs.
SMALL = ["--jobs", "12"]


class MyFIFO(FIFO):
    """The Python FIFO port under another class name, defined here: served
    from this file."""


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def sidecar(res, table):
    """The export's sidecar of table: the dtypes the binary declares."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, table + ".csv")
        subprocess.run([BINARY, "export", "--in", res.path, "--format", "csv", "--table", table, "--out", out],
                       check=True, capture_output=True)
        with open(out + ".dtypes.json") as f:
            return json.load(f)["columns"]


@unittest.skipIf(BINARY is None, "no polluxsim binary: set $POLLUXSIM (Go's examples/python test does)")
class TestRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.res = polluxsim.run(policy="tiresias", workload="paper:1", out=os.path.join(cls.tmp.name, "t"),
                                no_timing=True, quiet=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_summary_is_summary_json(self):
        want = self.res.summary_json()
        rows = polluxsim.Result(self.res.path, frames=False).summary()
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["avg_jct_s"], want["avg_jct_s"])
        self.assertEqual(rows[0]["policy"], "tiresias")
        self.assertEqual(json.loads(rows[0]["settings"]), want["settings"])

    def test_jobs_without_pandas(self):
        jobs = polluxsim.Result(self.res.path, frames=False).jobs()
        self.assertEqual(len(jobs), self.res.summary_json()["jobs"])  # one row per job
        cols = sidecar(self.res, "jobs")
        self.assertEqual(list(jobs[0]), [c["name"] for c in cols])
        plain = {"string": str, "Int64": int, "float64": float, "boolean": bool}
        for c in cols:
            for j in jobs:
                v = j[c["name"]]
                self.assertTrue(v is None and c["nullable"] or type(v) is plain[c["pandas"]], (c, v))
        mean = sum(j["jct_s"] for j in jobs) / len(jobs)
        self.assertAlmostEqual(mean, self.res.summary_json()["avg_jct_s"], delta=1e-9 * mean)

    @unittest.skipUnless(have("pandas"), "no pandas")
    def test_jobs_with_pandas(self):
        for reader in ("auto", "export"):
            if reader == "auto" and not have("pyarrow"):
                continue
            res = polluxsim.Result(self.res.path, reader=reader)
            for table in ("jobs", "rounds", "cluster"):
                df = res.table(table)
                cols = sidecar(self.res, table)
                self.assertEqual([(c, str(t)) for c, t in df.dtypes.items()], [(c["name"], c["pandas"]) for c in cols])
            jobs = res.jobs()
            self.assertEqual(len(jobs), self.res.summary_json()["jobs"])
            self.assertEqual(jobs.name.nunique(), len(jobs))
            self.assertAlmostEqual(jobs.jct_s.mean(), self.res.summary_json()["avg_jct_s"], delta=1e-9 * jobs.jct_s.mean())
            self.assertEqual(res.summary().avg_jct_s[0], self.res.summary_json()["avg_jct_s"])

    def test_no_table(self):
        with self.assertRaisesRegex(polluxsim.PolluxsimError, "no table results"):
            self.res.results()

    def test_not_a_folder(self):
        with self.assertRaisesRegex(polluxsim.PolluxsimError, "no summary.json"):
            polluxsim.Result(self.tmp.name)


@unittest.skipIf(BINARY is None, "no polluxsim binary")
class TestPolicyClass(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def jcts(self, res):
        return {j["name"]: j["jct_s"] for j in polluxsim.Result(res.path, frames=False).jobs()}

    def test_class_from_a_file_decides_as_go(self):
        cmd = polluxsim.policy_command(MyFIFO)
        self.assertTrue(cmd.endswith(" %s MyFIFO" % shlex.quote(os.path.abspath(__file__))), cmd)
        py = polluxsim.run(policy=MyFIFO, out=os.path.join(self.tmp.name, "py"), quiet=True, no_timing=True, args=SMALL)
        go = polluxsim.run(policy="fifo", out=os.path.join(self.tmp.name, "go"), quiet=True, no_timing=True, args=SMALL)
        self.assertEqual(py.summary_json()["policy"], "external")
        self.assertIn("MyFIFO", py.summary_json()["settings"]["options"]["command"])
        self.assertEqual(self.jcts(py), self.jcts(go))

    def test_class_from_a_notebook_cell(self):
        # A cell: code whose file is no file on disk, its lines in
        # linecache, as IPython keeps them.
        src = ("import polluxsim_policy as pp\n\n\nclass CellFIFO(pp.Policy):\n    name = 'cell'\n    user_gpus = True\n\n"
               "    def schedule(self, now, cluster, jobs):\n"
               "        alloc = [j.alloc if j.gpus() > 0 else None for j in jobs]\n"
               "        free = pp.free_gpus(cluster, alloc)\n"
               "        for i, j in enumerate(jobs):\n"
               "            if alloc[i] is None:\n"
               "                alloc[i] = pp.place_job(cluster, free, j.request.gpus, j)\n"
               "                if alloc[i] is None:\n"
               "                    break\n"
               "        return alloc\n")
        cell = "<cell-%d>" % os.getpid()
        linecache.cache[cell] = (len(src), None, src.splitlines(True), cell)
        ns = {"__name__": "__main__"}
        exec(compile(src, cell, "exec"), ns)
        cells = os.path.join(self.tmp.name, "cells")
        cmd = polluxsim._policy.command(ns["CellFIFO"], cells=cells)
        written = os.listdir(cells)
        self.assertEqual(len(written), 1)
        self.assertRegex(written[0], r"^CellFIFO-[0-9a-f]{16}\.py$")
        with open(os.path.join(cells, written[0])) as f:
            self.assertEqual(f.read(), src)
        self.assertEqual(polluxsim._policy.command(ns["CellFIFO"], cells=cells), cmd)  # same cell, same command
        py = polluxsim.run(policy="external", options={"command": cmd}, out=os.path.join(self.tmp.name, "py"),
                           quiet=True, no_timing=True, args=SMALL)
        go = polluxsim.run(policy="fifo", out=os.path.join(self.tmp.name, "go"), quiet=True, no_timing=True, args=SMALL)
        self.assertEqual(self.jcts(py), self.jcts(go))

    def test_unguarded_script_fails(self):
        script = os.path.join(self.tmp.name, "unguarded.py")
        with open(script, "w") as f:
            f.write("import polluxsim\nimport polluxsim_policy as pp\n\n\nclass P(pp.Policy):\n"
                    "    def schedule(self, now, cluster, jobs):\n        return [None] * len(jobs)\n\n\n"
                    "polluxsim.run(policy=P, out=%r, quiet=True, args=%r)\n" % (os.path.join(self.tmp.name, "out"), SMALL))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]),
                   POLLUXSIM=BINARY)
        p = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env, timeout=600)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('if __name__ == "__main__"', p.stderr)

    def test_not_a_policy(self):
        with self.assertRaisesRegex(polluxsim.PolluxsimError, "policy: want"):
            polluxsim.run(policy=42)
        with self.assertRaisesRegex(polluxsim.PolluxsimError, "command is the policy class's own"):
            polluxsim.run(policy=MyFIFO, options={"command": "python3 x.py"})


class Picky(pp.Policy):
    """Declines every job whose name starts with "x" (admission control)."""
    name = "picky"
    user_gpus = True

    def __init__(self, reason="name starts with x"):
        self.reason = reason

    def schedule(self, now, cluster, jobs):
        return [j.alloc for j in jobs]

    def admit(self, now, cluster, job, active):
        return self.reason if job.name.startswith("x") else None


def wire_job(name):
    return {"name": name, "app": "cifar10", "submit": 0, "age": 0, "restarts": 0, "attained": 0, "alloc": None,
            "request": {"gpus": 1, "batch": 128}, "limits": {"init_batch": 128, "max_batch": 4096, "min_local": 32,
                                                            "max_local": 1024},
            "max_seen_gpus": 0, "grad": {"sqr": 0, "var": 0}, "epoch": 0}


class TestAdmission(unittest.TestCase):
    """Admission control over the protocol (version 3), without the binary:
    the messages a policy with admit exchanges with engines of each
    version."""

    def converse(self, policy, hello, *msgs):
        import io
        inp = io.StringIO("".join(json.dumps(m) + "\n" for m in [hello] + list(msgs)))
        out = io.StringIO()
        err = io.StringIO()
        real = sys.stderr
        sys.stderr = err
        try:
            status = pp.serve(policy, inp, out)
        finally:
            sys.stderr = real
        return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()

    def admit(self, name):
        return {"type": "admit", "now": 5, "cluster": {"nodes": 1, "gpus_per_node": 4}, "job": wire_job(name),
                "active": [wire_job("a")]}

    def test_declines_with_a_reason(self):
        hello = {"type": "hello", "protocol": 1, "max_protocol": 3, "seed": 1, "restart_delay": 30}
        status, out, _ = self.converse(Picky(), hello, self.admit("xy"), self.admit("b"))
        self.assertEqual(status, 0)
        self.assertEqual(out[0]["protocol"], 3)
        self.assertTrue(out[0]["admission"])
        self.assertEqual(out[1], {"type": "admission", "job": "xy", "declined": "name starts with x"})
        self.assertEqual(out[2], {"type": "admission", "job": "b"})

    def test_older_engine_admits_every_job(self):
        hello = {"type": "hello", "protocol": 1, "max_protocol": 2, "seed": 1, "restart_delay": 30}
        status, out, err = self.converse(Picky(), hello)
        self.assertEqual(status, 0)
        self.assertEqual(out[0]["protocol"], 2)
        self.assertNotIn("admission", out[0])  # an older engine refuses fields it does not know
        self.assertIn("no admission control", err)

    def test_without_admit_nothing_is_declared(self):
        hello = {"type": "hello", "protocol": 1, "max_protocol": 3, "seed": 1, "restart_delay": 30}
        status, out, _ = self.converse(FIFO(), hello, self.admit("xy"))
        self.assertNotIn("admission", out[0])
        self.assertEqual(status, 1)  # an admit message it never asked for
        self.assertEqual(out[-1]["type"], "error")

    def test_reason_not_a_string(self):
        hello = {"type": "hello", "protocol": 1, "max_protocol": 3, "seed": 1, "restart_delay": 30}
        status, out, _ = self.converse(Picky(reason=42), hello, self.admit("xy"))
        self.assertEqual(status, 1)
        self.assertEqual(out[-1]["type"], "error")
        self.assertIn("admit returned int 42 for job xy", out[-1]["message"])


class Sizer(pp.Policy):
    """Sizes LLM jobs (protocol version 4): each job on its floor, on node 0,
    and it records what it saw."""
    name = "sizer"
    sizes_llm_jobs = True

    def schedule(self, now, cluster, jobs):
        self.seen = (cluster, jobs)
        return [[max(j.min_gpus, 1)] + [0] * (cluster.nodes - 1) for j in jobs]


class TestLLM(unittest.TestCase):
    """What protocol version 4 carries for LLM jobs, without the binary:
    the trait in ready, a job's min_gpus and node_unit, the cluster's
    racks; an engine of version 3 hears no trait (it refuses fields it does
    not know) and the policy warns."""

    converse = TestAdmission.converse

    def round(self):
        job = dict(wire_job("big"), app="llm-70b", min_gpus=15, node_unit=8)
        return {"type": "round", "round": 1, "now": 0,
                "cluster": {"nodes": 4, "gpus_per_node": 8, "racks": 2, "oversubscription": 4},
                "jobs": [job, wire_job("small")]}

    def test_version_4_carries_them(self):
        hello = {"type": "hello", "protocol": 1, "max_protocol": 4, "seed": 1, "restart_delay": 30}
        policy = Sizer()
        status, out, _ = self.converse(policy, hello, self.round())
        self.assertEqual(status, 0)
        self.assertEqual(out[0]["protocol"], 4)
        self.assertIs(out[0]["traits"]["sizes_llm_jobs"], True)
        cluster, jobs = policy.seen
        self.assertEqual((cluster.racks, cluster.oversubscription, cluster.rack_nodes()), (2, 4, 2))
        self.assertEqual([cluster.rack(n) for n in range(4)], [0, 0, 1, 1])
        self.assertEqual((jobs[0].min_gpus, jobs[0].node_unit, jobs[0].tensor_unit(12), jobs[0].tensor_unit(15)), (15, 8, 4, 1))
        self.assertEqual((jobs[1].node_unit, jobs[1].tensor_unit(12)), (0, 1))
        self.assertEqual(out[1]["alloc"], [[15, 0, 0, 0], [1, 0, 0, 0]])

    def test_version_3_engine_hears_no_trait(self):
        hello = {"type": "hello", "protocol": 1, "max_protocol": 3, "seed": 1, "restart_delay": 30}
        status, out, err = self.converse(Sizer(), hello)
        self.assertEqual(status, 0)
        self.assertEqual(out[0]["protocol"], 3)
        self.assertNotIn("sizes_llm_jobs", out[0]["traits"])
        self.assertIn("does not carry sizes_llm_jobs", err)

    def test_one_tier_cluster(self):
        c = pp.cluster_from_wire({"nodes": 3, "gpus_per_node": 8})
        self.assertEqual((c.racks, c.rack_nodes(), c.rack(2)), (0, 0, 0))


@unittest.skipIf(BINARY is None, "no polluxsim binary")
class TestSweep(unittest.TestCase):
    def test_spec_with_a_class(self):
        with tempfile.TemporaryDirectory() as d:
            spec = {"name": "t", "version": 1, "workloads": {"count": 2, "jobs": 12},
                    "cells": [{"name": "py", "policy": MyFIFO}, {"name": "go", "policy": "fifo"}]}
            res = polluxsim.sweep(spec, out=os.path.join(d, "s"), quiet=True, no_timing=True, args=["--workloads", "generated"])
            self.assertTrue(res.is_sweep)
            results = polluxsim.Result(res.path, frames=False).results()
            self.assertEqual(sorted((r["cell"], r["workload"]) for r in results), [("go", 1), ("go", 2), ("py", 1), ("py", 2)])
            by = {(r["cell"], r["workload"]): r["avg_jct_s"] for r in results}
            self.assertEqual(by[("py", 1)], by[("go", 1)])
            self.assertEqual(by[("py", 2)], by[("go", 2)])
            summary = polluxsim.Result(res.path, frames=False).summary()
            self.assertEqual([r["cell"] for r in summary], ["py", "go"])
            self.assertEqual(summary[0]["runs"], 2)
            self.assertAlmostEqual(summary[0]["avg_jct_s"], (by[("py", 1)] + by[("py", 2)]) / 2)


class TestFindBinary(unittest.TestCase):
    def test_named_and_missing(self):
        with self.assertRaisesRegex(polluxsim.PolluxsimError, "not an executable file"):
            polluxsim.find_binary("/nonexistent/polluxsim")
        old = os.environ.get("POLLUXSIM")
        os.environ["POLLUXSIM"] = "/nonexistent/polluxsim"
        try:
            with self.assertRaisesRegex(polluxsim.PolluxsimError, r"\$POLLUXSIM"):
                polluxsim.find_binary()
        finally:
            if old is None:
                del os.environ["POLLUXSIM"]
            else:
                os.environ["POLLUXSIM"] = old


if __name__ == "__main__":
    unittest.main()
