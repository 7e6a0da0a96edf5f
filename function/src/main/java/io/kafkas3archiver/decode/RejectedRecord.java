package io.kafkas3archiver.decode;

/**
 * A record that cannot be archived as data. It goes to the error object with its reason, so it is
 * counted and never dropped. Exactly one of {@code record} (decoded, but not writable in the chosen
 * format) and {@code rawRecordJson} (the record as received, when it could not even be decoded) is
 * set. {@code partition} and {@code offset} are null only when the event did not carry them.
 *
 * <p>{@code misrouted}: refused by configuration ({@code INPUT_TOPIC}), not by its content. Such a
 * record belongs to no chain of this function: it never claims, blocks or shortens an object of its
 * topic's layout, which another function may own (DESIGN §3).
 */
public record RejectedRecord(
    String topic,
    Integer partition,
    Long offset,
    long timestamp,
    String reason,
    KafkaRecord record,
    String rawRecordJson,
    boolean misrouted) {

  /** A record rejected by its content. */
  public RejectedRecord(
      String topic,
      Integer partition,
      Long offset,
      long timestamp,
      String reason,
      KafkaRecord record,
      String rawRecordJson) {
    this(topic, partition, offset, timestamp, reason, record, rawRecordJson, false);
  }

  /** A record of a topic this function does not archive ({@code INPUT_TOPIC}). */
  public static RejectedRecord misrouted(KafkaRecord record, String reason) {
    return new RejectedRecord(
        record.topic(),
        record.partition(),
        record.offset(),
        record.timestamp(),
        reason,
        record,
        null,
        true);
  }

  /** Whether the record has a place in its partition's chain of objects. */
  public boolean chained() {
    return partition != null && offset != null && !misrouted;
  }

  public static RejectedRecord of(KafkaRecord record, String reason) {
    return new RejectedRecord(
        record.topic(),
        record.partition(),
        record.offset(),
        record.timestamp(),
        reason,
        record,
        null);
  }
}
