package io.kafkas3archiver.decode;

import java.util.List;

/**
 * One record of an event source mapping batch, with key and value already base64-decoded. A null
 * {@code value} is a tombstone; a null {@code key} means the record had none. {@code keySchema} and
 * {@code valueSchema} are the mapping's schema registry metadata, null when it sent none.
 */
public record KafkaRecord(
    String topic,
    int partition,
    long offset,
    long timestamp,
    String timestampType,
    byte[] key,
    byte[] value,
    List<Header> headers,
    SchemaMetadata keySchema,
    SchemaMetadata valueSchema) {

  public KafkaRecord {
    headers = List.copyOf(headers);
  }

  /** A record without schema registry metadata. */
  public KafkaRecord(
      String topic,
      int partition,
      long offset,
      long timestamp,
      String timestampType,
      byte[] key,
      byte[] value,
      List<Header> headers) {
    this(topic, partition, offset, timestamp, timestampType, key, value, headers, null, null);
  }

  public boolean isTombstone() {
    return value == null;
  }

  /** {@code topic-partition}, as the event source mapping names it. */
  public String topicPartition() {
    return new TopicPartition(topic, partition).id();
  }
}
