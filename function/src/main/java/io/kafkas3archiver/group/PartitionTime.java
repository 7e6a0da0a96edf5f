package io.kafkas3archiver.group;

/** Which clock decides the year/month/day/hour folder of an object (DESIGN §2). */
public enum PartitionTime {
  /**
   * The earliest record timestamp of the topic in the batch: one object per topic, stable on retry.
   */
  BATCH,
  /** Each record's own timestamp: a batch is split at hour edges. */
  RECORD,
  /** The invocation's wall clock. Not idempotent: a retry after an hour edge lands elsewhere. */
  INGEST,
  /**
   * The event time in the value ({@code TIME_FIELD}, {@code TIME_FORMAT}); a record without a
   * usable one falls back to its own Kafka timestamp, and is counted.
   */
  FIELD;

  /** The name in configuration ({@code PARTITION_TIME}). */
  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
