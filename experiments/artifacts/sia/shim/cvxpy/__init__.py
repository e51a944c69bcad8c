"""A stand-in for the parts of cvxpy that the Sia artifact's sia.py uses
(siasosp23/artifacts, sia-simulator/), so that its simulator runs with
Debian's packages only: linear expressions over integer variables (sums,
products with constant arrays, matrix products with constant matrices,
indexing), comparisons, Minimize/Maximize and Problem.solve, which writes
the program in CPLEX LP format and solves it with the coinor-cbc command
line (Debian package coinor-cbc), the solver sia.py asks cvxpy for, with
the relative gap sia.py gives (allowablePercentageGap). A measurement aid
for docs/heterogeneous.md, not part of polluxsim."""
import os
import subprocess
import tempfile

import numpy as np
import scipy.sparse as sp

CBC, GLPK, GLPK_MI, ECOS, ECOS_BB, SCS = "CBC", "GLPK", "GLPK_MI", "ECOS", "ECOS_BB", "SCS"

# Variables are columns of one space, reused from the start when it is
# full: sia.py builds and solves one program at a time.
NV = 60_000
_next = [0]
_live = []  # the variables of recent programs, to receive values


def _size(shape):
    return int(np.prod(shape)) if shape else 1


class Expr:
    """Affine expressions of the variables, one row per element (row-major)."""

    __array_ufunc__ = None  # numpy defers to our operators (C @ X)

    def __init__(self, A, b, shape):
        self.A = sp.csr_matrix(A)
        self.b = np.asarray(b, dtype=float).reshape(-1)
        self.shape = tuple(shape)

    @property
    def size(self):
        return _size(self.shape)

    def _lift(self, o):
        if isinstance(o, Expr):
            return o
        c = np.asarray(o, dtype=float)
        shape = np.broadcast_shapes(self.shape, c.shape)
        return Expr(sp.csr_matrix((_size(shape), NV)), np.broadcast_to(c, shape).reshape(-1), shape)

    def _bcast(self, shape):
        if self.shape == tuple(shape):
            return self
        n = _size(shape)
        rows = np.broadcast_to(np.arange(self.size).reshape(self.shape), shape).reshape(-1)
        S = sp.csr_matrix((np.ones(n), (np.arange(n), rows)), shape=(n, self.size))
        return Expr(S @ self.A, S @ self.b, shape)

    def __add__(self, o):
        o = self._lift(o)
        shape = np.broadcast_shapes(self.shape, o.shape)
        a, c = self._bcast(shape), o._bcast(shape)
        return Expr(a.A + c.A, a.b + c.b, shape)

    __radd__ = __add__

    def __neg__(self):
        return Expr(-self.A, -self.b, self.shape)

    def __sub__(self, o):
        return self + (-self._lift(o))

    def __rsub__(self, o):
        return self._lift(o) + (-self)

    def __mul__(self, c):
        c = np.asarray(c, dtype=float)
        if c.size != 1:
            return multiply(self, c)
        return Expr(self.A * float(c), self.b * float(c), self.shape)

    __rmul__ = __mul__

    def __matmul__(self, B):  # X (m × n) @ B (n × k)
        B = np.asarray(B, dtype=float)
        m, _ = self.shape
        M = sp.kron(sp.identity(m), sp.csr_matrix(B.T), format="csr")
        return Expr(M @ self.A, M @ self.b, (m, B.shape[1]))

    def __rmatmul__(self, C):  # C (p × m) @ X (m × n)
        C = np.asarray(C, dtype=float)
        _, n = self.shape
        M = sp.kron(sp.csr_matrix(C), sp.identity(n), format="csr")
        return Expr(M @ self.A, M @ self.b, (C.shape[0], n))

    def __getitem__(self, key):
        idx = np.arange(self.size).reshape(self.shape)[key]
        rows = np.asarray(idx).reshape(-1)
        return Expr(self.A[rows], self.b[rows], np.shape(idx))

    def __le__(self, o):
        return Constraint(self - o, "<=")

    def __ge__(self, o):
        return Constraint(self - o, ">=")

    def __eq__(self, o):
        return Constraint(self - o, "=")

    __hash__ = object.__hash__


class Variable(Expr):
    def __init__(self, shape=(), integer=False, **kw):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = _size(shape)
        if _next[0] + n > NV:
            _next[0] = 0
        self.offset = _next[0]
        _next[0] += n
        A = sp.csr_matrix((np.ones(n), (np.arange(n), self.offset + np.arange(n))), shape=(n, NV))
        super().__init__(A, np.zeros(n), shape)
        self.value = None
        _live.append(self)
        del _live[:-16]


class Constraint:
    def __init__(self, e, sense):
        self.e, self.sense = e, sense


class Minimize:
    def __init__(self, e):
        self.e, self.sign = e, 1


class Maximize:
    def __init__(self, e):
        self.e, self.sign = e, -1


def multiply(a, b):
    if not isinstance(a, Expr):
        a, b = b, a
    c = np.asarray(b, dtype=float)
    shape = np.broadcast_shapes(a.shape, c.shape)
    a = a._bcast(shape)
    d = np.broadcast_to(c, shape).reshape(-1)
    return Expr(sp.diags(d) @ a.A, d * a.b, shape)


def sum(e, axis=None):  # noqa: A001 (cvxpy's name)
    if not isinstance(e, Expr):
        return np.sum(e, axis=axis)
    if axis is None:
        M = sp.csr_matrix(np.ones((1, e.size)))
        return Expr(M @ e.A, M @ e.b, ())
    m, n = e.shape
    if axis == 0:
        M = sp.kron(sp.csr_matrix(np.ones((1, m))), sp.identity(n), format="csr")
        return Expr(M @ e.A, M @ e.b, (n,))
    M = sp.kron(sp.identity(m), sp.csr_matrix(np.ones((1, n))), format="csr")
    return Expr(M @ e.A, M @ e.b, (m,))


def _term(v, name):
    return "%s %.17g %s" % ("+" if v >= 0 else "-", abs(v), name)


class Problem:
    def __init__(self, objective, constraints=()):
        self.objective, self.constraints = objective, list(constraints)
        self.status, self.value = None, None

    def solve(self, solver=None, verbose=False, **kw):
        obj = self.objective.e
        cols = set(obj.A.indices.tolist())
        for c in self.constraints:
            cols.update(c.e.A.indices.tolist())
        cols = sorted(cols)
        lo = {j: -np.inf for j in cols}
        hi = {j: np.inf for j in cols}
        rows = []
        for c in self.constraints:
            A = c.e.A.tocsr()
            for i in range(A.shape[0]):
                s0, s1 = A.indptr[i], A.indptr[i + 1]
                rhs = -c.e.b[i]
                if s1 - s0 == 0:
                    continue
                if s1 - s0 == 1:  # one variable: a bound
                    j, v = A.indices[s0], A.data[s0]
                    sense = c.sense
                    if v < 0 and sense != "=":
                        sense = "<=" if sense == ">=" else ">="
                    if sense in ("<=", "="):
                        hi[j] = min(hi[j], rhs / v)
                    if sense in (">=", "="):
                        lo[j] = max(lo[j], rhs / v)
                    continue
                # One term a line: CBC's LP reader stops at long lines.
                t = "\n  ".join(_term(v, "x%d" % j) for j, v in zip(A.indices[s0:s1], A.data[s0:s1]))
                rows.append(" c%d: %s %s %.17g\n" % (len(rows), t, c.sense, rhs))
        o = obj.A.multiply(self.objective.sign).tocsr()
        gap = kw.get("allowablePercentageGap", 0.01) / 100.0
        with tempfile.TemporaryDirectory() as d:
            lp, out = os.path.join(d, "m.lp"), os.path.join(d, "s.txt")
            with open(lp, "w") as f:
                f.write("Minimize\n obj: %s\nSubject To\n" % ("\n  ".join(_term(v, "x%d" % j) for j, v in zip(o.indices, o.data)) or "0 x%d" % cols[0]))
                f.writelines(rows)
                f.write("Bounds\n")
                for j in cols:
                    f.write(" %s <= x%d <= %s\n" % ("-inf" if lo[j] == -np.inf else "%.17g" % lo[j], j, "inf" if hi[j] == np.inf else "%.17g" % hi[j]))
                f.write("General\n")
                f.writelines(" x%d\n" % j for j in cols)
                f.write("End\n")
            run = subprocess.run(["cbc", lp, "-ratioGap", repr(gap), "-solve", "-solu", out], capture_output=True, text=True)
            if run.returncode != 0 or not os.path.exists(out):
                # Debian's CBC 2.10.8 can fail an assertion in its feasibility
                # pump after preprocessing (ClpNonLinearCost::checkInfeasibilities)
                # on some rounds: solve those again without preprocessing.
                run = subprocess.run(["cbc", lp, "-ratioGap", repr(gap), "-preprocess", "off", "-solve", "-solu", out], capture_output=True, text=True)
            if run.returncode != 0 or not os.path.exists(out):
                keep = os.path.join(tempfile.gettempdir(), "cbc-failed-%d.lp" % os.getpid())
                os.replace(lp, keep)
                raise RuntimeError("cbc failed (%s kept): %s" % (keep, run.stdout[-2000:] + run.stderr[-2000:]))
            x = {}
            with open(out) as f:
                head = f.readline()
                for line in f:
                    p = line.split()
                    if p and p[0] == "**":
                        p = p[1:]
                    x[int(p[1][1:])] = float(p[2])
        self.status = "optimal" if head.startswith("Optimal") else head.strip()
        xv = np.zeros(NV)
        for j, v in x.items():
            xv[j] = v
        self.value = float((obj.A @ xv + obj.b)[0])
        for var in _live:
            var.value = xv[var.offset:var.offset + var.size].reshape(var.shape)
        return self.value
