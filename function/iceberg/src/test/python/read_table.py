"""Reads an Iceberg table with two readers independent of the Java writer, PyIceberg (through
the REST catalog) and DuckDB's iceberg extension (from the metadata file PyIceberg resolved),
and prints one JSON document: for each reader, the snapshot it read and every row as
"partition@offset|id|n|ok|timestamp_ms".

usage: read_table.py REST_URI S3_ENDPOINT ACCESS_KEY SECRET_KEY NAMESPACE TABLE
"""
import json
import os
import sys

import duckdb
from pyiceberg.catalog import load_catalog

rest_uri, s3_endpoint, access_key, secret_key, namespace, table_name = sys.argv[1:7]

catalog = load_catalog(
    "rest",
    **{
        "type": "rest",
        "uri": rest_uri,
        "s3.endpoint": s3_endpoint,
        "s3.access-key-id": access_key,
        "s3.secret-access-key": secret_key,
        "s3.region": "us-east-1",
        "s3.force-virtual-addressing": "false",
    },
)
table = catalog.load_table(f"{namespace}.{table_name}")
snapshot = table.current_snapshot()
arrow = table.scan().to_arrow()


def ms(ts):
    return None if ts is None else int(ts.timestamp() * 1000)


py_rows = sorted(
    f"{r['kafka_partition']}@{r['kafka_offset']}|{r.get('id')}|{r.get('n')}|{str(r.get('ok')).lower()}|{ms(r['kafka_timestamp'])}"
    for r in arrow.to_pylist()
)

ext_dir = os.path.join(os.path.dirname(duckdb.__file__), "..", "duckdb_ext", "extensions")
con = duckdb.connect()
con.execute("SET autoinstall_known_extensions=false")
con.execute(f"SET extension_directory='{os.path.abspath(ext_dir)}'")
for ext in ("httpfs", "avro", "iceberg"):
    con.execute(f"LOAD {ext}")
host = s3_endpoint.split("://", 1)[1].rstrip("/")
con.execute(
    f"""CREATE SECRET s3 (TYPE s3, KEY_ID '{access_key}', SECRET '{secret_key}',
        REGION 'us-east-1', ENDPOINT '{host}', URL_STYLE 'path', USE_SSL false)"""
)
duck_rows = sorted(
    f"{p}@{o}|{i}|{n}|{str(ok).lower()}|{t}"
    for p, o, i, n, ok, t in con.execute(
        f"""SELECT kafka_partition, kafka_offset, id, n, ok, epoch_ms(kafka_timestamp)
            FROM iceberg_scan('{table.metadata_location}')"""
    ).fetchall()
)
print(
    json.dumps(
        {
            "snapshot": snapshot.snapshot_id if snapshot else None,
            "metadataLocation": table.metadata_location,
            "pyiceberg": py_rows,
            "duckdb": duck_rows,
        }
    )
)
