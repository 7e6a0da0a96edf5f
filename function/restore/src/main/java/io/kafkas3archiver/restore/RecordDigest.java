package io.kafkas3archiver.restore;

import io.kafkas3archiver.decode.Header;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Count and checksum of a record sequence: timestamp, key, value and headers, length-prefixed so no
 * two different records hash alike by concatenation. In order (SHA-256 over the sequence) or
 * order-independent (the sum of each record's first 8 SHA-256 bytes), for a re-keyed restore.
 */
final class RecordDigest {
  private final boolean ordered;
  private final MessageDigest sequence = sha256();
  private long sum;
  private long count;

  RecordDigest(boolean ordered) {
    this.ordered = ordered;
  }

  void add(long timestamp, byte[] key, byte[] value, List<Header> headers) {
    MessageDigest d = ordered ? sequence : sha256();
    d.update(ByteBuffer.allocate(8).putLong(timestamp).array());
    bytes(d, key);
    bytes(d, value);
    d.update(ByteBuffer.allocate(4).putInt(headers.size()).array());
    for (Header h : headers) {
      bytes(d, h.name().getBytes(StandardCharsets.UTF_8));
      bytes(d, h.value());
    }
    if (!ordered) {
      sum += ByteBuffer.wrap(d.digest()).getLong();
    }
    count++;
  }

  long count() {
    return count;
  }

  String hex() {
    if (!ordered) {
      return String.format("%016x", sum);
    }
    try {
      MessageDigest copy = (MessageDigest) sequence.clone();
      return HexFormat.of().formatHex(copy.digest()).substring(0, 16);
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void bytes(MessageDigest d, byte[] b) {
    d.update(ByteBuffer.allocate(4).putInt(b == null ? -1 : b.length).array());
    if (b != null) {
      d.update(b);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
