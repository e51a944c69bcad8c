"""A drop-in for AdaptDL's scheduling policy that asks `polluxsim serve`.

PolluxsimPolicy has the methods and return values of AdaptDL's
adaptdl_sched.policy.pollux.PolluxPolicy:

    optimize(jobs, nodes, base_allocations, node_template)
        -> (allocations, desired_nodes)
    allocate_job(job_info, nodes) -> allocation

and takes AdaptDL's own JobInfo and NodeInfo objects (any objects with
their attributes). Swapping AdaptDL's scheduler for polluxsim's is one line
in sched/adaptdl_sched/allocator.py, AdaptDLAllocator.__init__:

    self._policy = __import__("polluxsim_adaptdl").PolluxsimPolicy("http://127.0.0.1:8080")

Each optimize call is one round of the service (POST
/v1/sessions/{id}/rounds); the session is opened on the first call (and
again when the service has closed it). docs/serve.md describes the
service and, field by field, how AdaptDL's inputs map onto it; in short:

- nodes: a node's replicas are its GPUs (resources["nvidia.com/gpu"]),
  at most its free pods when it counts them; nodes are sent sorted as
  AdaptDL's policy sorts them, non-preemptible first, then by name. A node
  without a GPU is left out. Node and job keys may be any values (AdaptDL
  uses names and (namespace, name) pairs): they are sent as strings
  ("namespace/name") and answered with the caller's own keys.
- jobs: creation_timestamp (a datetime, or seconds) is the submission
  time; the round's time is now (or the latest submission). min_replicas,
  max_replicas and preemptible are sent as they are. A job's hints are
  the dict AdaptDL keeps on it (job["status"]["train"]) when the JobInfo
  carries it as job_info.hints; otherwise they are read from its
  SpeedupFunction (its goodput function's perfParams, gradParams and
  initBatchSize, its maxBatchSize, localBszBounds and
  gradientAccumulation), and a job whose speedup is AdaptDL's `r` (no
  model, or not preemptible) is sent without a model. maxProfiledReplicas,
  which the SpeedupFunction does not keep, is sent as max_replicas, which
  AdaptDL has already derived from it: the service derives the same
  range. last_answer keeps the service's last decision, with the batch
  configuration of every job. gradientAccumulation is always sent (AdaptDL reads an absent key
  as false).
- Every replica requests one GPU: a job asking for another count per
  replica is refused (ValueError naming it), as the service places one
  replica per GPU.
- Policies with an oracle (Optimus, SRTF, the Gavel family) ask facts a
  live cluster does not know; `oracle(job_key, query)` answers them. The
  default answers every job as in its last epoch (epochs 1, iterations
  and remaining iterations 1) with a step time proportional to the
  samples per GPU (local × (accum + 1): AdaptDL's speedup `r`), and no
  other GPU type: Optimus then shares GPUs by step-time gains alone.

allocate_job places an arriving job as AdaptDL's does, without asking the
service: min_replicas (at least 1) replicas on the first node, in the
order above, that holds them all; [] when none does.

Standard library only.
"""

import datetime
import json
import time
import urllib.error
import urllib.request

GPU = "nvidia.com/gpu"
"""The resource AdaptDL counts GPUs by."""

_HINT_KEYS = ("initBatchSize", "localBszBounds", "globalBatchSize", "maxBatchSize",
              "maxProfiledReplicas", "gradientAccumulation", "gradParams", "perfParams")
_PERF_KEYS = ("alpha_c", "beta_c", "alpha_n", "beta_n", "alpha_r", "beta_r", "gamma")


class ServiceError(RuntimeError):
    """The service refused a request, or could not be reached."""

    def __init__(self, status, message):
        super().__init__("polluxsim serve: %s %s" % (status, message))
        self.status = status


def default_oracle(job_key, query):
    """Answers a policy's oracle query without ground truth (see the
    module's doc)."""
    fact = query.get("fact")
    if fact == "iter_time":
        return float(query.get("local", 1)) * (int(query.get("accum", 0)) + 1), True
    if fact == "type_iter_time":
        return 0.0, False
    return 1.0, True


def _key_name(key):
    """The name a node or job key is sent as."""
    if isinstance(key, tuple):
        return "/".join(str(k) for k in key)
    return str(key)


def _timestamp(ts):
    """A creation timestamp as seconds: a datetime, a number, or either in
    a one-element tuple (AdaptDL's non_preemptible_test builds them so)."""
    if isinstance(ts, (tuple, list)) and len(ts) == 1:
        ts = ts[0]
    if isinstance(ts, datetime.datetime):
        return ts.timestamp()
    return float(ts)


def _replica_slots(node):
    """The replicas node holds: its GPUs, at most its free pods."""
    res = node.resources
    slots = int(res.get(GPU, 0))
    if "pods" in res:
        slots = min(slots, int(res["pods"]))
    return max(slots, 0)


def sort_nodes(nodes):
    """Node keys in AdaptDL's policy's order: non-preemptible first, then by
    key."""
    return sorted(nodes, key=lambda k: (bool(nodes[k].preemptible), k))


def hints_of(job_info):
    """The hints sent for an AdaptDL JobInfo (see the module's doc), or
    None."""
    hints = getattr(job_info, "hints", None)
    if hints is not None:
        h = {k: hints[k] for k in _HINT_KEYS if k in hints}
        if not ({"perfParams", "initBatchSize"} <= h.keys()):
            h.pop("perfParams", None)  # AdaptDL's allocator ignores the model
        if h.get("localBszBounds") is not None:
            h["localBszBounds"] = list(h["localBszBounds"])
        h["gradientAccumulation"] = bool(h.get("gradientAccumulation") or False)
        h.setdefault("initBatchSize", 0)
        return h
    fn = job_info.speedup_fn
    goodput = getattr(fn, "_goodput_fn", None)
    if goodput is None:
        return None  # AdaptDL's speedup r: no model
    perf, grad = goodput._perf_params, goodput._grad_params
    h = {"initBatchSize": int(goodput._init_batch_size),
         "perfParams": {k: float(v) for k, v in zip(_PERF_KEYS, perf)},
         "gradParams": {"norm": float(grad[0]), "var": float(grad[1])},
         "gradientAccumulation": bool(getattr(fn, "_accumulation", False))}
    if getattr(fn, "_max_batch_size", None):
        h["maxBatchSize"] = int(fn._max_batch_size)
    bounds = getattr(fn, "_atomic_bsz_range", None)
    if bounds is not None:
        h["localBszBounds"] = list(bounds)
    return h


def _check_resources(key, job_info):
    gpus = job_info.resources.get(GPU, 0)
    if gpus != 1:
        raise ValueError("job %s: each replica asks for %s GPUs; polluxsim places one replica per GPU" % (_key_name(key), gpus))


class PolluxsimPolicy(object):
    """AdaptDL's PolluxPolicy, decided by `polluxsim serve` at url."""

    def __init__(self, url="http://127.0.0.1:8080", policy="pollux", options=None, seed=0,
                 token=None, timeout=600.0, oracle=None, clock=time.time):
        self._url = url.rstrip("/")
        self._policy = policy
        self._options = options
        self._seed = seed
        self._token = token
        self._timeout = timeout
        self._oracle = oracle or default_oracle
        self._clock = clock
        self._session = None
        self.last_answer = None
        """The service's last decision: per job its allocation and the batch
        configuration its agent would run at there (config)."""

    # The service.

    def _post(self, path, body):
        return self._request("POST", path, json.dumps(body).encode())

    def _request(self, method, path, data=None):
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        req = urllib.request.Request(self._url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                text = resp.read()
                return resp.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                msg = json.loads(text)["error"]
            except (ValueError, KeyError, TypeError):
                msg = text.decode(errors="replace")
            return e.code, {"error": msg}
        except (urllib.error.URLError, OSError) as e:
            raise ServiceError(0, "%s: %s" % (self._url, e)) from e

    def _open(self):
        body = {"policy": self._policy, "seed": self._seed}
        if self._options is not None:
            body["options"] = self._options
        status, out = self._post("/v1/sessions", body)
        if status != 201:
            raise ServiceError(status, out["error"])
        self._session = out["session"]

    def close(self):
        """Closes the session (the service would expire it anyway)."""
        if self._session is not None:
            try:
                self._request("DELETE", "/v1/sessions/" + self._session)
            finally:
                self._session = None

    def _round(self, body, job_keys):
        if self._session is None:
            self._open()
        status, out = self._post("/v1/sessions/%s/rounds" % self._session, body)
        if status == 404:  # expired or closed: a new session
            self._open()
            status, out = self._post("/v1/sessions/%s/rounds" % self._session, body)
        while status == 200 and "oracle_queries" in out:
            q = out["oracle_queries"][0]
            value, ok = self._oracle(job_keys.get(q.get("job")), q)
            status, out = self._post("/v1/sessions/%s/oracle" % self._session,
                                     {"query_id": out["query_id"],
                                      "answers": [{"type": "answer", "value": float(value), "ok": bool(ok)}]})
        if status != 200:
            if status >= 500:
                self._session = None  # the service closed it
            raise ServiceError(status, out["error"])
        return out

    # AdaptDL's policy.

    def optimize(self, jobs, nodes, base_allocations, node_template=None):
        """One round: returns ({job key: [node key per replica]},
        desired node count), as PolluxPolicy.optimize."""
        node_keys = [k for k in sort_nodes(nodes) if _replica_slots(nodes[k]) > 0]
        node_names = {}
        for k in node_keys:
            name = _key_name(k)
            if name in node_names:
                raise ValueError("nodes %r and %r have the same name %r" % (node_names[name], k, name))
            node_names[name] = k
        if not node_keys:
            return {}, len(nodes)
        job_keys = {}
        wire_jobs = []
        latest = 0.0
        for key, info in jobs.items():
            _check_resources(key, info)
            name = _key_name(key)
            if name in job_keys:
                raise ValueError("jobs %r and %r have the same name %r" % (job_keys[name], key, name))
            job_keys[name] = key
            submitted = _timestamp(info.creation_timestamp)
            latest = max(latest, submitted)
            alloc = [_key_name(n) for n in base_allocations.get(key, []) or []
                     if n in nodes and _key_name(n) in node_names]
            job = {"name": name, "submission_time": submitted, "restarts": 0, "allocation": alloc,
                   "max_replicas": int(info.max_replicas), "min_replicas": int(info.min_replicas),
                   "preemptible": bool(info.preemptible)}
            hints = hints_of(info)
            if getattr(info, "hints", None) is None:
                # JobInfo.max_replicas is AdaptDL's range, already derived
                # from maxProfiledReplicas: sent as both, the service
                # derives the same range.
                hints = hints or {"initBatchSize": 0}
                hints["maxProfiledReplicas"] = int(info.max_replicas)
            job["hints"] = hints
            wire_jobs.append(job)
        body = {"time": max(float(self._clock()), latest),
                "nodes": [{"name": _key_name(k), "gpus": _replica_slots(nodes[k]),
                           "preemptible": bool(nodes[k].preemptible)} for k in node_keys],
                "jobs": wire_jobs}
        out = self._round(body, job_keys)
        self.last_answer = out
        allocations = {}
        for d in out["jobs"]:
            key = job_keys[d["name"]]
            given = base_allocations.get(key, []) or []
            if [_key_name(n) for n in given] == d["allocation"]:
                allocations[key] = list(given)  # kept: the caller's own list
            else:
                allocations[key] = [node_names[n] for n in d["allocation"]]
        return allocations, int(out["desired_nodes"])

    def allocate_job(self, job_info, nodes):
        """Places an arriving job, as PolluxPolicy.allocate_job: its
        min_replicas (at least 1) on the first node that holds them all, or
        []."""
        want = max(int(job_info.min_replicas), 1)
        for k in sort_nodes(nodes):
            res = nodes[k].resources
            fits = min(int(res.get(r, 0)) // v for r, v in job_info.resources.items() if v > 0) \
                if any(v > 0 for v in job_info.resources.values()) else 0
            if fits >= want:
                return [k] * want
        return []
