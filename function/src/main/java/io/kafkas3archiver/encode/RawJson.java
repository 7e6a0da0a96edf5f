package io.kafkas3archiver.encode;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Already-valid JSON bytes handed to a generator as a raw value, so a value is copied into the
 * output without being parsed into objects and printed again. Only the UTF-8 methods are used by
 * Jackson's UTF-8 generator; the rest fall back to decoding.
 */
final class RawJson implements com.fasterxml.jackson.core.SerializableString {
  private byte[] utf8;

  RawJson(byte[] utf8) {
    this.utf8 = utf8;
  }

  /**
   * The same holder for other bytes: an encoder writes every value through one, since the generator
   * copies the bytes and keeps no reference to the holder.
   */
  RawJson use(byte[] bytes) {
    this.utf8 = bytes;
    return this;
  }

  @Override
  public String getValue() {
    return new String(utf8, StandardCharsets.UTF_8);
  }

  @Override
  public int charLength() {
    return getValue().length();
  }

  @Override
  public char[] asQuotedChars() {
    return getValue().toCharArray();
  }

  @Override
  public byte[] asUnquotedUTF8() {
    return utf8;
  }

  @Override
  public byte[] asQuotedUTF8() {
    return utf8;
  }

  @Override
  public int appendQuotedUTF8(byte[] buffer, int offset) {
    return appendUnquotedUTF8(buffer, offset);
  }

  @Override
  public int appendQuoted(char[] buffer, int offset) {
    return appendUnquoted(buffer, offset);
  }

  @Override
  public int appendUnquotedUTF8(byte[] buffer, int offset) {
    if (offset + utf8.length > buffer.length) {
      return -1;
    }
    System.arraycopy(utf8, 0, buffer, offset, utf8.length);
    return utf8.length;
  }

  @Override
  public int appendUnquoted(char[] buffer, int offset) {
    char[] chars = asQuotedChars();
    if (offset + chars.length > buffer.length) {
      return -1;
    }
    System.arraycopy(chars, 0, buffer, offset, chars.length);
    return chars.length;
  }

  @Override
  public int writeQuotedUTF8(OutputStream out) throws java.io.IOException {
    return writeUnquotedUTF8(out);
  }

  @Override
  public int writeUnquotedUTF8(OutputStream out) throws java.io.IOException {
    out.write(utf8);
    return utf8.length;
  }

  @Override
  public int putQuotedUTF8(ByteBuffer buffer) {
    return putUnquotedUTF8(buffer);
  }

  @Override
  public int putUnquotedUTF8(ByteBuffer buffer) {
    if (buffer.remaining() < utf8.length) {
      return -1;
    }
    buffer.put(utf8);
    return utf8.length;
  }
}
