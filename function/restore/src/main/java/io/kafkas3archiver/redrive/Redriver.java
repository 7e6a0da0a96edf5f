package io.kafkas3archiver.redrive;

import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.TopicPartition;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The redrive: for every on-failure record the source holds, read the skipped offsets back from
 * Kafka and hand them to the archiver's own entry point, then mark the record done. The archiver's
 * claim chain stores each (topic, partition, offset) once, so a second redrive of the same record,
 * or of a range the archiver had partly written before it gave up, writes nothing twice.
 */
public final class Redriver {
  private final ArchiverEntry archiver;
  private final Optional<String> expectedTopic;
  private final Function<Optional<String>, Map<String, Object>> kafkaClients;
  private final Duration timeout;
  private final boolean dryRun;
  private final PrintStream out;

  /** What one run did. */
  public record Report(
      int records, int redriven, int failed, long recordsArchived, long offsetsMissing) {
    public boolean ok() {
      return failed == 0 && offsetsMissing == 0;
    }
  }

  /**
   * @param expectedTopic the archiver's {@code INPUT_TOPIC}: records of another topic are refused
   * @param kafkaClients the Kafka client settings, given the bootstrap servers a record names (the
   *     command line's win)
   */
  public Redriver(
      ArchiverEntry archiver,
      Optional<String> expectedTopic,
      Function<Optional<String>, Map<String, Object>> kafkaClients,
      Duration timeout,
      boolean dryRun,
      PrintStream out) {
    this.archiver = archiver;
    this.expectedTopic = expectedTopic;
    this.kafkaClients = kafkaClients;
    this.timeout = timeout;
    this.dryRun = dryRun;
    this.out = out;
  }

  /** Redrives up to {@code max} records of {@code source}. */
  public Report run(FailureSource source, int max) {
    List<FailureSource.Item> items = source.take(max);
    out.printf(
        Locale.ROOT,
        "redrive: %d on-failure records in %s%s%n",
        items.size(),
        source.describe(),
        dryRun ? " (dry run: nothing is archived or deleted)" : "");
    Map<String, SkippedRecords> readers = new HashMap<>();
    int redriven = 0;
    int failed = 0;
    long archived = 0;
    long missing = 0;
    try {
      for (FailureSource.Item item : items) {
        Outcome outcome;
        try {
          outcome = redrive(FailedBatch.parse(item.body(), item.name()), readers);
        } catch (RedriveException e) {
          out.println("  FAILED " + item.name() + ": " + e.getMessage());
          source.release(item);
          failed++;
          continue;
        }
        archived += outcome.records();
        missing += outcome.missing();
        if (dryRun || outcome.missing() > 0) {
          source.release(item);
        } else {
          source.done(item);
          redriven++;
        }
      }
    } finally {
      readers.values().forEach(SkippedRecords::close);
    }
    Report report = new Report(items.size(), redriven, failed, archived, missing);
    out.printf(
        Locale.ROOT,
        "redrive: %d of %d records redriven, %,d Kafka records %s, %d failed, %,d offsets no"
            + " longer in Kafka%n",
        report.redriven(),
        report.records(),
        report.recordsArchived(),
        dryRun ? "found (not archived)" : "handed to " + archiver.describe(),
        report.failed(),
        report.offsetsMissing());
    return report;
  }

  private record Outcome(long records, long missing) {}

  private Outcome redrive(FailedBatch batch, Map<String, SkippedRecords> readers) {
    out.printf(
        Locale.ROOT,
        "  %s: %s, %s%n",
        batch.source(),
        batch.condition(),
        String.join(
            ", ",
            batch.ranges().entrySet().stream()
                .map(e -> e.getKey() + " offsets " + e.getValue())
                .toList()));
    for (TopicPartition tp : batch.ranges().keySet()) {
      if (expectedTopic.isPresent() && !expectedTopic.get().equals(tp.topic())) {
        throw new RedriveException(
            "it names topic "
                + tp.topic()
                + ", but the archiver archives "
                + expectedTopic.get()
                + " (INPUT_TOPIC); is this the on-failure destination of another mapping?");
      }
    }
    Map<String, Object> clients = kafkaClients.apply(batch.bootstrapServers());
    SkippedRecords reader =
        readers.computeIfAbsent(
            String.valueOf(clients.get("bootstrap.servers")),
            k -> new SkippedRecords(clients, timeout));
    long records = 0;
    long missing = 0;
    for (var range : batch.ranges().entrySet()) {
      long[] batches = {0};
      SkippedRecords.Read read =
          reader.read(
              range.getKey(),
              range.getValue(),
              chunk -> {
                batches[0]++;
                if (!dryRun) {
                  archive(batch, chunk);
                }
              });
      records += read.records();
      missing += read.missingBefore();
      out.printf(
          Locale.ROOT,
          "    %s offsets %s: %,d records read from Kafka%s%s%n",
          range.getKey(),
          range.getValue(),
          read.records(),
          dryRun ? "" : ", archived in " + batches[0] + " batches",
          read.missingBefore() > 0
              ? "; WARNING: offsets "
                  + range.getValue().first()
                  + ".."
                  + (range.getValue().first() + read.missingBefore() - 1)
                  + " are no longer in the topic (its log starts at "
                  + read.firstAvailable()
                  + ": retention or compaction deleted them), so they cannot be archived; the"
                  + " record is kept"
              : "");
    }
    return new Outcome(records, missing);
  }

  /**
   * Hands {@code chunk} to the archiver until nothing of it is left unwritten: the archiver's
   * fan-out guard may defer the tail of a batch to a next one, as it does with the mapping.
   */
  private void archive(FailedBatch batch, List<KafkaRecord> chunk) {
    List<KafkaRecord> left = chunk;
    for (int round = 0; round < 100 && !left.isEmpty(); round++) {
      Map<String, Long> unwritten =
          archiver.archive(batch.eventSource(), batch.eventSourceArn().orElse(null), left);
      if (unwritten.isEmpty()) {
        return;
      }
      List<KafkaRecord> next = new ArrayList<>();
      for (KafkaRecord r : left) {
        Long from = unwritten.get(r.topicPartition());
        if (from != null && r.offset() >= from) {
          next.add(r);
        }
      }
      if (next.size() == left.size()) {
        throw new RedriveException(
            archiver.describe()
                + " wrote nothing of a batch of "
                + left.size()
                + " records and asked for them again ("
                + new LinkedHashMap<>(unwritten)
                + ")");
      }
      left = next;
    }
    if (!left.isEmpty()) {
      throw new RedriveException(
          archiver.describe()
              + " still had "
              + left.size()
              + " records unwritten after 100 rounds");
    }
  }
}
