"""A stand-in for autograd.grad (no Debian package): central differences
with a relative step, enough for the Sia artifact's goodput.py, which fits
seven positive parameters by L-BFGS-B with the gradient it returns. A
measurement aid for docs/heterogeneous.md, not part of polluxsim."""
import numpy as _np

from . import numpy  # noqa: F401 (autograd.numpy is plain numpy here)


def grad(f):
    def g(x, *args):
        x = _np.asarray(x, dtype=float)
        out = _np.zeros_like(x)
        for i in range(x.size):
            h = 1e-6 * max(abs(x[i]), 1e-12)
            a, b = x.copy(), x.copy()
            a[i] += h
            b[i] -= h
            out[i] = (f(a, *args) - f(b, *args)) / (2 * h)
        return out
    return g
