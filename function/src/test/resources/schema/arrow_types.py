"""Prints, as one JSON object, the Arrow type of each column of a Parquet file as pyarrow reads it,
and each row's values as Python prints them (str), so that a test sees a second reader's view.

Usage: arrow_types.py FILE"""
import json
import sys

import pyarrow.parquet as pq

table = pq.read_table(sys.argv[1])
print(json.dumps({
    "types": {f.name: str(f.type) for f in table.schema},
    "rows": [{k: None if v is None else str(v) for k, v in r.items()} for r in table.to_pylist()],
}))
