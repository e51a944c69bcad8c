"""export_pandas.py CSV_DIR JSONL_DIR SWEEP_SUMMARY [DUCKDB_DUMP]

Reads a sweep's `polluxsim export` with pandas alone (no pyarrow): every
CSV with the dtypes of its .dtypes.json sidecar, every JSON Lines file, and
checks that
- each CSV has the sidecar's columns, in order, with lossless dtypes;
- the JSON Lines export holds the same values;
- results.csv's mean avg_jct_s per cell is the sweep summary's (the
  report's number), printed per cell;
- with a DuckDB dump of the Parquet tables, every value is DuckDB's.
Exits 1 with one line per mismatch."""
import json, math, os, sys
import pandas as pd

csv_dir, jsonl_dir, summary = sys.argv[1:4]
dump = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else None
bad = []

def read_csv(path):
    side = json.load(open(path + ".dtypes.json"))
    cols = side["columns"]
    df = pd.read_csv(path, dtype={c["name"]: c["pandas"] for c in cols}, keep_default_na=False, na_values=[""], float_precision="round_trip")
    if list(df.columns) != [c["name"] for c in cols]:
        bad.append(f"{path}: columns {list(df.columns)}")
    return df, cols

def same(a, b, kind):
    """a, from the CSV, equals b; a CSV null is an empty string too."""
    a_null = a is None or (not isinstance(a, str) and pd.isna(a))
    b_null = b is None or (not isinstance(b, str) and pd.isna(b))
    if a_null and kind == "VARCHAR" and b == "":
        return True
    if a_null or b_null:
        return a_null and b_null
    if kind == "DOUBLE":
        return float(a) == float(b)
    if kind == "BIGINT":
        return int(a) == int(b)
    if kind == "BOOLEAN":
        return bool(a) == (b if isinstance(b, bool) else str(b).lower() == "true")
    return str(a) == str(b)

tables = sorted(f for f in os.listdir(csv_dir) if f.endswith(".csv"))
for name in tables:
    df, cols = read_csv(os.path.join(csv_dir, name))
    for c in cols:
        if str(df[c["name"]].dtype) != c["pandas"]:
            bad.append(f"{name}: {c['name']} read as {df[c['name']].dtype}, want {c['pandas']}")
    js = pd.read_json(os.path.join(jsonl_dir, name[:-4] + ".jsonl"), lines=True, dtype=False, precise_float=True)
    if len(js) != len(df):
        bad.append(f"{name}: {len(df)} CSV rows, {len(js)} JSON Lines rows")
    else:
        for c in cols:
            for i, (a, b) in enumerate(zip(df[c["name"]], js[c["name"]])):
                if not same(a, b, c["type"]):
                    bad.append(f"{name}: {c['name']} row {i}: CSV {a!r}, JSON Lines {b!r}")
                    break
    if dump is not None:
        key = next((k for k in dump if os.path.basename(k) == name[:-4] + ".parquet"), None)
        if key is None:
            bad.append(f"{name}: no DuckDB read of its Parquet table")
            continue
        d = dump[key]
        if d["columns"] != list(df.columns) or len(d["rows"]) != len(df):
            bad.append(f"{name}: DuckDB has columns {d['columns']} and {len(d['rows'])} rows, the CSV {list(df.columns)} and {len(df)}")
            continue
        for j, c in enumerate(cols):
            for i, v in enumerate(df[c["name"]]):
                if not same(v, d["rows"][i][j], c["type"]):
                    bad.append(f"{name}: {c['name']} row {i}: pandas {v!r}, DuckDB {d['rows'][i][j]!r}")
                    break

res, _ = read_csv(os.path.join(csv_dir, "results.csv"))
means = res.groupby("cell", observed=True)["avg_jct_s"].mean()
for cell in json.load(open(summary))["cells"]:
    want = cell["metrics"]["avg_jct_s"]["mean"]
    got = means.get(cell["cell"], float("nan"))
    print(f"{cell['cell']}: avg JCT {got / 3600:.3f} h (summary {want / 3600:.3f} h)")
    if not abs(got - want) <= 1e-9 * abs(want):
        bad.append(f"cell {cell['cell']}: pandas mean avg_jct_s {got}, the sweep's {want}")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
