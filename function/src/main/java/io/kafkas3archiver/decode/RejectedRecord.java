package io.kafkas3archiver.decode;

/**
 * A record that cannot be archived as data. It goes to the error object with its reason, so it is
 * counted and never dropped. Exactly one of {@code record} (decoded, but not writable in the chosen
 * format) and {@code rawRecordJson} (the record as received, when it could not even be decoded) is
 * set. {@code partition} and {@code offset} are null only when the event did not carry them.
 */
public record RejectedRecord(
    String topic,
    Integer partition,
    Long offset,
    long timestamp,
    String reason,
    KafkaRecord record,
    String rawRecordJson) {

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
