package io.kafkas3archiver.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** What an audit found: per partition, and the objects it could not place. */
public final class AuditReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Why offsets are absent from the archive, and whether that is explained. */
  enum GapReason {
    /** The object's claim lists them: the delivery held no record there. */
    RECORDED(
        "recorded in the claim: no record was delivered (transaction marker, aborted or"
            + " compacted record)",
        true),
    /** Between claims, and the cluster holds no record there. */
    NO_RECORD_IN_LOG(
        "claimed by no object; the log holds no record there (transaction marker,"
            + " aborted or compacted record) or only tombstones (skipped values-only)",
        true),
    /** Between claims, and the cluster holds records there. */
    MISSING("claimed by no object, and the log holds records there: not in the archive", false),
    /** Between claims, below the log's start: retention deleted them, nothing can tell. */
    BEFORE_LOG_START(
        "claimed by no object, and before the log's start offset (retention deleted"
            + " them): lost if they ever held records",
        false),
    /** Between claims, without a cluster to ask. */
    UNCHECKED(
        "claimed by no object; pass --bootstrap-servers to tell a transaction marker or"
            + " compacted record from a lost object",
        false),
    /** Committed by the mapping but not archived. */
    COMMITTED_NOT_ARCHIVED(
        "committed by the consumer group but claimed by no object, and the"
            + " log holds records there",
        false);

    final String text;
    final boolean explained;

    GapReason(String text, boolean explained) {
      this.text = text;
      this.explained = explained;
    }
  }

  record Gap(Ranges.Range range, GapReason reason, long firstRecord) {}

  record Duplicate(Ranges.Range range, List<String> keys) {}

  /** An object whose claim is broken: no claim, no error object for its error rows, and so on. */
  record BadObject(String key, String problem) {}

  static final class Partition {
    final int partition;
    int objects;
    int errorObjects;
    int pointers;
    Ranges covered = new Ranges();
    final List<Gap> gaps = new ArrayList<>();
    final List<Duplicate> duplicates = new ArrayList<>();
    final Ranges errorOffsets = new Ranges();
    final List<BadObject> bad = new ArrayList<>();
    ClusterView.Log log;
    Long committed;
    long archivedThrough = -1;
    long lag = -1;

    /** The offsets --from/--to mapped to, when the range was given in record times. */
    Ranges.Range window;

    Partition(int partition) {
      this.partition = partition;
    }

    long gapOffsets(boolean explained) {
      return gaps.stream()
          .filter(g -> g.reason().explained == explained)
          .mapToLong(g -> g.range().size())
          .sum();
    }

    long duplicateOffsets() {
      return duplicates.stream().mapToLong(d -> d.range().size()).sum();
    }

    long problems() {
      return gaps.stream().filter(g -> !g.reason().explained).count()
          + duplicates.size()
          + bad.size();
    }
  }

  final String bucket;
  final String listed;
  final String topic;
  final boolean withCluster;
  final Map<Integer, Partition> partitions = new TreeMap<>();
  final List<BadObject> unplaced = new ArrayList<>();
  final List<String> skipped = new ArrayList<>();
  ArchiveScan.Requests requests = new ArchiveScan.Requests();
  long objects;
  long headsSaved;
  long probes;
  long verified;
  long unverifiable;
  boolean incremental;

  /** The record-time range, as given (--from, --to), or null. */
  String fromTime;

  String toTime;

  AuditReport(String bucket, String listed, String topic, boolean withCluster) {
    this.bucket = bucket;
    this.listed = listed;
    this.topic = topic;
    this.withCluster = withCluster;
  }

  Partition partition(int p) {
    return partitions.computeIfAbsent(p, Partition::new);
  }

  public long problems() {
    return unplaced.size() + partitions.values().stream().mapToLong(Partition::problems).sum();
  }

  /** The figures the gap alarm publishes, over every partition. */
  public long gapOffsets() {
    return partitions.values().stream().mapToLong(p -> p.gapOffsets(false)).sum();
  }

  public long duplicateOffsets() {
    return partitions.values().stream().mapToLong(Partition::duplicateOffsets).sum();
  }

  public long lagOffsets() {
    return partitions.values().stream().mapToLong(p -> Math.max(0, p.lag)).sum();
  }

  public int exitCode() {
    return problems() > 0 ? 1 : 0;
  }

  void printTable(PrintStream out) {
    out.printf(
        Locale.ROOT,
        "audit of s3://%s/%s (topic %s): %,d objects%s%n",
        bucket,
        listed,
        topic,
        objects,
        incremental
            ? String.format(Locale.ROOT, ", %,d claims from the audit state", headsSaved)
            : "");
    String header =
        String.format(
            Locale.ROOT,
            "%-9s %-22s %8s %8s %10s %10s %8s%s",
            "partition",
            "covered",
            "objects",
            "gaps",
            "unexplained",
            "duplicates",
            "errors",
            withCluster
                ? String.format(
                    Locale.ROOT,
                    " %10s %10s %10s %16s %8s",
                    "log-start",
                    "log-end",
                    "committed",
                    "archived-through",
                    "lag")
                : "");
    if (fromTime != null || toTime != null) {
      out.printf(
          "time range: --from %s --to %s%n",
          fromTime == null ? "-" : fromTime, toTime == null ? "-" : toTime);
    }
    out.println(header);
    for (Partition p : partitions.values()) {
      String covered =
          p.covered.isEmpty()
              ? "-"
              : p.covered.first()
                  + ".."
                  + p.covered.last()
                  + (p.covered.list().size() > 1 ? " (" + p.covered.list().size() + " runs)" : "");
      out.printf(
          Locale.ROOT,
          "%-9d %-22s %8d %8d %10d %10d %8d%s%n",
          p.partition,
          covered,
          p.objects,
          p.gapOffsets(true),
          p.gapOffsets(false),
          p.duplicateOffsets(),
          p.errorOffsets.size(),
          withCluster
              ? String.format(
                  Locale.ROOT,
                  " %10s %10s %10s %16d %8d",
                  p.log == null ? "-" : Long.toString(p.log.start()),
                  p.log == null ? "-" : Long.toString(p.log.end()),
                  p.committed == null ? "-" : Long.toString(p.committed),
                  p.archivedThrough,
                  Math.max(0, p.lag))
              : "");
    }
    for (Partition p : partitions.values()) {
      if (p.window != null) {
        out.printf(
            Locale.ROOT,
            "partition %d: the time range is %s%n",
            p.partition,
            p.window.size() > 0
                ? "offsets " + p.window
                : "no offsets (no record in it; the next offset is " + p.window.from() + ")");
      }
    }
    List<String> lines = new ArrayList<>();
    for (Partition p : partitions.values()) {
      for (Gap g : p.gaps) {
        if (!g.reason().explained) {
          lines.add(
              String.format(
                  Locale.ROOT,
                  "partition %d: offsets %s (%,d): %s%s",
                  p.partition,
                  g.range(),
                  g.range().size(),
                  g.reason().text,
                  g.firstRecord() >= 0 ? " (first record at " + g.firstRecord() + ")" : ""));
        }
      }
      for (Duplicate d : p.duplicates) {
        lines.add(
            String.format(
                Locale.ROOT,
                "partition %d: offsets %s (%,d) stored twice: %s",
                p.partition,
                d.range(),
                d.range().size(),
                String.join(" and ", d.keys())));
      }
      for (BadObject b : p.bad) {
        lines.add("partition " + p.partition + ": " + b.key() + ": " + b.problem());
      }
    }
    for (BadObject b : unplaced) {
      lines.add(b.key() + ": " + b.problem());
    }
    for (Partition p : partitions.values()) {
      if (!p.errorOffsets.isEmpty()) {
        out.printf(
            Locale.ROOT,
            "partition %d: %,d offsets in error objects: %s%n",
            p.partition,
            p.errorOffsets.size(),
            abbreviated(p.errorOffsets));
      }
      if (p.pointers > 0) {
        out.printf(
            Locale.ROOT,
            "partition %d: %d pointers (zero-row objects a shorter redelivery left; not"
                + " duplicates)%n",
            p.partition,
            p.pointers);
      }
    }
    if (verified + unverifiable > 0) {
      out.printf(
          Locale.ROOT,
          "checksums: %,d objects compared with their recorded CRC32C%s%n",
          verified,
          unverifiable > 0
              ? String.format(
                  Locale.ROOT, ", %,d written before checksums were recorded", unverifiable)
              : "");
    }
    if (!skipped.isEmpty()) {
      out.printf(
          "skipped %d objects whose names the archiver never writes, e.g. %s%n",
          skipped.size(), skipped.get(0));
    }
    lines.forEach(l -> out.println("PROBLEM " + l));
    out.printf(
        Locale.ROOT,
        "S3 requests: %d LIST, %d HEAD, %d GET, %d PUT (%d in all, $%.6f at us-east-1 prices)%s%n",
        requests.list,
        requests.head,
        requests.get,
        requests.put,
        requests.total(),
        requests.dollars(),
        withCluster ? "; cluster: " + probes + " range probes" : "");
    out.println(
        problems() == 0
            ? "result: clean (exit 0)"
            : "result: " + problems() + " problems (exit 1)");
  }

  private static String abbreviated(Ranges r) {
    List<Ranges.Range> list = r.list();
    String shown = String.join(", ", list.stream().limit(10).map(Ranges.Range::toString).toList());
    return list.size() > 10 ? shown + ", ... (" + list.size() + " runs)" : shown;
  }

  ObjectNode toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("bucket", bucket);
    root.put("prefix", listed);
    root.put("topic", topic);
    root.put("objects", objects);
    root.put("incremental", incremental);
    root.put("checksumsVerified", verified);
    root.put("checksumsUnverifiable", unverifiable);
    root.put("problems", problems());
    root.put("exitCode", exitCode());
    root.put("gapOffsets", gapOffsets());
    root.put("duplicateOffsets", duplicateOffsets());
    if (withCluster) {
      root.put("lagOffsets", lagOffsets());
    }
    if (fromTime != null) {
      root.put("from", fromTime);
    }
    if (toTime != null) {
      root.put("to", toTime);
    }
    ArrayNode parts = root.putArray("partitions");
    for (Partition p : partitions.values()) {
      ObjectNode n = parts.addObject();
      n.put("partition", p.partition);
      n.put("objects", p.objects);
      n.put("errorObjects", p.errorObjects);
      n.put("pointers", p.pointers);
      if (p.window != null) {
        // Where --from/--to fell in this partition: the offsets audited (to < from: none).
        n.put("fromOffset", p.window.from());
        n.put("toOffset", p.window.to());
      }
      ranges(n.putArray("covered"), p.covered);
      ArrayNode gaps = n.putArray("gaps");
      for (Gap g : p.gaps) {
        ObjectNode o = gaps.addObject();
        o.put("from", g.range().from());
        o.put("to", g.range().to());
        o.put("reason", g.reason().name().toLowerCase(Locale.ROOT));
        o.put("explained", g.reason().explained);
        if (g.firstRecord() >= 0) {
          o.put("firstRecord", g.firstRecord());
        }
      }
      ArrayNode dups = n.putArray("duplicates");
      for (Duplicate d : p.duplicates) {
        ObjectNode o = dups.addObject();
        o.put("from", d.range().from());
        o.put("to", d.range().to());
        d.keys().forEach(o.putArray("keys")::add);
      }
      ranges(n.putArray("errorOffsets"), p.errorOffsets);
      ArrayNode bad = n.putArray("badObjects");
      p.bad.forEach(b -> bad.addObject().put("key", b.key()).put("problem", b.problem()));
      if (p.log != null) {
        n.put("logStart", p.log.start());
        n.put("logEnd", p.log.end());
        n.put("archivedThrough", p.archivedThrough);
        n.put("lag", Math.max(0, p.lag));
      }
      if (p.committed != null) {
        n.put("committed", p.committed);
      }
    }
    ArrayNode unplacedNode = root.putArray("unplacedObjects");
    unplaced.forEach(b -> unplacedNode.addObject().put("key", b.key()).put("problem", b.problem()));
    ObjectNode req = root.putObject("requests");
    req.put("list", requests.list);
    req.put("head", requests.head);
    req.put("get", requests.get);
    req.put("put", requests.put);
    req.put("dollars", requests.dollars());
    if (withCluster) {
      root.put("probes", probes);
    }
    return root;
  }

  private static void ranges(ArrayNode a, Ranges r) {
    for (Ranges.Range range : r.list()) {
      a.addArray().add(range.from()).add(range.to());
    }
  }
}
