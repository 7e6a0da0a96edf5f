package io.kafkas3archiver.infra;

/**
 * The function's Embedded Metric Format names (DESIGN §6), as the alarms and the dashboard use
 * them. infra must not depend on the function's classes, so the names are repeated here;
 * ArchiverMetricsTest reads the function's EmfMetrics.java and fails when the two drift apart.
 */
enum ArchiverMetrics {
  RECORDS_IN("RecordsIn", "Count"),
  RECORDS_WRITTEN("RecordsWritten", "Count"),
  RECORDS_ERRORED("RecordsErrored", "Count"),
  TOMBSTONES_SKIPPED("TombstonesSkipped", "Count"),
  OBJECTS_WRITTEN("ObjectsWritten", "Count"),
  BYTES_WRITTEN("BytesWritten", "Bytes"),
  UPLOAD_LATENCY("UploadLatency", "Milliseconds"),
  BATCH_AGE_MS("BatchAgeMs", "Milliseconds"),
  UPLOAD_RETRIES("UploadRetries", "Count"),
  // OUTPUT_FORMAT=iceberg only: emitted by the iceberg jar. The dashboard, the same for every
  // format and in template.yaml too, does not graph them; the iceberg stack alarms on failed
  // commits from the log line instead (IcebergTable).
  COMMIT_LATENCY("CommitLatency", "Milliseconds", true),
  COMMIT_RETRIES("CommitRetries", "Count", true),
  RECORDS_ALREADY_COMMITTED("RecordsAlreadyCommitted", "Count", true);

  /** EmfMetrics.NAMESPACE. */
  static final String NAMESPACE = "KafkaS3Archiver";

  /**
   * The connector-wide dimension set [Title]; TITLE is the stack's title. The function also emits
   * [Title, Topic], but a stack archives one topic, so [Title] is the same series with no topic to
   * keep in step.
   */
  static final String TITLE_DIMENSION = "Title";

  private final String metricName;
  private final String unit;
  private final boolean icebergOnly;

  ArchiverMetrics(String metricName, String unit) {
    this(metricName, unit, false);
  }

  ArchiverMetrics(String metricName, String unit, boolean icebergOnly) {
    this.metricName = metricName;
    this.unit = unit;
    this.icebergOnly = icebergOnly;
  }

  /** True for metrics only the iceberg jar emits; no format this app deploys produces them. */
  boolean icebergOnly() {
    return icebergOnly;
  }

  String metricName() {
    return metricName;
  }

  String unit() {
    return unit;
  }
}
