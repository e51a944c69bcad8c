"""Tests of polluxsim_adaptdl with AdaptDL's own code (issue 43).

AdaptDL master's files are read from $POLLUXSIM_ADAPTDL_MASTER (its
adaptdl/ and sched/ folders, unchanged) and the polluxsim binary is
$POLLUXSIM_BIN; without either every test skips. The Go test
service.TestAdaptDLDropIn sets both and runs this file. Nothing of AdaptDL
is copied here: its modules are loaded from its folder, and only what they
import and the tests do not need is stood in for in sys.modules (torch's
world: adaptdl.env, checkpoint, collective; requests, which captures the
hints the job side PUTs; the Kubernetes and controller modules of the
allocator; autograd, scipy and pymoo when absent, which only fitting and
the genetic search use). numpy is needed for AdaptDL's goodput and
speedup functions: the tests that use them skip without it.
"""

import copy
import datetime
import importlib.util
import json
import os
import random
import subprocess
import sys
import threading
import types
import unittest
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import polluxsim_adaptdl as pa  # noqa: E402

ADAPTDL = os.environ.get("POLLUXSIM_ADAPTDL_MASTER", "")
BIN = os.environ.get("POLLUXSIM_BIN", "")
POLICIES = ("pollux", "tiresias", "fifo", "optimus")

try:
    import numpy
    if not hasattr(numpy, "int"):  # AdaptDL master predates numpy 1.24
        numpy.int, numpy.float = int, float
except ImportError:
    numpy = None


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, m)
    return m


def _package(name, path):
    m = _module(name)
    m.__path__ = [path]
    return m


class _Requests:
    """Stands in for requests: keeps what the job side PUTs."""

    def __init__(self):
        self.bodies = []

    def put(self, url, data, headers):
        self.bodies.append((url, json.loads(data)))
        return types.SimpleNamespace(status_code=200)


class _Env:
    """Stands in for adaptdl.env: one replica of rank 0 of job ns/job."""
    replicas = 1

    def __init__(self):
        m = _module("adaptdl.env")
        m.supervisor_url = lambda: "http://supervisor"
        m.job_id = lambda: "ns/job"
        m.num_nodes = lambda: 1
        m.num_replicas = lambda: self.replicas
        m.replica_rank = lambda: 0


AD = None  # the loaded AdaptDL modules


def load_adaptdl():
    """Loads AdaptDL's job side and allocator from ADAPTDL once."""
    global AD
    if AD is not None:
        return AD
    root = ADAPTDL
    ad = types.SimpleNamespace(requests=_Requests())
    _module("requests", put=ad.requests.put)
    _package("adaptdl", os.path.join(root, "adaptdl", "adaptdl"))
    ad.env = _Env()

    class State(object):
        def __init__(self, name):
            self.name = name
    _module("adaptdl.checkpoint", State=State, load_state=lambda state: False)
    _module("adaptdl.collective")
    _package("adaptdl.torch", os.path.join(root, "adaptdl", "adaptdl", "torch"))
    _package("adaptdl_sched", os.path.join(root, "sched", "adaptdl_sched"))
    ad.utils = importlib.import_module("adaptdl_sched.policy.utils")  # JobInfo, NodeInfo: no numpy
    AD = ad
    if numpy is None:
        return ad
    for name in ("autograd", "scipy", "scipy.optimize", "scipy.stats"):
        try:
            importlib.import_module(name)
        except ImportError:
            _module(name)  # only fit_perf_params uses them
    ad.goodput = importlib.import_module("adaptdl.goodput")
    ad.sched_hints = importlib.import_module("adaptdl.sched_hints")
    ad.metrics = importlib.import_module("adaptdl.torch._metrics")
    # The allocator, with AdaptDL's policy module swapped for the drop-in
    # (the one line of docs/serve.md) and its Kubernetes world stood in.
    ad.speedup = importlib.import_module("adaptdl_sched.policy.speedup")
    _module("adaptdl_sched.policy.pollux", PolluxPolicy=pa.PolluxsimPolicy)
    _module("adaptdl_sched.resources", get_node_unrequested=None,
            get_pod_requests=lambda spec: dict(spec["resources"]),
            set_default_resources=lambda spec: spec)
    _module("adaptdl_sched.utils", patch_job_status=None)
    _module("adaptdl_sched.cluster_expander", ClusterExpander=None)
    _module("adaptdl_sched.config", allowed_taints=None)
    _module("kubernetes_asyncio")
    try:
        importlib.import_module("dateutil.parser")
    except ImportError:
        _module("dateutil", parser=_module(
            "dateutil.parser", isoparse=lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))))
    ad.allocator = importlib.import_module("adaptdl_sched.allocator")
    # AdaptDL's own PolluxPolicy, for allocate_job (its genetic search
    # needs pymoo, stood in for: optimize is never called).
    for name in ("pymoo", "pymoo.core", "pymoo.core.crossover", "pymoo.core.mutation", "pymoo.core.problem",
                 "pymoo.core.repair", "pymoo.optimize", "pymoo.algorithms", "pymoo.algorithms.moo",
                 "pymoo.algorithms.moo.nsga2", "pymoo.operators", "pymoo.operators.crossover",
                 "pymoo.operators.crossover.util", "pymoo.util", "pymoo.util.nds",
                 "pymoo.util.nds.non_dominated_sorting"):
        if name not in sys.modules:
            _module(name)
    for mod, cls in (("crossover", "Crossover"), ("mutation", "Mutation"), ("problem", "Problem"), ("repair", "Repair")):
        setattr(sys.modules["pymoo.core." + mod], cls, type(cls, (object,), {}))
    sys.modules["pymoo.algorithms.moo.nsga2"].NSGA2 = object
    sys.modules["pymoo.operators.crossover.util"].crossover_mask = None
    sys.modules["pymoo.util.nds.non_dominated_sorting"].NonDominatedSorting = object
    spec = importlib.util.spec_from_file_location(
        "adaptdl_reference_pollux", os.path.join(root, "sched", "adaptdl_sched", "policy", "pollux.py"))
    ad.pollux = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ad.pollux)
    return ad


class Service(object):
    """A `polluxsim serve` child on a free loopback port."""

    def __init__(self):
        self.proc = subprocess.Popen([BIN, "serve", "--addr", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.log = []
        line = self.proc.stderr.readline()  # the service says where once it accepts requests
        self.log.append(line)
        if "listening on " not in line:
            self.proc.kill()
            raise RuntimeError("polluxsim serve did not start: %r" % line)
        self.url = line.split("listening on ", 1)[1].strip()
        self._drain = threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True)
        self._drain.start()

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self._drain.join()


def setUpModule():
    global SERVICE
    if not ADAPTDL or not BIN:
        raise unittest.SkipTest("POLLUXSIM_ADAPTDL_MASTER and POLLUXSIM_BIN not both set")
    SERVICE = Service()


def tearDownModule():
    SERVICE.stop()


PERF = (0.121, 0.00568, 0.0236, 0.00634, 0.0118, 0.00317, 1.14)  # AdaptDL's test's
GRAD = (0.00136, 0.000502)

# The variants of a job's hints, as its training script leads AdaptDL's job
# side to make them: set_batch_size's arguments (init, max, bounds,
# accumulation), whether gradient statistics were reported, the replicas
# profiled.
VARIANTS = {
    "bounds": (128, 1280, (32, 256), True, True, (1, 2)),
    "no bounds": (128, 1280, None, True, True, (1, 2)),
    "[null, x]": (128, 1280, (None, 256), True, True, (1,)),
    "[x, null]": (128, 1280, (64, None), False, True, (1, 2, 4)),
    "no maxBatchSize": (128, None, None, False, True, (1,)),
    "no gradParams": (128, 1280, (32, 256), True, False, (1, 2)),
    "accumulation off": (64, 4096, (16, 64), False, True, (1, 2)),
}


def job_side_hints(variant):
    """The hint body AdaptDL's job side PUTs for a variant, made by its own
    functions: set_batch_size, profile_step_start/commit on each replica
    count, update_grad_params, _report_sched_hints. The fitted perfParams
    are set as _fit_perf_params would leave them (its fit needs autograd)."""
    ad = load_adaptdl()
    m = ad.metrics
    init, mx, bounds, accum, grad, replicas = VARIANTS[variant]
    m._METRICS_STATE, m._GRAD_PARAM_DICT, m._PREV_REPORT = None, {}, None
    m.set_batch_size(init, mx, bounds, accum)
    for r in replicas:
        ad.env.replicas = r
        m.profile_step_start(max(init // r, 1))
        m.profile_step_commit()
    m._metrics_state().perf_params = ad.goodput.PerfParams(*PERF)
    if grad:
        m.update_grad_params("edp", *GRAD)
    ad.requests.bodies.clear()
    m._report_sched_hints()
    (url, body), = ad.requests.bodies
    assert url == "http://supervisor/hints/ns/job", url
    return body


def adaptdl_job(name, hints, minute, spec=None):
    """An AdaptDL job object as the allocator reads it."""
    job = {"metadata": {"namespace": "ns", "name": name,
                        "creationTimestamp": "2026-01-01T00:%02d:00Z" % minute},
           "spec": {"template": {"spec": {"resources": {pa.GPU: 1, "pods": 1}}}},
           "status": {"phase": "Running"}}
    job["spec"].update(spec or {})
    if hints is not None:
        job["status"]["train"] = hints
    return job


class Expander(object):
    """Stands in for AdaptDL's ClusterExpander: keeps what it is told."""

    def fit(self, active):
        self.active = active


def allocator(policy):
    """AdaptDL's allocator, built without Kubernetes, its policy the
    drop-in on the test's service."""
    ad = load_adaptdl()
    a = ad.allocator.AdaptDLAllocator.__new__(ad.allocator.AdaptDLAllocator)
    a._policy = pa.PolluxsimPolicy(SERVICE.url, policy=policy, seed=1)
    a._cluster_expander = Expander()
    return a


def nodes_of(ad, sizes, preemptible=()):
    return {name: ad.utils.NodeInfo({pa.GPU: g, "pods": 32}, name in preemptible) for name, g in sizes.items()}


class Checks(unittest.TestCase):

    def check_answer(self, jobs, nodes, prev, allocations, desired, hints=None):
        """AdaptDL's invariants on an answer: lists of node keys, min/max
        replicas, node capacity, non-preemptible jobs kept, desired nodes
        at least those in use; and, from the service's answer, every batch
        configuration within its hints."""
        used = Counter()
        for key, alloc in allocations.items():
            self.assertIn(key, jobs)
            self.assertIsInstance(alloc, list)
            job = jobs[key]
            self.assertLessEqual(len(alloc), job.max_replicas, key)
            if alloc:
                self.assertGreaterEqual(len(alloc), job.min_replicas, key)
            for n in alloc:
                self.assertIn(n, nodes)
                used[n] += 1
            if not job.preemptible and prev.get(key):
                self.assertEqual(alloc, prev[key], "a non-preemptible job moved")
        for n, k in used.items():
            self.assertLessEqual(k, nodes[n].resources[pa.GPU])
        self.assertGreaterEqual(desired, len(used))
        for d in self.policy_answer["jobs"] if hints else ():
            h = hints.get(d["name"])
            c = d.get("config")
            if not h or not d["allocation"] or not c:
                continue
            init = h["initBatchSize"]
            mx = h.get("maxBatchSize") or init
            lo, hi = (h.get("localBszBounds") or (None, None))
            k = len(d["allocation"])
            self.assertEqual(c["batch_size"], k * c["local_bsz"] * (c["accum_steps"] + 1), d)
            self.assertGreaterEqual(c["local_bsz"], lo or 1, d)
            self.assertLessEqual(c["local_bsz"], hi or mx, d)
            self.assertLessEqual(c["batch_size"], mx, d)
            if not h.get("gradientAccumulation"):
                self.assertEqual(c["accum_steps"], 0, d)


@unittest.skipIf(numpy is None, "numpy absent: AdaptDL's goodput and speedup functions need it")
class TestJobSideHints(Checks):
    """Problem list items 1-3 and 7 of issue 43 end to end: AdaptDL's job
    side makes the hints, its allocator (_get_job_info, _allocate) turns
    them into JobInfos and calls the drop-in, which asks the service."""

    def test_every_variant_every_policy(self):
        ad = load_adaptdl()
        bodies = {v: job_side_hints(v) for v in VARIANTS}
        self.assertIsNone(bodies["no bounds"]["localBszBounds"])
        self.assertIsNone(bodies["no gradParams"]["gradParams"])
        self.assertFalse(bodies["accumulation off"]["gradientAccumulation"])
        self.assertEqual(bodies["[x, null]"]["maxProfiledReplicas"], 4)
        for policy in POLICIES:
            for variant, hints in bodies.items():
                for attach in (False, True):
                    with self.subTest(policy=policy, variant=variant, hints_on_job=attach):
                        a = allocator(policy)
                        train = copy.deepcopy(hints)
                        if train.get("gradParams", 0) is None:
                            # AdaptDL's _get_job_info fails on the null
                            # its job side sends before it has gradient
                            # statistics: its controller would need the
                            # key gone. The drop-in takes the body as it
                            # is (hints_on_job).
                            del train["gradParams"]
                        info = a._get_job_info(adaptdl_job("j", train, 0))
                        if attach:
                            info.hints = hints  # the hints AdaptDL keeps on the job
                        jobs = {("ns", "j"): info}
                        nodes = nodes_of(ad, {"node-a": 4, "node-b": 4})
                        prev = {}
                        for _ in range(2):
                            allocations = a._allocate(dict(jobs), nodes, prev, None)
                            self.policy_answer = a._policy.last_answer
                            desired = self.policy_answer["desired_nodes"]
                            self.check_answer(jobs, nodes, prev, allocations, desired, {"ns/j": hints})
                            self.assertTrue(allocations[("ns", "j")], "a lone job on an empty cluster did not start")
                            prev = allocations
                        a._policy.close()

    def test_accumulation_off_differs(self):
        """The same job with accumulation allowed accumulates; off, never."""
        ad = load_adaptdl()
        hints = job_side_hints("accumulation off")
        steps = {}
        for accum in (True, False):
            # noisy gradients and a costly synchronisation: large batches
            # pay, beyond 64 per GPU
            h = dict(hints, gradientAccumulation=accum, gradParams={"norm": 0.001, "var": 10.0},
                     perfParams=dict(zip(pa._PERF_KEYS, (0.01, 0.0002, 0.2, 0.01, 0.02, 0.002, 1.2))))
            a = allocator("pollux")
            info = a._get_job_info(adaptdl_job("j", h, 0))
            a._allocate({("ns", "j"): info}, nodes_of(ad, {"n": 2}), {("ns", "j"): ["n", "n"]}, None)
            steps[accum] = a._policy.last_answer["jobs"][0]["config"]["accum_steps"]
            a._policy.close()
        self.assertEqual(steps[False], 0)
        self.assertGreater(steps[True], 0)


class TestAdaptDLShapes(Checks):
    """Problem 8 of issue 43: AdaptDL's input shapes (nodes name → NodeInfo,
    job keys (namespace, name), creation timestamps, no round time) and
    items 5-7 with its own JobInfo and NodeInfo."""

    def test_shapes_and_kept_order(self):
        ad = load_adaptdl()
        t0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
        r = lambda n, k: k  # noqa: E731  AdaptDL's speedup without a model
        jobs = {("ns", "kept"): ad.utils.JobInfo({pa.GPU: 1}, r, t0, 0, 3, preemptible=False),
                ("other", "new"): ad.utils.JobInfo({pa.GPU: 1, "pods": 1}, r, t0 + datetime.timedelta(minutes=5), 2, 4)}
        nodes = nodes_of(ad, {"b": 4, "a": 8, "spot": 4}, preemptible={"spot"})
        prev = {("ns", "kept"): ["b", "a", "b"]}
        for policy in POLICIES:
            with self.subTest(policy=policy):
                p = pa.PolluxsimPolicy(SERVICE.url, policy=policy)
                allocations, desired = p.optimize(jobs, nodes, prev, nodes["spot"])
                self.policy_answer = p.last_answer
                self.assertEqual(allocations[("ns", "kept")], ["b", "a", "b"])
                self.assertEqual(set(allocations), set(jobs))
                self.check_answer(jobs, nodes, prev, allocations, desired)
                if policy in ("tiresias", "fifo"):
                    self.assertEqual(len(allocations[("other", "new")]), 4, allocations)
                    self.assertNotIn("spot", allocations[("other", "new")], "a preemptible node before the others")
                p.close()

    def test_non_preemptible_as_adaptdl(self):
        """AdaptDL's non_preemptible_test, its scenario and checks, with
        the drop-in: ten jobs, half non-preemptible (2 to 4 replicas), three
        cycles, a random job removed after each."""
        ad = load_adaptdl()
        if numpy is not None:
            fn = ad.speedup.SpeedupFunction(
                ad.goodput.GoodputFunction(ad.goodput.PerfParams(*PERF), ad.goodput.GradParams(*GRAD), 128),
                max_batch_size=1280, atomic_bsz_range=(64, 256))
        else:
            fn = lambda n, k: k  # noqa: E731
        rng = random.Random(43)
        now = datetime.datetime(2026, 1, 1)
        for num_nodes in (1, 2, 4, 8):
            for policy in POLICIES:
                with self.subTest(nodes=num_nodes, policy=policy):
                    order = list(range(10))
                    rng.shuffle(order)
                    pre, nonpre = order[:5], order[5:]
                    nodes = {i: ad.utils.NodeInfo({pa.GPU: 16 // num_nodes, "pods": 32}, False) for i in range(num_nodes)}
                    template = ad.utils.NodeInfo({pa.GPU: 16 // num_nodes, "pods": 32}, True)
                    p = pa.PolluxsimPolicy(SERVICE.url, policy=policy, seed=7)
                    prev = {i: [] for i in order}
                    for _ in range(3):
                        jobs = {}
                        for i in pre:  # the creation timestamps are one-element tuples, as AdaptDL's test makes them
                            jobs[i] = ad.utils.JobInfo({pa.GPU: 1, "pods": 1}, fn, (now + datetime.timedelta(minutes=i),), 0, 8)
                        for i in nonpre:
                            jobs[i] = ad.utils.JobInfo({pa.GPU: 1, "pods": 1}, fn, (now + datetime.timedelta(minutes=i),), 2, 4,
                                                       preemptible=False)
                        allocations, desired = p.optimize(jobs, nodes, prev, template)
                        self.policy_answer = p.last_answer
                        self.check_answer(jobs, nodes, prev, allocations, desired)
                        prev = copy.deepcopy(allocations)
                        remove = rng.choice(sorted(allocations))
                        (nonpre if remove in nonpre else pre).remove(remove)
                        prev.pop(remove)
                    p.close()

    @unittest.skipIf(numpy is None, "numpy absent: AdaptDL's policy module needs it")
    def test_allocate_job_as_adaptdl(self):
        """allocate_job answers as AdaptDL's own PolluxPolicy.allocate_job,
        on every small case."""
        ad = load_adaptdl()
        ref = ad.pollux.PolluxPolicy()
        p = pa.PolluxsimPolicy(SERVICE.url)
        for sizes in ((0, 0), (1, 4), (4, 1), (2, 2), (3, 0, 5)):
            for pre in range(2 ** len(sizes)):
                nodes = {"n%d" % i: ad.utils.NodeInfo({pa.GPU: g, "pods": 8}, bool(pre >> i & 1))
                         for i, g in enumerate(sizes)}
                for min_replicas in range(0, 6):
                    job = ad.utils.JobInfo({pa.GPU: 1, "pods": 1}, None, 0, min_replicas, max(min_replicas, 1))
                    self.assertEqual(p.allocate_job(job, nodes), ref.allocate_job(job, nodes), (sizes, pre, min_replicas))


if __name__ == "__main__":
    unittest.main()
