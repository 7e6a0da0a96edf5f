package io.kafkas3archiver.restore;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.encode.Json;
import io.kafkas3archiver.encode.JsonEncoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * Reads {@code json}, {@code ndjson} and error objects back into records. Every row is one line
 * (the archiver never writes a raw line break inside a row), and a JSON value is copied out as the
 * exact bytes of its line, not re-serialised, so it comes back byte for byte.
 */
final class JsonRows {
  static final JsonFactory FACTORY =
      JsonFactory.builder().streamReadConstraints(Json.READ_LIMITS).build();

  private static final Set<String> ENVELOPE_FIELDS =
      Set.of(
          "topic",
          "partition",
          "offset",
          "timestamp",
          "timestamp_type",
          "key",
          "key_base64",
          "headers",
          "value",
          "value_base64",
          JsonEncoder.VALUE_EXACT_FIELD,
          // The mapping's schema registry ids (docs/schema-registry.md): carried, not restored.
          "key_schema_id",
          "key_data_format",
          "value_schema_id",
          "value_data_format",
          "reason",
          "raw_record");

  private JsonRows() {}

  /**
   * The rows of a json/ndjson object ({@code errorObject} false) or of an error object. {@code
   * ordinal} numbers the object in listing order; values-only rows get synthetic offsets from it.
   */
  static ObjectRows read(byte[] body, String topic, boolean errorObject, long ordinal)
      throws IOException {
    List<ArchivedRecord> records = new ArrayList<>();
    boolean metadata = true;
    int otherTopic = 0;
    int undecodable = 0;
    int row = 0;
    int start = 0;
    while (start < body.length) {
      int end = start;
      while (end < body.length && body[end] != '\n') {
        end++;
      }
      int from = start;
      int to = end;
      start = end + 1;
      while (from < to && isSpace(body[from])) {
        from++;
      }
      while (to > from && isSpace(body[to - 1])) {
        to--;
      }
      if (to > from && body[to - 1] == ',' && !errorObject) {
        to--; // the json format's row separator
      }
      if (to == from || (to - from == 1 && (body[from] == '[' || body[from] == ']'))) {
        continue;
      }
      Envelope e = envelope(body, from, to);
      if (e == null) {
        if (errorObject) {
          throw new IOException("line " + (row + 1) + " is not an error-object line");
        }
        metadata = false;
        records.add(valueOnly(body, from, to, ordinal, row));
      } else if (e.rawRecord) {
        undecodable++;
      } else if (e.topic != null && !e.topic.equals(topic)) {
        otherTopic++;
      } else {
        records.add(
            new ArchivedRecord(
                e.partition, e.offset, e.timestamp, e.key, e.value, e.headers, errorObject));
      }
      row++;
    }
    return new ObjectRows(records, metadata, otherTopic, undecodable);
  }

  /** Where a values-only row sits in the archive: object ordinal, then row (at most 2^24 rows). */
  static long syntheticOffset(long ordinal, int row) {
    return (ordinal << 24) | row;
  }

  private static ArchivedRecord valueOnly(byte[] body, int from, int to, long ordinal, int row)
      throws IOException {
    byte[] value;
    try (JsonParser p = FACTORY.createParser(body, from, to - from)) {
      JsonToken t = p.nextToken();
      if (t == JsonToken.VALUE_STRING) {
        value = p.getText().getBytes(StandardCharsets.UTF_8);
      } else {
        value = Arrays.copyOfRange(body, from, to);
        if (t == JsonToken.START_OBJECT
            && p.nextToken() == JsonToken.FIELD_NAME
            && "value_base64".equals(p.currentName())
            && p.nextToken() == JsonToken.VALUE_STRING) {
          String b64 = p.getText();
          if (p.nextToken() == JsonToken.END_OBJECT) {
            value = Base64.getDecoder().decode(b64);
          }
        }
      }
    }
    return ArchivedRecord.valueOnly(ordinal, row, value);
  }

  private static final class Envelope {
    String topic;
    int partition = Integer.MIN_VALUE;
    long offset = Long.MIN_VALUE;
    long timestamp = -1;
    byte[] key;
    byte[] value;
    byte[] exactValue;
    List<Header> headers = List.of();
    boolean sawHeaders;
    boolean rawRecord;
  }

  /** The row as a metadata envelope, or null when it is not one (a values-only row). */
  private static Envelope envelope(byte[] body, int from, int to) throws IOException {
    try (JsonParser p = FACTORY.createParser(body, from, to - from)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Envelope e = new Envelope();
      JsonToken t = p.nextToken();
      fields:
      while (t == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (!ENVELOPE_FIELDS.contains(name)) {
          return null;
        }
        JsonToken v = p.nextToken();
        switch (name) {
          case "topic" -> e.topic = v == JsonToken.VALUE_NULL ? null : p.getText();
          case "partition" -> {
            if (v == JsonToken.VALUE_NUMBER_INT) {
              e.partition = p.getIntValue();
            }
          }
          case "offset" -> {
            if (v == JsonToken.VALUE_NUMBER_INT) {
              e.offset = p.getLongValue();
            }
          }
          case "timestamp" -> e.timestamp = v == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : -1;
          case "key" -> e.key = text(p, v);
          case "key_base64" -> e.key = base64(p, v);
          case "headers" -> {
            e.headers = headers(p, v);
            e.sawHeaders = true;
          }
          case "value" -> {
            if (v == JsonToken.VALUE_NULL) {
              e.value = null;
            } else if (v == JsonToken.VALUE_STRING) {
              e.value = p.getText().getBytes(StandardCharsets.UTF_8);
            } else {
              e.value = rawValue(p, body, from);
              t = JsonToken.END_OBJECT; // rawValue consumed the envelope's closing brace
              break fields;
            }
          }
          case "value_base64" -> e.value = base64(p, v);
          case JsonEncoder.VALUE_EXACT_FIELD -> e.exactValue = base64(p, v);
          case "raw_record" -> e.rawRecord = true;
          default -> p.skipChildren(); // reason, timestamp_type
        }
        if (v == JsonToken.START_ARRAY || v == JsonToken.START_OBJECT) {
          if (p.currentToken() != JsonToken.END_ARRAY && p.currentToken() != JsonToken.END_OBJECT) {
            p.skipChildren();
          }
        }
        t = p.nextToken();
      }
      if (t != JsonToken.END_OBJECT) {
        return null;
      }
      if (e.exactValue != null) {
        e.value = e.exactValue;
      }
      boolean complete =
          e.rawRecord
              || (e.partition != Integer.MIN_VALUE && e.offset != Long.MIN_VALUE && e.sawHeaders);
      return complete ? e : null;
    }
  }

  /**
   * The exact bytes of a JSON value that is the envelope's last field: from its first byte to the
   * envelope's closing brace. The archiver always writes {@code value} last; a row where it is not
   * last is re-read token by token instead.
   */
  private static byte[] rawValue(JsonParser p, byte[] body, int from) throws IOException {
    int start = from + (int) p.currentTokenLocation().getByteOffset();
    p.skipChildren();
    JsonToken next = p.nextToken();
    if (next != JsonToken.END_OBJECT) {
      throw new IOException("the value field is not the envelope's last field");
    }
    int end = from + (int) p.currentTokenLocation().getByteOffset();
    while (end > start && isSpace(body[end - 1])) {
      end--;
    }
    return Arrays.copyOfRange(body, start, end);
  }

  private static byte[] text(JsonParser p, JsonToken v) throws IOException {
    return v == JsonToken.VALUE_NULL ? null : p.getText().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] base64(JsonParser p, JsonToken v) throws IOException {
    return v == JsonToken.VALUE_NULL ? null : Base64.getDecoder().decode(p.getText());
  }

  private static List<Header> headers(JsonParser p, JsonToken v) throws IOException {
    if (v != JsonToken.START_ARRAY) {
      return List.of();
    }
    List<Header> headers = new ArrayList<>();
    while (p.nextToken() == JsonToken.START_OBJECT) {
      String name = null;
      byte[] value = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken hv = p.nextToken();
        switch (field) {
          case "name" -> name = p.getText();
          case "value" -> value = text(p, hv);
          case "value_base64" -> value = base64(p, hv);
          default -> p.skipChildren();
        }
      }
      headers.add(new Header(name, value));
    }
    return headers;
  }

  static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r';
  }
}
