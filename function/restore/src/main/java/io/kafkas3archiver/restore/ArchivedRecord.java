package io.kafkas3archiver.restore;

import io.kafkas3archiver.decode.Header;
import java.util.List;

/**
 * One record as the archive holds it, back in Kafka's terms: the bytes of key, value and header
 * values, the create time, and where it came from. A null {@code value} is a tombstone. Rows of a
 * values-only archive have no partition ({@link #NO_PARTITION}) and a synthetic offset (their
 * position in the archive), so they can still be ordered and checkpointed.
 */
public record ArchivedRecord(
    int partition,
    long offset,
    long timestamp,
    byte[] key,
    byte[] value,
    List<Header> headers,
    boolean fromErrorObject) {

  /** The partition of a row written without Kafka metadata. */
  public static final int NO_PARTITION = -1;

  public ArchivedRecord {
    headers = List.copyOf(headers);
  }

  /**
   * A row of a values-only archive: the value alone, at a synthetic offset (its position in the
   * archive), with no partition, time, key or headers.
   */
  static ArchivedRecord valueOnly(long ordinal, int row, byte[] value) {
    return new ArchivedRecord(
        NO_PARTITION, JsonRows.syntheticOffset(ordinal, row), -1, null, value, List.of(), false);
  }

  public boolean isTombstone() {
    return value == null;
  }

  /** Key, value and header bytes: what the rate limit and the throughput figures count. */
  public long payloadBytes() {
    long n = (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    for (Header h : headers) {
      n += h.name().length() + (h.value() == null ? 0 : h.value().length);
    }
    return n;
  }
}
