"""Reads a folder of Parquet files as pyarrow.dataset does, and prints, as one JSON document, the
unified schema's pandas dtypes and every row (nulls as null, floats as their shortest repr).

Usage: read_with_pyarrow.py FOLDER"""
import json
import pathlib
import sys

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pyarrow as pa

files = sorted(str(p) for p in pathlib.Path(sys.argv[1]).rglob("*.parquet"))
# One type per column name across the files, or this raises: the unified schema is the proof.
schema = pa.unify_schemas([pq.read_schema(f) for f in files])
table = ds.dataset(files, schema=schema, format="parquet").to_table()
frame = table.to_pandas()
print(json.dumps({
    "files": len(files),
    "dtypes": {c: str(t) for c, t in frame.dtypes.items()},
    "rows": table.to_pylist(),
}))
