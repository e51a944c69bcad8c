"""Run the polluxsim simulator from Python and read its results.

    import polluxsim
    res = polluxsim.run(policy="tiresias", workload="paper:1")
    res.summary()   # the run's metrics, one row
    res.jobs()      # one row per job

run and sweep call the polluxsim binary (find_binary says where it is
looked for), stream its progress to sys.stderr and return a Result over
the output folder. Its tables come as pandas DataFrames in the dtypes the
binary declares when pandas imports, else as lists of dicts. A policy may
be a built-in's name or a polluxsim_policy.Policy subclass, served in a
process of its own (policy_command). Standard library only; the guide is
docs/python.md.
"""

import json
import os
import shutil
import tempfile
import weakref

from . import _binary, _policy, _tables
from ._binary import PolluxsimError, find_binary

__all__ = ["run", "sweep", "Result", "PolluxsimError", "find_binary", "policy_command"]


def policy_command(policy, python=None):
    """The command line that serves a polluxsim_policy.Policy subclass (or
    the class of an instance) as the policy external: give it as
    --policy-opt command=... or a sweep cell's option "command". python is
    the interpreter (default: this one)."""
    if not _policy.is_policy_class(policy):
        raise PolluxsimError("%r is not a polluxsim_policy.Policy subclass" % (policy,))
    return _policy.command(policy, python)


def _policy_args(policy, options):
    """--policy and --policy-opt of a policy (a name or a Policy class) and
    its options (a dict)."""
    opts = dict(options or {})
    if _policy.is_policy_class(policy):
        if "command" in opts:
            raise PolluxsimError("options: command is the policy class's own; give either a class or a command")
        opts["command"] = _policy.command(policy)
        policy = "external"
    elif not isinstance(policy, str):
        raise PolluxsimError("policy: want a policy's name or a polluxsim_policy.Policy subclass, got %r" % (policy,))
    args = ["--policy", policy]
    for k, v in opts.items():
        args += ["--policy-opt", "%s=%s" % (k, _flag_value(v))]
    return args


def _flag_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


def _out(out, kind):
    if out is None:
        return tempfile.mkdtemp(prefix="polluxsim-%s-" % kind)
    return os.fspath(out)


def run(policy="pollux", workload=None, cluster=None, options=None, out=None, binary=None,
        seed=None, quiet=False, no_timing=False, args=()):
    """Runs one simulation: ``polluxsim run``.

    policy: a policy's name ("tiresias"; polluxsim policies lists them) or a
    polluxsim_policy.Policy subclass (run as the policy external, see
    policy_command); workload: --workload ("paper:1", a CSV file, ...);
    cluster: --cluster ("t4:16x4", "t4:6x4,a100:2x8", a file); options: the
    policy's options as a dict (--policy-opt key=value each); out: the
    output folder (default: a new temporary folder, kept); seed, quiet,
    no_timing: --seed, --quiet, --no-timing; args: any other flags of run,
    as a list. Returns the Result; raises PolluxsimError when the run
    fails."""
    binary = find_binary(binary)
    out = _out(out, "run")
    argv = ["run"] + _policy_args(policy, options) + ["--out", out]
    if workload is not None:
        argv += ["--workload", os.fspath(workload)]
    if cluster is not None:
        argv += ["--cluster", os.fspath(cluster)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if quiet:
        argv.append("--quiet")
    if no_timing:
        argv.append("--no-timing")
    _binary.call(binary, argv + list(args))
    return Result(out, binary)


def sweep(spec_or_name, out=None, binary=None, workloads=None, profiles=None, parallel=None,
          quiet=False, no_timing=False, args=()):
    """Runs an experiment: ``polluxsim sweep``.

    spec_or_name: a named experiment ("table2"; polluxsim sweep --list), a
    spec file, or a spec as a dict (docs/running.md's format), whose cells'
    "policy" may be a polluxsim_policy.Policy subclass (run as external,
    its command added to the cell's options); out: the output folder
    (default: a new temporary folder; a sweep into a folder holding some
    of its runs runs only the others); workloads, profiles, parallel:
    --workloads, --profiles, --parallel; args: any other flags. Returns
    the Result."""
    binary = find_binary(binary)
    out = _out(out, "sweep")
    exp = spec_or_name
    if isinstance(spec_or_name, dict):
        spec = dict(spec_or_name)
        spec["cells"] = [_cell(c) for c in spec.get("cells", [])]
        fd, exp = tempfile.mkstemp(prefix="polluxsim-spec-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(spec, f, indent=1)
    argv = ["sweep", "--experiment", os.fspath(exp), "--out", out]
    for flag, v in (("--workloads", workloads), ("--profiles", profiles), ("--parallel", parallel)):
        if v is not None:
            argv += [flag, os.fspath(v) if not isinstance(v, int) else str(v)]
    if quiet:
        argv.append("--quiet")
    if no_timing:
        argv.append("--no-timing")
    try:
        _binary.call(binary, argv + list(args))
    finally:
        if exp is not spec_or_name:
            os.remove(exp)
    return Result(out, binary)


def _cell(cell):
    """A spec's cell with a policy class replaced by external and its
    command."""
    if not _policy.is_policy_class(cell.get("policy")):
        return cell
    cell = dict(cell)
    opts = dict(cell.get("options") or {})
    opts["command"] = _policy.command(cell["policy"])
    cell["policy"], cell["options"] = "external", opts
    return cell


class Result:
    """A run's or a sweep's output folder and its tables.

    Each table is a pandas DataFrame in the dtypes the binary declares
    (strings "string", integers "Int64", doubles "float64", booleans
    "boolean"; nulls as <NA>) when pandas imports and frames is not False,
    else a list of dicts (null as None). Parquet is read with pyarrow when
    pandas and pyarrow are both present (and reader is not "export"),
    otherwise through ``polluxsim export`` to CSV in a temporary folder."""

    def __init__(self, path, binary=None, frames=None, reader="auto"):
        self.path = os.fspath(path)
        if not os.path.isfile(os.path.join(self.path, "summary.json")):
            raise PolluxsimError("%s: no summary.json: not a run's or a sweep's output folder" % self.path)
        self.binary = binary
        self.frames = _tables.have("pandas") if frames is None else frames
        if reader not in ("auto", "export"):
            raise PolluxsimError("reader: want auto or export, got %r" % (reader,))
        self.reader = reader
        self._exports = None

    def __repr__(self):
        return "Result(%r)" % self.path

    @property
    def is_sweep(self):
        """Whether the folder is a sweep's (it has experiment.json)."""
        return os.path.isfile(os.path.join(self.path, "experiment.json"))

    def summary_json(self):
        """summary.json as a dict."""
        with open(os.path.join(self.path, "summary.json")) as f:
            return json.load(f)

    def summary(self):
        """A run's metrics as one row (summary.json's fields; settings as
        one JSON text), or a sweep's per-cell table: one row per cell with
        its label, policy, runs and, per metric, the mean over the
        workloads (METRIC) and the 95% confidence interval's half width
        (METRIC_ci95)."""
        s = self.summary_json()
        if "cells" not in s:
            rows = [{k: (json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v) for k, v in s.items()}]
        else:
            rows = []
            for c in s["cells"]:
                row = {"cell": c.get("cell"), "label": c.get("label"), "policy": c.get("policy")}
                for m, st in sorted((c.get("metrics") or {}).items()):
                    row["runs"] = st.get("n")
                    row[m] = st.get("mean")
                    row[m + "_ci95"] = st.get("ci95_half_width")
                rows.append(row)
        if not self.frames:
            return rows
        import pandas as pd
        return pd.DataFrame(rows).convert_dtypes(convert_floating=False)

    def table(self, name):
        """The table name (jobs, rounds, cluster, types, nodes; a sweep's
        results and apps; docs/outputs.md documents each column)."""
        path = _tables.parquet_path(self.path, name)
        if self.frames and self.reader == "auto" and _tables.have("pyarrow"):
            return _tables.read_parquet(path)
        if self._exports is None:  # removed with the Result
            self._exports = tempfile.mkdtemp(prefix="polluxsim-export-")
            weakref.finalize(self, shutil.rmtree, self._exports, True)
        binary = find_binary(self.binary)
        return _tables.read_export(_tables.export(binary, self.path, name, self._exports), self.frames)

    def jobs(self):
        """One row per job (of every run, for a sweep)."""
        return self.table("jobs")

    def rounds(self):
        """One row per active job per scheduling round (a sweep has it with
        --job-rounds)."""
        return self.table("rounds")

    def cluster(self):
        """One row per scheduling round."""
        return self.table("cluster")

    def results(self):
        """A sweep's table of runs, one row per run."""
        return self.table("results")
