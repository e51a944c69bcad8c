"""Reading an output folder's tables with the types the binary declares.

Parquet is read with pyarrow when pandas and pyarrow are both present;
otherwise the binary exports the table to CSV (``polluxsim export``),
whose sidecar FILE.dtypes.json gives each column's pandas dtype (see
docs/outputs.md), so no column or type is listed here. Without pandas a
table is a list of dicts, values converted by the same sidecar."""

import csv
import json
import os

from . import _binary

# The pandas dtypes the export's sidecars name, and how a CSV field of
# each reads without pandas (an empty field is null).
_PLAIN = {
    "string": str,
    "Int64": int,
    "float64": float,
    "boolean": lambda s: {"true": True, "false": False}[s],
}


def have(module):
    """Whether module imports."""
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def parquet_path(folder, name):
    """The Parquet file of table name in folder, or a PolluxsimError naming
    the tables there."""
    path = os.path.join(folder, name + ".parquet")
    if not os.path.isfile(path):
        there = sorted(f[:-len(".parquet")] for f in os.listdir(folder) if f.endswith(".parquet"))
        raise _binary.PolluxsimError("%s: no table %s (the folder has %s)" % (folder, name, ", ".join(there) or "none"))
    return path


def export(binary, folder, name, into):
    """Exports table name of folder as CSV into the folder into (once; the
    file is kept while the Parquet table is older) and returns its path."""
    out = os.path.join(into, name + ".csv")
    src = parquet_path(folder, name)
    if not (os.path.isfile(out) and os.path.getmtime(out) >= os.path.getmtime(src)):
        _binary.output(binary, ["export", "--in", folder, "--format", "csv", "--table", name, "--out", out])
    return out


def read_export(path, frames):
    """An exported CSV table in the dtypes of its sidecar: a pandas
    DataFrame when frames, else a list of dicts."""
    with open(path + ".dtypes.json") as f:
        cols = json.load(f)["columns"]
    if frames:
        import pandas as pd
        return pd.read_csv(path, dtype={c["name"]: c["pandas"] for c in cols}, keep_default_na=False,
                           na_values=[""], float_precision="round_trip")
    conv = {c["name"]: _PLAIN[c["pandas"]] for c in cols}
    with open(path, newline="") as f:
        return [{k: (None if v == "" else conv[k](v)) for k, v in row.items()} for row in csv.DictReader(f)]


def read_parquet(path):
    """A Parquet table through pyarrow, each column cast to the pandas dtype
    its Arrow type declares (the dtypes of the export's sidecar: string,
    Int64, float64, boolean; dictionary-encoded strings, which pyarrow
    reads as categories, become strings)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq
    df = pd.read_parquet(path, engine="pyarrow")
    for field in pq.read_schema(path):
        t = field.type
        if pa.types.is_dictionary(t):
            t = t.value_type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            dtype = "string"
        elif pa.types.is_integer(t):
            dtype = "Int64"
        elif pa.types.is_floating(t):
            dtype = "float64"
        elif pa.types.is_boolean(t):
            dtype = "boolean"
        else:
            raise _binary.PolluxsimError("%s: column %s has type %s, not one of an output table's" % (path, field.name, field.type))
        df[field.name] = df[field.name].astype(dtype)
    return df
