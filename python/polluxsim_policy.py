"""Write a polluxsim scheduling policy in Python.

A policy is a subclass of Policy with a schedule method (and, for long
traces, schedule_incremental; for admission control, admit); serve(policy) speaks the polluxsim policy
protocol with the simulator over standard input and output. Run it with

    polluxsim run --policy external --policy-opt command='python3 my_policy.py'

The protocol's messages are declared in policies/protocol/schema.json and
described in docs/protocol.md; docs/writing-a-policy-in-python.md is the
guide. Standard library only.

Standard output belongs to the protocol: while the policy's code runs,
print() and sys.stdout go to standard error, which the simulator relays to
its log.
"""

import json
import math
import numbers
import sys
import traceback
from dataclasses import dataclass, field, fields
from typing import Dict, List, Optional, Tuple

PROTOCOL = 4
"""The newest protocol version this module speaks (3: admission control,
Policy.admit; 4: LLM jobs' sizing and placement inputs, Policy.sizes_llm_jobs,
Job.node_unit, Cluster.racks and Cluster.oversubscription)."""

MIN_PROTOCOL = 1
"""The oldest protocol version this module speaks: with an engine that
speaks only version 1 the conversation is of version 1, and the oracle
facts of version 2 (Job.step_time, Job.completion_epoch) raise
ProtocolError."""

DEFAULT_TYPE = "t4"
"""The GPU type of a cluster without pools (policies.DefaultType)."""


@dataclass
class Request:
    """What the user asked for: GPUs and total batch size."""
    gpus: int
    batch: int


@dataclass
class Limits:
    """Batch-size limits (models.Limits)."""
    init_batch: int
    max_batch: int
    min_local: int
    max_local: int


@dataclass
class Params:
    """θ_sys, the throughput model's parameters (models.Params)."""
    alpha_c: float
    beta_c: float
    alpha_r: float
    beta_r: float
    alpha_n: float
    beta_n: float
    gamma: float


@dataclass
class GradStats:
    """Gradient statistics (models.GradStats)."""
    sqr: float
    var: float


@dataclass
class TypeModel:
    """What a job's agent knows about the job on one GPU type."""
    params: Params
    limits: Limits


@dataclass
class Pool:
    """A group of identical nodes of one GPU type."""
    type: str
    nodes: int
    gpus_per_node: int
    price: float = 0.0
    name: str = ""


@dataclass
class Cluster:
    """The GPUs a policy may allocate (policies.Cluster): nodes identical
    nodes of gpus_per_node GPUs without pools; with pools, their nodes in
    order. Ask per node: node_gpus(n), node_type(n)."""
    nodes: int
    gpus_per_node: int
    pools: List[Pool] = field(default_factory=list)
    racks: int = 0  # a two-tier network: racks of nodes/racks consecutive nodes; 0 one tier (protocol 4, optional)
    oversubscription: float = 0.0  # the spine's oversubscription with racks (protocol 4, optional)

    def __post_init__(self):
        self._node_gpus = []
        self._node_type = []
        if not self.pools:
            self._node_gpus = [self.gpus_per_node] * self.nodes
            self._node_type = [DEFAULT_TYPE] * self.nodes
        for p in self.pools:
            self._node_gpus += [p.gpus_per_node] * p.nodes
            self._node_type += [p.type] * p.nodes

    def node_gpus(self, n: int) -> int:
        """GPUs of node n."""
        return self._node_gpus[n]

    def node_type(self, n: int) -> str:
        """GPU type of node n."""
        return self._node_type[n]

    def total_gpus(self) -> int:
        return sum(self._node_gpus)

    def rack_nodes(self) -> int:
        """Nodes of each rack of a two-tier network, 0 on one tier
        (policies.Cluster.RackNodes)."""
        return self.nodes // self.racks if self.racks > 0 and self.nodes >= self.racks else 0

    def rack(self, n: int) -> int:
        """The rack of node n, 0 on one tier (policies.Cluster.Rack)."""
        k = self.rack_nodes()
        return n // k if k > 0 else 0

    def max_node_gpus(self) -> int:
        return max(self._node_gpus, default=0)

    def heterogeneous(self) -> bool:
        """Whether nodes differ in GPU type or GPUs per node."""
        return any(p.type != self.pools[0].type or p.gpus_per_node != self.pools[0].gpus_per_node
                   for p in self.pools)

    def types(self) -> List[str]:
        return sorted(set(self._node_type)) if self.pools else [DEFAULT_TYPE]

    def type_gpus(self, t: str) -> int:
        return sum(g for g, nt in zip(self._node_gpus, self._node_type) if nt == t)

    def alloc_type(self, alloc) -> str:
        """The GPU type of an allocation, "" when empty or mixed."""
        t = ""
        for n, v in enumerate(alloc or ()):
            if v <= 0:
                continue
            if t and self._node_type[n] != t:
                return ""
            t = self._node_type[n]
        return t


@dataclass(eq=False)
class Job:
    """One active job as the policy sees it (policies.Job). alloc is the GPUs
    on each node, or None. The oracle methods (epochs, iterations,
    iter_time, remaining_iterations, type_iter_time, step_time,
    completion_epoch) ask the simulator during the round; only a policy
    with needs_oracle = True may call them."""
    name: str
    app: str
    submit: float
    age: float
    restarts: int
    attained: float
    alloc: Optional[List[int]]
    request: Request
    limits: Limits
    max_seen_gpus: int
    grad: GradStats
    epoch: int
    fixed_batch: int = 0
    max_gpus: int = 0
    min_gpus: int = 0  # fewest GPUs the job fits in (an LLM job); fewer count as none (optional)
    deadline: float = 0.0  # absolute time to finish by; 0: best-effort (protocol 1, optional)
    interruptions: int = 0  # times the job lost its GPUs to a failure so far (protocol 2, optional)
    node_unit: int = 0  # the NVLink domain an LLM job's tensor groups stay inside (8); 0 for other jobs (protocol 4, optional)
    params: Optional[Params] = None
    types: List[str] = field(default_factory=list)
    type_models: Dict[str, TypeModel] = field(default_factory=dict)
    _conn: object = field(default=None, repr=False)

    def gpus(self) -> int:
        """GPUs in the current allocation."""
        return sum(self.alloc) if self.alloc else 0

    def tensor_unit(self, k: int) -> int:
        """The multiple of GPUs the job takes on each node of an allocation
        of k GPUs, gcd(k, node_unit): every tensor degree of k stays open
        (policies.Job.TensorUnit); 1 without a node_unit."""
        return math.gcd(k, self.node_unit) if self.node_unit > 0 and k > 0 else 1

    def offers(self, t: str) -> bool:
        """Whether the job may run on GPU type t."""
        return not self.types or t in self.types

    # Oracle facts (policies.Oracle).

    def epochs(self) -> int:
        """Epochs the job trains for."""
        return int(self._ask("epochs")[0])

    def completion_epoch(self, batch: int) -> int:
        """The last epoch (0-based) the job trains at total batch size
        batch: it completes when that epoch ends (the Pollux artifact's
        Application.get_completion_epoch). Protocol version 2."""
        return int(self._ask("completion_epoch", batch=batch)[0])

    def iterations(self, batch: int, epoch: int) -> float:
        """Optimizer steps at total batch size batch from the start of
        training to the end of epoch (0-based)."""
        return self._ask("iterations", batch=batch, epoch=epoch)[0]

    def iter_time(self, placement: List[int], local: float, accum: int) -> float:
        """True time of one step on placement (GPUs per node) at per-GPU
        batch local with accum accumulation steps."""
        return self._ask("iter_time", placement=list(placement), local=local, accum=accum)[0]

    def step_time(self, placement: List[int], local: float) -> Tuple[float, float]:
        """(step, sync): true time of one step without accumulation on
        placement at per-GPU batch local, and its synchronisation part (the
        Pollux artifact's Application.get_throughput);
        iter_time(placement, local, accum) = step + accum * (step - sync).
        Protocol version 2."""
        a = self._ask("step_time", placement=list(placement), local=local)
        return a[0], a[2]

    def remaining_iterations(self, batch: int) -> float:
        """Steps the job still needs at total batch size batch."""
        return self._ask("remaining_iterations", batch=batch)[0]

    def type_iter_time(self, gpu_type: str, placement: List[int], batch: int) -> Tuple[float, bool]:
        """True time of one step at total batch size batch on placement of
        GPU type gpu_type; ok is False without tables for that type."""
        return self._ask("type_iter_time", gpu_type=gpu_type, placement=list(placement), batch=batch)[:2]

    def _ask(self, fact, **args):
        if self._conn is None:
            raise RuntimeError("oracle query of job %s: the policy's needs_oracle is not set" % self.name)
        return self._conn.query(self.name, fact, args)

    @staticmethod
    def from_wire(d: dict, conn=None) -> "Job":
        p = d.get("params")
        return Job(
            name=d["name"], app=d["app"], submit=d["submit"], age=d["age"], restarts=d["restarts"],
            attained=d["attained"], alloc=d["alloc"], request=Request(**d["request"]),
            limits=Limits(**d["limits"]), max_seen_gpus=d["max_seen_gpus"], grad=GradStats(**d["grad"]),
            epoch=d["epoch"], fixed_batch=d.get("fixed_batch", 0), max_gpus=d.get("max_gpus", 0), min_gpus=d.get("min_gpus", 0),
            deadline=d.get("deadline", 0.0), interruptions=d.get("interruptions", 0), node_unit=d.get("node_unit", 0), params=Params(**p) if p is not None else None, types=d.get("types") or [],
            type_models={t: TypeModel(Params(**m["params"]), Limits(**m["limits"]))
                         for t, m in (d.get("type_models") or {}).items()},
            _conn=conn)


def cluster_from_wire(d: dict) -> Cluster:
    return Cluster(nodes=d["nodes"], gpus_per_node=d["gpus_per_node"],
                   pools=[Pool(**p) for p in d.get("pools") or []],
                   racks=d.get("racks", 0), oversubscription=d.get("oversubscription", 0.0))


# Placement helpers (policies/placement.go).

def free_gpus(cluster: Cluster, allocs) -> List[int]:
    """The GPUs left on each node after the given allocations."""
    free = [cluster.node_gpus(n) for n in range(cluster.nodes)]
    for a in allocs:
        if a:
            for n, v in enumerate(a):
                if n < len(free):
                    free[n] -= v
    return free


def place_most_free(free: List[int], gpus: int) -> Optional[List[int]]:
    """Place gpus GPUs greedily on the nodes with the most free GPUs (ties:
    the lowest node), subtracting them from free; None when they do not
    fit (free unchanged)."""
    if gpus <= 0 or sum(free) < gpus:
        return None
    alloc = [0] * len(free)
    left = gpus
    while left > 0:
        best = -1
        for n, f in enumerate(free):
            if f > 0 and (best < 0 or f > free[best]):
                best = n
        take = min(free[best], left)
        alloc[best] += take
        free[best] -= take
        left -= take
    return alloc


def place_job(cluster: Cluster, free: List[int], gpus: int, job: Job) -> Optional[List[int]]:
    """place_most_free on a cluster of any kind: on several GPU types, the
    job keeps its current type if it has room, else takes the offered type
    with the most free GPUs (ties: the type of the lowest node)."""
    if not cluster.heterogeneous():
        return place_most_free(free, gpus)
    free_of: Dict[str, int] = {}
    for n, f in enumerate(free):
        t = cluster.node_type(n)
        free_of[t] = free_of.get(t, 0) + f
    best = ""
    cur = cluster.alloc_type(job.alloc)
    if cur and job.offers(cur) and free_of.get(cur, 0) >= gpus:
        best = cur
    if not best:
        for n in range(len(free)):
            t = cluster.node_type(n)
            if job.offers(t) and free_of[t] >= gpus and (not best or free_of[t] > free_of[best]):
                best = t
    if not best:
        return None
    sub = [f if cluster.node_type(n) == best else 0 for n, f in enumerate(free)]
    alloc = place_most_free(sub, gpus)
    if alloc is not None:
        for n, v in enumerate(alloc):
            free[n] -= v
    return alloc


def run_in_order(cluster: Cluster, jobs: List[Job], order: List[int]) -> List[Optional[List[int]]]:
    """The decision of a policy that runs jobs at the GPUs their users asked
    for, in order (a permutation of the jobs' indices): each job that still
    fits in the cluster's GPUs runs, later smaller ones backfilling past one
    that does not; a running job that runs on keeps its allocation, the
    others start on the nodes with the most free GPUs (place_job), in order
    (policies.RunInOrder)."""
    run = [False] * len(jobs)
    left = cluster.total_gpus()
    for i in order:
        if jobs[i].request.gpus <= left:
            run[i] = True
            left -= jobs[i].request.gpus
    alloc = [list(j.alloc) if run[i] and j.gpus() == j.request.gpus else None for i, j in enumerate(jobs)]
    free = free_gpus(cluster, alloc)
    for i in order:
        if run[i] and alloc[i] is None:
            alloc[i] = place_job(cluster, free, jobs[i].request.gpus, jobs[i])
    return alloc


BATCH_TOLERANCE = 1e-8
"""models.BatchTolerance."""


def ceil_batch(x: float) -> float:
    """models.CeilBatch: the ceiling with a relative tolerance."""
    return float(math.ceil(x - BATCH_TOLERANCE))


def packed_placement(k: int, per_node: int) -> List[int]:
    """models.PackedPlacement: k GPUs packed onto nodes of per_node."""
    p = []
    while k > 0:
        take = min(k, per_node)
        p.append(take)
        k -= take
    return p


def split_batch(lim: Limits, k: int, batch: float) -> Tuple[int, int]:
    """models.Limits.Split: a total batch on k GPUs as (per-GPU batch m,
    accumulation steps s), the smallest s with m = ceil(batch/(k(s+1))) at
    most max_local (at least one step of accumulation on a single GPU
    beyond init_batch), m then lowered so that k*m*(s+1) <= max_batch."""
    local = batch / k
    min_accum = 1 if k == 1 and local > lim.init_batch + BATCH_TOLERANCE else 0
    s = max(int(ceil_batch(local / lim.max_local)) - 1, 0, min_accum)
    m = int(ceil_batch(local / (s + 1)))
    if lim.max_batch > 0:
        m = min(m, lim.max_batch // (k * (s + 1)))
    return m, s


class Policy:
    """A scheduling policy. Set name and the traits; implement schedule,
    and optionally schedule_incremental.

    Traits: adaptive_batch (jobs tune their batch size, as under Pollux),
    needs_oracle (the job oracle methods may be called), user_gpus (jobs
    run only on exactly the GPUs they requested), sizes_llm_jobs (the
    policy chooses the GPUs of LLM jobs itself, at least their min_gpus;
    otherwise the simulator presents them rigid at their request: protocol
    version 4, ignored with a warning by an older simulator)."""

    name = "python"
    adaptive_batch = False
    needs_oracle = False
    user_gpus = False
    sizes_llm_jobs = False

    def options(self) -> dict:
        """The policy's effective options, reported in the handshake."""
        return {}

    def start(self, seed: int, restart_delay: float) -> None:
        """Called once with the run's seed and restart delay, before any
        round."""

    def schedule(self, now: float, cluster: Cluster, jobs: List[Job]) -> List[Optional[List[int]]]:
        """One allocation per job, in order: GPUs per node (cluster.nodes
        entries) or None for none. Returning job.alloc keeps its GPUs."""
        raise NotImplementedError

    # schedule_incremental(self, now, cluster, added, removed) -> changes
    #
    # Defined by a policy that decides from what changed
    # (policies.Incremental): added is a list of (key, job) of the jobs that
    # became active, in increasing key; removed the keys of jobs that
    # finished. The client keeps one Job per tracked job and updates it in
    # place (a job holding GPUs before every round; a waiting job keeps the
    # view it had when it arrived or lost its GPUs, its age then stale).
    # It returns the jobs whose allocation changes: a list of (key, alloc),
    # alloc None for none. It must make exactly schedule's decisions.
    schedule_incremental = None

    # admit(self, now, cluster, job, active) -> None or a reason
    #
    # Defined by a policy with admission control (policies.Admitter,
    # protocol version 3): called once per job at its submission, before
    # any round sees it, with the jobs active at that moment (in submission
    # order, job not among them). It returns None (or "") to admit the job,
    # or the reason it is declined, a short phrase (one line; the simulator
    # keeps at most 200 bytes): a declined job never runs. A policy with
    # needs_oracle may ask the oracle of job and of the active jobs. With a
    # simulator of an older protocol version it is never called (every job
    # is admitted) and a warning goes to standard error.
    admit = None


class _Conn:
    """The protocol over a pair of text streams."""

    def __init__(self, inp, out):
        self.inp, self.out = inp, out
        self.version = MIN_PROTOCOL  # the conversation's, once negotiated

    def send(self, msg: dict) -> None:
        self.out.write(json.dumps(msg, separators=(",", ":"), allow_nan=False))
        self.out.write("\n")
        self.out.flush()

    def recv(self) -> Optional[dict]:
        line = self.inp.readline()
        if not line:
            return None
        return json.loads(line)

    def query(self, job: str, fact: str, args: dict):
        """(value, ok, sync) of one oracle fact."""
        need = _FACT_VERSION.get(fact, MIN_PROTOCOL)
        if need > self.version:
            raise ProtocolError("oracle fact %s needs protocol version %d; the simulator speaks %d"
                                % (fact, need, self.version))
        self.send(dict(type="query", job=job, fact=fact, **args))
        a = self.recv()
        if a is None:
            raise EOFError("the simulator closed the conversation during a query")
        if a.get("type") == "error":
            raise RuntimeError("the simulator: " + a.get("message", ""))
        if a.get("type") != "answer":
            raise RuntimeError("expected an answer, got a %s message" % a.get("type"))
        return a["value"], a["ok"], a.get("sync", 0.0)


_FACT_VERSION = {"step_time": 2, "completion_epoch": 2}
"""The oracle facts newer than version 1, by the version that added them."""


class ProtocolError(Exception):
    """The simulator sent something this client cannot follow."""


def negotiate(hello: dict) -> int:
    """The conversation's version: the newest both sides speak. hello's
    protocol is the oldest version the engine speaks, max_protocol (absent
    from a version 1 engine) the newest."""
    lo = hello.get("protocol")
    hi = hello.get("max_protocol", lo)
    if not isinstance(lo, int) or not isinstance(hi, int) or hi < MIN_PROTOCOL or lo > PROTOCOL:
        raise ProtocolError("the simulator speaks protocol versions %s to %s, this client %d to %d"
                            % (lo, hi, MIN_PROTOCOL, PROTOCOL))
    return min(hi, PROTOCOL)


class PolicyError(Exception):
    """The policy's code returned something that is not a decision: the
    message names what it returned and what was expected."""


def _describe(v) -> str:
    """A returned value for a message: its type and a short repr."""
    r = repr(v)
    if len(r) > 60:
        r = r[:57] + "..."
    return "%s %s" % (type(v).__name__, r)


_ALLOC = "None or a list of GPUs per node (cluster.nodes integers)"


def _alloc_to_wire(a, what: str):
    """One allocation as the protocol carries it: None, or a list of
    integers (any integral type, numpy's included; the simulator checks
    their count and values)."""
    if a is None:
        return None
    if isinstance(a, (str, bytes, dict)) or not hasattr(a, "__iter__"):
        raise PolicyError("%s is %s, expected %s" % (what, _describe(a), _ALLOC))
    out = list(a)
    for v in out:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise PolicyError("%s is %s, with %s in it, expected %s" % (what, _describe(a), _describe(v), _ALLOC))
    return [int(v) for v in out]


def _decision(alloc, jobs: List[Job]) -> list:
    """schedule's return value as a decision's alloc, or PolicyError
    naming what it returned (an int, a dict, a list of ints, ...)."""
    if isinstance(alloc, (str, bytes, dict)) or not hasattr(alloc, "__len__") or not hasattr(alloc, "__iter__"):
        raise PolicyError("schedule returned %s, expected a list with one allocation per job in order (%d jobs), each %s"
                          % (_describe(alloc), len(jobs), _ALLOC))
    if len(alloc) != len(jobs):
        raise ProtocolError("schedule returned %d allocations for %d jobs" % (len(alloc), len(jobs)))
    return [_alloc_to_wire(a, "schedule's allocation %d (job %s)" % (i, j.name))
            for i, (a, j) in enumerate(zip(alloc, jobs))]


def _changes(changes) -> list:
    """schedule_incremental's return value as an incremental decision's
    changes, or PolicyError naming what it returned."""
    if isinstance(changes, (str, bytes, dict)) or not hasattr(changes, "__iter__"):
        raise PolicyError("schedule_incremental returned %s, expected a list of (key, allocation) pairs, "
                          "allocation %s" % (_describe(changes), _ALLOC))
    out = []
    for c in changes:
        if isinstance(c, (str, bytes, dict)) or not hasattr(c, "__len__") or len(c) != 2:
            raise PolicyError("schedule_incremental returned a change %s, expected a (key, allocation) pair"
                              % _describe(c))
        k, a = c
        out.append({"key": k, "alloc": _alloc_to_wire(a, "schedule_incremental's allocation for key %s" % k)})
    return out


_ADMISSION_VERSION = 3
"""The protocol version that added admission control."""

_LLM_VERSION = 4
"""The protocol version that added the trait sizes_llm_jobs, Job.node_unit
and the cluster's racks."""


def _declined(reason, job: Job) -> str:
    """admit's return value as an admission's reason ("" admits), or
    PolicyError naming what it returned."""
    if reason is None or reason == "":
        return ""
    if not isinstance(reason, str):
        raise PolicyError("admit returned %s for job %s, expected None to admit it or a str, the reason it is declined"
                          % (_describe(reason), job.name))
    return " ".join(reason.split()) or "declined"


_JOB_FIELDS = [f.name for f in fields(Job) if f.name != "_conn"]


def _update(job: Job, new: Job) -> None:
    """Bring a tracked job's view up to date in place."""
    for name in _JOB_FIELDS:
        setattr(job, name, getattr(new, name))


def serve(policy: Policy, inp=None, out=None) -> int:
    """Speak the protocol for policy until the simulator closes standard
    input; returns the process's exit status (0, or 1 after an error)."""
    inp = inp if inp is not None else sys.stdin
    out = out if out is not None else sys.stdout
    conn = _Conn(inp, out)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # print() in policy code must not reach the protocol
    try:
        return _serve(policy, conn)
    except Exception as e:  # report one line, the traceback to standard error
        traceback.print_exc(file=sys.stderr)
        msg = "%s: %s" % (type(e).__name__, e)
        try:
            conn.send({"type": "error", "message": " ".join(msg.split())})
        except Exception:
            pass
        return 1
    finally:
        sys.stdout = real_stdout


def _serve(policy: Policy, conn: _Conn) -> int:
    hello = conn.recv()
    if hello is None:
        return 0
    if hello.get("type") != "hello":
        raise ProtocolError("expected hello, got a %s message" % hello.get("type"))
    conn.version = negotiate(hello)
    policy.start(hello["seed"], hello["restart_delay"])
    incremental = callable(getattr(policy, "schedule_incremental", None))
    ready = {"type": "ready", "protocol": conn.version, "name": policy.name,
             "traits": {"adaptive_batch": bool(policy.adaptive_batch), "needs_oracle": bool(policy.needs_oracle),
                        "user_gpus": bool(policy.user_gpus)}}
    if incremental:
        ready["incremental"] = True
    admission = callable(getattr(policy, "admit", None))
    if admission and conn.version < _ADMISSION_VERSION:
        print("polluxsim_policy: the simulator speaks protocol version %d, which has no admission control: "
              "%s.admit is not called and every job is admitted" % (conn.version, type(policy).__name__), file=sys.stderr)
        admission = False
    if admission:
        ready["admission"] = True
    if policy.sizes_llm_jobs:
        if conn.version < _LLM_VERSION:
            print("polluxsim_policy: the simulator speaks protocol version %d, which does not carry sizes_llm_jobs: "
                  "LLM jobs are rigid at their request under %s" % (conn.version, type(policy).__name__), file=sys.stderr)
        else:
            ready["traits"]["sizes_llm_jobs"] = True
    opts = policy.options()
    if opts:
        ready["options"] = opts
    conn.send(ready)
    tracked: Dict[int, Job] = {}
    oracle = conn if policy.needs_oracle else None
    while True:
        msg = conn.recv()
        if msg is None:
            return 0
        kind = msg.get("type")
        if kind == "round":
            cluster = cluster_from_wire(msg["cluster"])
            jobs = [Job.from_wire(j, oracle) for j in msg["jobs"]]
            alloc = _decision(policy.schedule(msg["now"], cluster, jobs), jobs)
            conn.send({"type": "decision", "round": msg["round"], "alloc": alloc})
        elif kind == "incremental_round":
            if not incremental:
                raise ProtocolError("an incremental round for a policy without schedule_incremental")
            cluster = cluster_from_wire(msg["cluster"])
            removed = msg.get("removed") or []
            for k in removed:
                tracked.pop(k, None)
            added = []
            for kj in msg.get("added") or []:
                j = Job.from_wire(kj["job"], oracle)
                tracked[kj["key"]] = j
                added.append((kj["key"], j))
            for kj in msg.get("updated") or []:
                _update(tracked[kj["key"]], Job.from_wire(kj["job"]))
            changes = _changes(policy.schedule_incremental(msg["now"], cluster, added, removed))
            conn.send({"type": "incremental_decision", "round": msg["round"], "changes": changes})
        elif kind == "admit":
            if not admission:
                raise ProtocolError("an admit message for a policy without admission control")
            job = Job.from_wire(msg["job"], oracle)
            active = [Job.from_wire(j, oracle) for j in msg.get("active") or []]
            reason = _declined(policy.admit(msg["now"], cluster_from_wire(msg["cluster"]), job, active), job)
            answer = {"type": "admission", "job": job.name}
            if reason:
                answer["declined"] = reason
            conn.send(answer)
        elif kind == "error":
            print("polluxsim: " + msg.get("message", ""), file=sys.stderr)
            return 1
        else:
            raise ProtocolError("unexpected %s message" % kind)


def main(policy: Policy) -> None:
    """serve(policy) and exit with its status: the usual end of a policy
    script."""
    sys.exit(serve(policy))
