package io.kafkas3archiver.encode;

/**
 * The names of the Kafka metadata columns ({@code INCLUDE_KAFKA_METADATA=true}), shared by the
 * Parquet files and the Iceberg tables, so a query reads both the same way.
 */
public final class KafkaColumns {
  public static final String TOPIC = "kafka_topic";
  public static final String PARTITION = "kafka_partition";
  public static final String OFFSET = "kafka_offset";
  public static final String TIMESTAMP = "kafka_timestamp";
  public static final String TIMESTAMP_TYPE = "kafka_timestamp_type";
  public static final String KEY = "kafka_key";
  public static final String HEADERS = "kafka_headers";

  /**
   * With metadata, csv and parquet only, present in an object when some row needs it: the exact key
   * and/or value bytes that the row's other cells would not give back ({@link TabularValue}).
   */
  public static final String EXACT = "kafka_exact";

  private KafkaColumns() {}
}
