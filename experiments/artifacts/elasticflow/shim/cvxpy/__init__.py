"""Stand-in for the part of cvxpy that ElasticFlow's scheduler uses.

Only its Themis baseline (scheduler.py themis_sim_jobs, utils.py
get_base_constraints) builds a program: minimise the largest of the jobs'
expected finish-time ratios (E_j + R_j * inv_pos(T_j * x_j)) / I_j over
time fractions 0 <= x <= 1 with sum_j g_j x_j <= G. Expressions here are
kept as trees evaluated on a point; Problem.solve writes the program in
epigraph form (minimise t subject to every term of a maximum <= t) and
solves it with SciPy's SLSQP from a feasible start, with x bounded away
from 0 where inv_pos would be infinite. Expressions evaluate on arrays
whose last axis is the variables', so the constraints' finite-difference
Jacobian is one evaluation of each tree at all perturbed points at once. cvxpy would hand the same program
to ECOS; both find the optimum to their tolerance, but where the optimum
is not unique (jobs whose ratio is not the largest may take any fraction
in a range) the two may return different points.
"""

import numpy as np
from scipy import optimize

_FLOOR = 1e-9


def _lift(v):
    return v if isinstance(v, Expression) else Constant(v)


class Expression:
    size = 1

    def __add__(self, o):
        return _Op(lambda a, b: a + b, self, _lift(o))

    __radd__ = __add__

    def __sub__(self, o):
        return _Op(lambda a, b: a - b, self, _lift(o))

    def __rsub__(self, o):
        return _Op(lambda a, b: a - b, _lift(o), self)

    def __mul__(self, o):
        return _Op(lambda a, b: a * b, self, _lift(o))

    __rmul__ = __mul__

    def __truediv__(self, o):
        return _Op(lambda a, b: a / b, self, _lift(o))

    def __le__(self, o):
        return Constraint(self, _lift(o))

    def __ge__(self, o):
        return Constraint(_lift(o), self)

    def variables(self):
        return set()


class Constant(Expression):
    def __init__(self, v):
        self.v = np.asarray(v, dtype=float)

    def ev(self, x):
        return self.v


class _Op(Expression):
    def __init__(self, f, *args):
        self.f, self.args = f, args

    def ev(self, x):
        return self.f(*[a.ev(x) for a in self.args])

    def variables(self):
        s = set()
        for a in self.args:
            s |= a.variables()
        return s


class Variable(Expression):
    def __init__(self, shape=()):
        self.n = int(shape) if not isinstance(shape, tuple) else (shape[0] if shape else 1)
        self.value = None
        self.offset = 0

    def ev(self, x):
        return x[..., self.offset:self.offset + self.n]

    def variables(self):
        return {self}

    def __getitem__(self, i):
        return _Op(lambda v: v[..., i], self)


class Constraint:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi  # lo <= hi

    def slack(self, x):
        # One row per point of x (a point or a stack of them), one column
        # per scalar constraint.
        v = np.asarray(self.hi.ev(x) - self.lo.ev(x), dtype=float)
        lead = np.shape(x)[:-1]
        return np.broadcast_to(v, lead + np.shape(v)[len(lead):]).reshape(lead + (-1,))


class _Max(Expression):
    def __init__(self, args):
        self.args = [_lift(a) for a in args]

    def ev(self, x):
        return np.max(np.stack([np.broadcast_to(a.ev(x), np.shape(x)[:-1]) for a in self.args]), axis=0)

    def variables(self):
        s = set()
        for a in self.args:
            s |= a.variables()
        return s


def inv_pos(e):
    return _Op(lambda v: 1.0 / np.maximum(v, _FLOOR), _lift(e))


def maximum(*args):
    return _Max(args)


def multiply(a, b):
    return _lift(a) * _lift(b)


def sum(e, axis=None):  # noqa: A001 (cvxpy's name)
    return _Op(lambda v: np.sum(v, axis=-1), _lift(e))


class Minimize:
    def __init__(self, e):
        self.e = _lift(e)


class Problem:
    def __init__(self, objective, constraints=()):
        self.objective, self.constraints = objective, list(constraints)
        self.status, self.value = None, None

    def solve(self, solver=None, **kwargs):
        e = self.objective.e
        vs = set(e.variables())
        for c in self.constraints:
            vs |= c.lo.variables() | c.hi.variables()
        vs = sorted(vs, key=id)
        n = 0
        for v in vs:
            v.offset, n = n, n + v.n
        terms = e.args if isinstance(e, _Max) else [e]
        # A feasible start: the largest uniform fraction the constraints allow.
        x0 = None
        for u in (1.0, 0.5, 0.25, 0.1, 0.01, 1e-3, 1e-4):
            cand = np.full(n, u)
            if all((c.slack(cand) >= -1e-12).all() for c in self.constraints):
                x0 = cand
                break
        if x0 is None:
            x0 = np.full(n, _FLOOR)
        t0 = max(float(t.ev(x0)) for t in terms)
        z0 = np.append(x0, t0)

        def g(Z):
            # Z: points as rows (or one point); columns: t - term, then slacks.
            X = Z[..., :-1]
            cols = [Z[..., -1] - np.broadcast_to(t.ev(X), np.shape(X)[:-1]) for t in terms]
            out = np.stack(cols, axis=-1)
            if self.constraints:
                out = np.concatenate([out] + [c.slack(X) for c in self.constraints], axis=-1)
            return out

        def jac(z):
            h = 1e-7 * np.maximum(1.0, np.abs(z))
            Z = z + np.diag(h)
            return ((g(Z) - g(z)[None, :]) / h[:, None]).T

        cons = [{"type": "ineq", "fun": g, "jac": jac}]
        bounds = [(_FLOOR, None)] * n + [(None, None)]
        obj_grad = np.zeros(n + 1)
        obj_grad[-1] = 1.0
        r = optimize.minimize(lambda z: z[-1], z0, jac=lambda z: obj_grad, method="SLSQP", bounds=bounds,
                              constraints=cons, options={"maxiter": 500, "ftol": 1e-10})
        z = r.x if r.success else z0
        for v in vs:
            v.value = np.array(z[v.offset:v.offset + v.n])
        self.value = max(float(t.ev(z[:-1])) for t in terms)
        self.status = "optimal" if r.success else "optimal_inaccurate"
        return self.value
