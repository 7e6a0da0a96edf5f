package io.kafkas3archiver.restore;

import io.kafkas3archiver.decode.Header;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Compares the archive range with the whole target topic (read_committed), by count and checksum,
 * in one of three modes (docs/restore.md, "Large restores"):
 *
 * <ul>
 *   <li>per partition, in order, over timestamp, key, value and headers: the normal restore;
 *   <li>whole topic, order-independent, over the same fields: {@code --rekey}, which moves records
 *       between partitions;
 *   <li>whole topic, order-independent, over values only: a values-only archive, which never held
 *       keys, headers or timestamps (the target's timestamps are the produce time).
 * </ul>
 */
final class Verifier {
  /** What a verify compares. */
  enum Mode {
    PER_PARTITION("per partition, in order"),
    WHOLE_TOPIC("whole topic, order-independent: --rekey"),
    VALUES_ONLY(
        "whole topic, order-independent, values only: the archive holds no keys, headers or"
            + " timestamps");

    private final String label;

    Mode(String label) {
      this.label = label;
    }

    boolean ordered() {
      return this == PER_PARTITION;
    }
  }

  private final RestoreOptions options;
  private final ArchiveReader reader;
  private final TargetCluster cluster;
  private final PrintStream out;

  Verifier(RestoreOptions options, ArchiveReader reader, TargetCluster cluster, PrintStream out) {
    this.options = options;
    this.reader = reader;
    this.cluster = cluster;
    this.out = out;
  }

  static Mode mode(RestoreOptions options, ArchiveIndex index) {
    if (index.valuesOnly()) {
      return Mode.VALUES_ONLY;
    }
    return options.rekey() ? Mode.WHOLE_TOPIC : Mode.PER_PARTITION;
  }

  /** Prints the comparison; returns whether archive and target agree. */
  boolean verify(ArchiveIndex index) throws IOException, InterruptedException {
    if (!TargetCluster.awaitSettledTransactions(
        cluster.admin(), options.targetTopic(), Duration.ofSeconds(60))) {
      out.println(
          "WARNING: a transaction is still open on "
              + options.targetTopic()
              + " after 60 s; verify compares only what is committed");
    }
    Mode mode = mode(options, index);
    Map<Integer, RecordDigest> archive = new TreeMap<>();
    index.plan.walk(
        entry -> reader.read(entry.object(), entry.ordinal()),
        options.inRange(),
        Map.of(),
        (r, from) ->
            add(archive, mode, r.partition(), r.timestamp(), r.key(), r.value(), r.headers()));
    Map<Integer, RecordDigest> target = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = cluster.consumer()) {
      TargetCluster.forEachRecord(
          consumer,
          options.targetTopic(),
          r -> {
            List<Header> headers = new ArrayList<>();
            r.headers().forEach(h -> headers.add(new Header(h.key(), h.value())));
            add(target, mode, r.partition(), r.timestamp(), r.key(), r.value(), headers);
          });
    }
    Set<Integer> all = new TreeSet<>(archive.keySet());
    all.addAll(target.keySet());
    boolean ok = true;
    out.println("verify (" + mode.label + "):");
    for (int p : all) {
      RecordDigest a = archive.getOrDefault(p, new RecordDigest(mode.ordered()));
      RecordDigest t = target.getOrDefault(p, new RecordDigest(mode.ordered()));
      boolean same = a.count() == t.count() && a.hex().equals(t.hex());
      ok &= same;
      out.printf(
          Locale.ROOT,
          "  %s: archive %,d records %s, target %,d records %s  %s%n",
          mode.ordered() ? "partition " + p : "topic",
          a.count(),
          a.hex(),
          t.count(),
          t.hex(),
          same ? "OK" : "MISMATCH");
    }
    out.println(
        ok
            ? "verify: OK"
            : "verify: MISMATCH (the target holds other records too, or the restore is"
                + " incomplete; rerun the restore, then --verify-only)");
    return ok;
  }

  private static void add(
      Map<Integer, RecordDigest> digests,
      Mode mode,
      int partition,
      long timestamp,
      byte[] key,
      byte[] value,
      List<Header> headers) {
    RecordDigest d =
        digests.computeIfAbsent(
            mode.ordered() ? partition : -1, k -> new RecordDigest(mode.ordered()));
    if (mode == Mode.VALUES_ONLY) {
      d.add(0, null, value, List.of());
    } else {
      d.add(timestamp, key, value, headers);
    }
  }
}
