package io.kafkas3archiver.decode;

import java.util.List;

/**
 * One record of an event source mapping batch, with key and value already base64-decoded. A null
 * {@code value} is a tombstone; a null {@code key} means the record had none.
 */
public record KafkaRecord(
    String topic,
    int partition,
    long offset,
    long timestamp,
    String timestampType,
    byte[] key,
    byte[] value,
    List<Header> headers) {

  public KafkaRecord {
    headers = List.copyOf(headers);
  }

  public boolean isTombstone() {
    return value == null;
  }

  /** {@code topic-partition}, as the event source mapping names it. */
  public String topicPartition() {
    return new TopicPartition(topic, partition).id();
  }
}
