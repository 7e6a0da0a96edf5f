package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What a key, value or header's bytes are, decided once: JSON (embedded as JSON), text (a JSON
 * string) or binary (base64, and said so). A value that starts with a UTF-8 byte-order mark is
 * text, so its bytes survive a restore exactly.
 */
public sealed interface Payload {

  /** Valid UTF-8 JSON, one value, held as a single line so it can be copied into NDJSON as is. */
  record Json(byte[] singleLine) implements Payload {}

  /** Valid UTF-8 that is not JSON. */
  record Text(String text) implements Payload {}

  /** Bytes that are not valid UTF-8. */
  record Binary(byte[] bytes) implements Payload {}

  /**
   * One pass for the common value: a single-line JSON value comes back as the received bytes
   * (trimmed when it had surrounding whitespace), a multi-line one as those bytes without the
   * whitespace between tokens when Jackson's compact copy would be the same. Whatever the scan is
   * unsure of, Jackson decides, as before.
   */
  static Payload classify(JsonValueScan scan, byte[] bytes) {
    return classify(scan, bytes, scan.scan(bytes));
  }

  /** As above, for bytes {@code scan} has just read: {@code valid} is what it answered. */
  static Payload classify(JsonValueScan scan, byte[] bytes, boolean valid) {
    if (valid) {
      int start = scan.start();
      int end = scan.end();
      if (!scan.spansLines()) {
        return new Json(
            start == 0 && end == bytes.length ? bytes : Arrays.copyOfRange(bytes, start, end));
      }
      if (!scan.escaped() && !scan.supplementary()) {
        // Jackson's compact copy writes escapes its own way, and a character above U+FFFF as a
        // pair of backslash-u escapes; short of those it only drops the whitespace between tokens.
        return new Json(JsonValueScan.withoutSpaces(bytes, start, end));
      }
    }
    return classifyWithJackson(io.kafkas3archiver.encode.Json.FACTORY, bytes);
  }

  /**
   * Whether a value {@code scan} has just found valid is single-line JSON to embed as received, the
   * bytes themselves (what {@link #classify} then holds in {@link Json}).
   */
  static boolean asReceived(JsonValueScan scan, byte[] bytes) {
    return !scan.spansLines() && scan.start() == 0 && scan.end() == bytes.length;
  }

  /**
   * The Jackson path: every value the scan is unsure of, and the reference it is tested against.
   */
  static Payload classifyWithJackson(JsonFactory factory, byte[] bytes) {
    if (!Utf8.isValid(bytes)) {
      return new Binary(bytes);
    }
    if (looksLikeJson(bytes)) {
      byte[] line = singleLineJson(factory, bytes);
      if (line != null) {
        return new Json(line);
      }
    }
    return new Text(new String(bytes, StandardCharsets.UTF_8));
  }

  /** A NUL byte or a byte-order mark rules JSON out before the parser sees it. */
  private static boolean looksLikeJson(byte[] bytes) {
    if (bytes.length == 0) {
      return false;
    }
    if (bytes.length >= 3
        && (bytes[0] & 0xff) == 0xef
        && (bytes[1] & 0xff) == 0xbb
        && (bytes[2] & 0xff) == 0xbf) {
      return false;
    }
    for (byte b : bytes) {
      if (b == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Validates one JSON value and returns it trimmed, or re-serialised compactly (numbers kept as
   * written) when it spans lines. Null when the bytes are not exactly one JSON value.
   */
  private static byte[] singleLineJson(JsonFactory factory, byte[] bytes) {
    boolean multiline = false;
    try (JsonParser parser = factory.createParser(bytes)) {
      if (parser.nextToken() == null) {
        return null;
      }
      parser.skipChildren();
      if (parser.nextToken() != null) {
        return null;
      }
    } catch (JacksonException e) {
      return null;
    } catch (IOException e) {
      return null;
    }
    int start = 0;
    int end = bytes.length;
    while (start < end && isSpace(bytes[start])) {
      start++;
    }
    while (end > start && isSpace(bytes[end - 1])) {
      end--;
    }
    for (int i = start; i < end; i++) {
      if (bytes[i] == '\n' || bytes[i] == '\r') {
        multiline = true;
        break;
      }
    }
    if (!multiline) {
      return start == 0 && end == bytes.length ? bytes : Arrays.copyOfRange(bytes, start, end);
    }
    return compact(factory, bytes);
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
  }

  private static byte[] compact(JsonFactory factory, byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
    try (JsonParser parser = factory.createParser(bytes);
        JsonGenerator gen = factory.createGenerator(out)) {
      JsonToken t;
      while ((t = parser.nextToken()) != null) {
        switch (t) {
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> gen.writeNumber(parser.getText());
          default -> gen.copyCurrentEvent(parser);
        }
      }
    } catch (IOException e) {
      return null;
    }
    return out.toByteArray();
  }
}
