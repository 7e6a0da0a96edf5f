"""Splits a JFR recording of the iceberg function (IcebergBench's lambda section with
-Dbench.jfr=<folder>) into the parts docs/iceberg.md names: on-CPU samples (jdk.ExecutionSample)
and threads waiting in native code, i.e. on the network (jdk.NativeMethodSample), each stack put
into the first category whose marker it holds, and allocation (jdk.ObjectAllocationSample) by the
same categories.

Usage: python3 jfr_split.py <recording.jfr> [top-frames]   (needs the JDK's `jfr` on PATH)
"""

import collections
import json
import subprocess
import sys

# First match wins, searched from the outermost frame inwards, so a category holds everything
# called beneath its marker (the Parquet writer's S3 upload counts as data-file upload, not S3).
CATEGORIES = [
    ("bench driver (untimed: the next round's event)", ["IcebergWarm.roundOf"]),
    ("class loading, first use", ["ClassLoader.loadClass", "ClassLoader.defineClass",
                                  "Class.forName", "MethodHandleNatives.linkCallSite"]),
    ("decode the event (ours, shared with the file formats)", ["EventDecoder."]),
    ("log line and EMF (ours, shared)", ["InvocationLog.", "EmfMetrics."]),
    ("error objects (ours)", ["IcebergArchiver.writeErrorObjects"]),
    ("data file: S3 upload", ["S3OutputStream.close", "S3OutputStream.completeUploads"]),
    ("data file: Parquet encoding (Iceberg's writers, parquet-mr)", ["PartitionWriters.write",
                                                                     "IcebergArchiver.writeDataFiles",
                                                                     "DataFileWriter.open"]),
    ("rows: JSON value -> Iceberg record (ours)", ["TableRows.", "IcebergArchiver.prepare"]),
    ("catalog: load/refresh (HTTP, metadata JSON)", ["BaseTable.refresh", "RESTSessionCatalog.loadTable",
                                                     "GlueTableOperations.doRefresh",
                                                     "BaseTransaction.applyUpdates",
                                                     "Transactions.newTransaction"]),
    ("commit: manifest + manifest list writing", ["ManifestWriter.", "ManifestListWriter.",
                                                   "ManifestFiles.write", "SnapshotProducer.apply",
                                                   "SnapshotProducer.writeManifests"]),
    ("commit: catalog request (HTTP, metadata JSON)", ["RESTTableOperations.commit",
                                                       "GlueTableOperations.doCommit",
                                                       "BaseTransaction.commitTransaction"]),
    ("commit: building the snapshot (ours + Iceberg)", ["IcebergArchiver.commit"]),
    ("committed offsets (ours)", ["CommittedOffsets."]),
    ("rest of the handler", ["ArchiverHandler.handleRequest"]),
]


def events(recording, kind):
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "128", "--events", kind, recording],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["recording"]["events"]


def frame_name(frame):
    method = frame["method"]
    return method["type"]["name"].split("/")[-1] + "." + method["name"]


def category(frames):
    names = [frame_name(f) for f in reversed(frames)]  # outermost first
    for label, markers in CATEGORIES:
        if any(m in n for n in names for m in markers):
            return label
    return "other (outside the handler: JFR, the driver, idle threads)"


def table(title, counter, unit):
    total = sum(counter.values())
    print(f"\n{title} ({total:,.0f} {unit})")
    for label, n in counter.most_common():
        print(f"  {100.0 * n / total:5.1f}%  {label}")


def main():
    recording = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    cpu = collections.Counter()
    leaves = collections.Counter()
    for e in events(recording, "jdk.ExecutionSample"):
        frames = e["values"]["stackTrace"]["frames"] if e["values"]["stackTrace"] else []
        if frames:
            cpu[category(frames)] += 1
            leaves[frame_name(frames[0])] += 1
    table("on CPU (jdk.ExecutionSample)", cpu, "samples")
    wait = collections.Counter()
    for e in events(recording, "jdk.NativeMethodSample"):
        frames = e["values"]["stackTrace"]["frames"] if e["values"]["stackTrace"] else []
        label = category(frames) if frames else "?"
        if not label.startswith("other"):
            wait[label] += 1
    if wait:
        table("waiting in native code, the handler's thread (jdk.NativeMethodSample)", wait,
              "samples")
    alloc = collections.Counter()
    sampled = set()
    for e in events(recording, "jdk.ObjectAllocationSample"):
        # A thread's first sample weighs all it allocated before the recording started: skip it.
        thread = (e["values"].get("eventThread") or {}).get("javaThreadId")
        if thread not in sampled:
            sampled.add(thread)
            continue
        frames = e["values"]["stackTrace"]["frames"] if e["values"]["stackTrace"] else []
        alloc[category(frames) if frames else "?"] += e["values"]["weight"]
    table("allocation (jdk.ObjectAllocationSample, weighted)", alloc, "bytes")
    if top:
        print(f"\ntop {top} leaf frames on CPU")
        for name, n in leaves.most_common(top):
            print(f"  {n:5d}  {name}")


if __name__ == "__main__":
    main()
