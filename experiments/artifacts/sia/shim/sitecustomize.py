"""NumPy 1.24 (Debian 12) dropped the aliases np.int, np.float and np.bool
that the artifact's code uses; restore them, and quiet the warnings of
pandas 1.5 about DataFrame.append."""
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402

for _n, _t in (("int", int), ("float", float), ("bool", bool)):
    if _n not in np.__dict__:
        setattr(np, _n, _t)
