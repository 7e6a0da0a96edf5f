package io.kafkas3archiver.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * CloudWatch Embedded Metric Format, written by hand: one JSON document per topic per invocation on
 * stdout, which CloudWatch Logs turns into metrics. Dimension sets are {@code [Title, Topic]} and
 * {@code [Title]}, so alarms can watch one topic or the whole connector. Hand-written instead of
 * Powertools: it adds no jar and no class loading to the cold start (measured; see the commit).
 */
public final class EmfMetrics {
  public static final String NAMESPACE = "KafkaS3Archiver";

  /** The metrics of DESIGN §6, with their CloudWatch units. */
  public enum Metric {
    RECORDS_IN("RecordsIn", "Count"),
    RECORDS_WRITTEN("RecordsWritten", "Count"),
    RECORDS_ERRORED("RecordsErrored", "Count"),
    TOMBSTONES_SKIPPED("TombstonesSkipped", "Count"),
    OBJECTS_WRITTEN("ObjectsWritten", "Count"),
    BYTES_WRITTEN("BytesWritten", "Bytes"),
    UPLOAD_LATENCY("UploadLatency", "Milliseconds"),
    BATCH_AGE_MS("BatchAgeMs", "Milliseconds"),
    UPLOAD_RETRIES("UploadRetries", "Count"),
    /** OUTPUT_FORMAT=iceberg only: each table commit's latency, retries included. */
    COMMIT_LATENCY("CommitLatency", "Milliseconds"),
    /** OUTPUT_FORMAT=iceberg only: commit attempts that lost a race and were retried. */
    COMMIT_RETRIES("CommitRetries", "Count"),
    /** OUTPUT_FORMAT=iceberg only: redelivered records the table already held. */
    RECORDS_ALREADY_COMMITTED("RecordsAlreadyCommitted", "Count");

    private final String metricName;
    private final String unit;

    Metric(String metricName, String unit) {
      this.metricName = metricName;
      this.unit = unit;
    }

    public String metricName() {
      return metricName;
    }

    public String unit() {
      return unit;
    }

    boolean isTableMetric() {
      return this == COMMIT_LATENCY || this == COMMIT_RETRIES || this == RECORDS_ALREADY_COMMITTED;
    }
  }

  /**
   * Records whose time field was missing or unreadable, placed by their Kafka timestamp instead
   * (DESIGN §8). Sent only under {@code PARTITION_TIME=field}; not in {@link Metric}, whose set the
   * stack's alarms and dashboard mirror for every configuration.
   */
  public static final String TIME_FALLBACKS = "TimeFallbacks";

  /**
   * Records the fan-out guard held back for redelivery. Sent only when records choose their folders
   * (a record variable in KEY_TEMPLATE, or {@code PARTITION_TIME=field}).
   */
  public static final String RECORDS_DEFERRED = "RecordsDeferred";

  /**
   * Values of written csv or parquet rows that went, exact, to {@code _overflow} because their
   * column's type cannot hold them. Sent only for csv and parquet, zeros included.
   */
  public static final String VALUES_OVERFLOWED = "ValuesOverflowed";

  private static final JsonFactory FACTORY = new JsonFactory();
  private final PrintStream out;
  private final String title;
  private final boolean timeField;
  private final boolean partitioned;
  private final boolean tabular;

  public EmfMetrics(PrintStream out, String title) {
    this(out, title, false, false);
  }

  public EmfMetrics(PrintStream out, String title, boolean timeField, boolean partitioned) {
    this(out, title, timeField, partitioned, false);
  }

  /**
   * {@code timeField}: add TimeFallbacks; {@code partitioned}: add RecordsDeferred. Each is sent in
   * every document once configured, zeros included, so its alarm never sees missing data.
   */
  public EmfMetrics(
      PrintStream out, String title, boolean timeField, boolean partitioned, boolean tabular) {
    this.out = out;
    this.title = title;
    this.timeField = timeField;
    this.partitioned = partitioned;
    this.tabular = tabular;
  }

  /**
   * CloudWatch takes at most 100 values per metric in one document and drops a document with more.
   * Objects are per topic-partition (and hour folder), so a batch can upload more than 100.
   */
  static final int MAX_VALUES_PER_METRIC = 100;

  /**
   * Writes one document per topic of the batch, plus one more per further 100 upload latencies:
   * those carry only UploadLatency, so every count is published once and no latency is lost.
   */
  public void publish(BatchOutcome outcome, long nowMillis) {
    for (TopicOutcome t : outcome.topics()) {
      List<TableCommit> commits =
          outcome.commits().stream().filter(c -> c.topics().contains(t.topic())).toList();
      List<Long> latencies = t.objects().stream().map(WrittenObject::millis).toList();
      int first = Math.min(latencies.size(), MAX_VALUES_PER_METRIC);
      out.println(document(t, latencies.subList(0, first), commits, nowMillis));
      for (int from = first; from < latencies.size(); from += MAX_VALUES_PER_METRIC) {
        List<Long> chunk =
            latencies.subList(from, Math.min(latencies.size(), from + MAX_VALUES_PER_METRIC));
        out.println(latencyDocument(t.topic(), chunk, nowMillis));
      }
    }
  }

  private List<String> extras() {
    List<String> extras = new ArrayList<>(3);
    if (timeField) {
      extras.add(TIME_FALLBACKS);
    }
    if (partitioned) {
      extras.add(RECORDS_DEFERRED);
    }
    if (tabular) {
      extras.add(VALUES_OVERFLOWED);
    }
    return extras;
  }

  private String latencyDocument(String topic, List<Long> latencies, long nowMillis) {
    StringWriter text = new StringWriter(256 + latencies.size() * 6);
    try (JsonGenerator g = FACTORY.createGenerator(text)) {
      g.writeStartObject();
      writeHeader(g, List.of(Metric.UPLOAD_LATENCY), List.of(), nowMillis);
      g.writeStringField("Title", title);
      g.writeStringField("Topic", topic);
      writeLatencies(g, latencies);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  /** {@code counts}: further metrics of unit Count, by name (TimeFallbacks, RecordsDeferred). */
  private void writeHeader(
      JsonGenerator g, List<Metric> metrics, List<String> counts, long nowMillis)
      throws IOException {
    g.writeObjectFieldStart("_aws");
    g.writeNumberField("Timestamp", nowMillis);
    g.writeArrayFieldStart("CloudWatchMetrics");
    g.writeStartObject();
    g.writeStringField("Namespace", NAMESPACE);
    g.writeArrayFieldStart("Dimensions");
    g.writeStartArray();
    g.writeString("Title");
    g.writeString("Topic");
    g.writeEndArray();
    g.writeStartArray();
    g.writeString("Title");
    g.writeEndArray();
    g.writeEndArray();
    g.writeArrayFieldStart("Metrics");
    for (Metric m : metrics) {
      g.writeStartObject();
      g.writeStringField("Name", m.metricName());
      g.writeStringField("Unit", m.unit());
      g.writeEndObject();
    }
    for (String count : counts) {
      g.writeStartObject();
      g.writeStringField("Name", count);
      g.writeStringField("Unit", "Count");
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void writeLatencies(JsonGenerator g, List<Long> latencies) throws IOException {
    g.writeArrayFieldStart(Metric.UPLOAD_LATENCY.metricName());
    for (long l : latencies) {
      g.writeNumber(l);
    }
    g.writeEndArray();
  }

  private String document(
      TopicOutcome t, List<Long> latencies, List<TableCommit> commits, long nowMillis) {
    StringWriter text = new StringWriter(512);
    try (JsonGenerator g = FACTORY.createGenerator(text)) {
      g.writeStartObject();
      List<Metric> metrics = new ArrayList<>();
      for (Metric m : Metric.values()) {
        if (m == Metric.BATCH_AGE_MS && t.earliestTimestamp() < 0) {
          continue;
        }
        if (m == Metric.UPLOAD_LATENCY && latencies.isEmpty()) {
          continue;
        }
        if (m.isTableMetric() && commits.isEmpty()) {
          continue;
        }
        metrics.add(m);
      }
      writeHeader(g, metrics, extras(), nowMillis);
      g.writeStringField("Title", title);
      g.writeStringField("Topic", t.topic());
      g.writeNumberField(Metric.RECORDS_IN.metricName(), t.recordsIn());
      g.writeNumberField(Metric.RECORDS_WRITTEN.metricName(), t.recordsWritten());
      g.writeNumberField(Metric.RECORDS_ERRORED.metricName(), t.recordsErrored());
      g.writeNumberField(Metric.TOMBSTONES_SKIPPED.metricName(), t.tombstonesSkipped());
      g.writeNumberField(Metric.OBJECTS_WRITTEN.metricName(), t.objects().size());
      g.writeNumberField(
          Metric.BYTES_WRITTEN.metricName(),
          t.objects().stream().mapToLong(WrittenObject::bytes).sum());
      if (!latencies.isEmpty()) {
        writeLatencies(g, latencies);
      }
      if (t.earliestTimestamp() >= 0) {
        g.writeNumberField(
            Metric.BATCH_AGE_MS.metricName(), Math.max(0, nowMillis - t.earliestTimestamp()));
      }
      g.writeNumberField(Metric.UPLOAD_RETRIES.metricName(), t.uploadRetries());
      if (!commits.isEmpty()) {
        g.writeArrayFieldStart(Metric.COMMIT_LATENCY.metricName());
        for (TableCommit c : commits) {
          g.writeNumber(c.latencyMillis());
        }
        g.writeEndArray();
        g.writeNumberField(
            Metric.COMMIT_RETRIES.metricName(),
            commits.stream().mapToInt(TableCommit::retries).sum());
        g.writeNumberField(
            Metric.RECORDS_ALREADY_COMMITTED.metricName(),
            commits.stream().mapToInt(TableCommit::recordsAlreadyCommitted).sum());
      }
      if (timeField) {
        g.writeNumberField(TIME_FALLBACKS, t.timeFallbacks());
      }
      if (partitioned) {
        g.writeNumberField(RECORDS_DEFERRED, t.recordsDeferred());
      }
      if (tabular) {
        g.writeNumberField(VALUES_OVERFLOWED, t.valuesOverflowed());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }
}
