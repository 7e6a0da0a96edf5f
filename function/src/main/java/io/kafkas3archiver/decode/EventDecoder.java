package io.kafkas3archiver.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Turns the invocation payload into an {@link Invocation}. It reads the stream once, record by
 * record, so a bad record is rejected on its own (with its raw JSON kept for the error object)
 * instead of failing the whole batch.
 *
 * <p>Records of the usual shape are read straight off the streaming parser, base64 decoded from the
 * event's bytes ({@link EventParser}), with no tree and no intermediate strings. Any record that is
 * not of that shape (a missing offset, a number where a string belongs, invalid base64, unusual
 * headers...) is cut out of the input by its byte offsets and decoded by the general tree-based
 * path, so the result for it, accepted or rejected and why, is exactly what the tree path decides.
 * Jackson databind is only loaded when such a record turns up.
 */
public final class EventDecoder {
  private final EventParser.Factory factory;
  private final boolean fastPath;
  private ObjectMapper mapper;

  /** The handler's decoder: no ObjectMapper is built unless an unusual record needs one. */
  public EventDecoder() {
    this.factory = new EventParser.Factory();
    this.fastPath = true;
  }

  public EventDecoder(ObjectMapper mapper) {
    this(mapper, true);
  }

  private EventDecoder(ObjectMapper mapper, boolean fastPath) {
    this.factory = new EventParser.Factory();
    this.mapper = mapper;
    this.fastPath = fastPath;
  }

  /** Every record through the tree path: the reference the fast path is tested against. */
  static EventDecoder treeOnly() {
    return new EventDecoder(new ObjectMapper(), false);
  }

  private ObjectMapper mapper() {
    if (mapper == null) {
      mapper = new ObjectMapper();
    }
    return mapper;
  }

  public Invocation decode(InputStream in) throws IOException {
    RecordingInput input = new RecordingInput(in);
    try (EventParser parser = (EventParser) factory.createParser(input)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new BadEventException(
            "the event is not a JSON object; expected a Kafka event source mapping event"
                + " {\"eventSource\": ..., \"records\": {...}} or {\"action\": \"preflight\"}");
      }
      String eventSource = null;
      String action = null;
      boolean sawRecords = false;
      List<KafkaRecord> records = new ArrayList<>();
      List<RejectedRecord> rejected = new ArrayList<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken token = parser.nextToken();
        switch (field) {
          case "eventSource" ->
              eventSource = token == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "action" -> action = token == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "records" -> {
            sawRecords = true;
            readRecordsMap(parser, input, records, rejected);
          }
          default -> parser.skipChildren();
        }
      }
      if (action != null) {
        return switch (action) {
          case "preflight" -> new Invocation.PreflightRequest();
          case "maintain" -> new Invocation.MaintainRequest();
          default ->
              throw new BadEventException(
                  "unknown action '"
                      + action
                      + "'; the actions are \"preflight\" and \"maintain\" (iceberg tables)");
        };
      }
      if (!sawRecords) {
        throw new BadEventException(
            "the event has no \"records\" map; is the function invoked by a Kafka event source"
                + " mapping? (eventSource="
                + eventSource
                + ")");
      }
      return new Invocation.KafkaBatch(eventSource, records, rejected);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
      throw new BadEventException(
          "the event is not valid JSON: " + ParseProblem.describe(e),
          ParseProblem.where(e) + "; masked input there: '" + input.maskedAround(at) + "'");
    }
  }

  private void readRecordsMap(
      EventParser parser,
      RecordingInput input,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected)
      throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return;
    }
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw new BadEventException(
          "\"records\" must be an object of \"<topic>-<partition>\": [records]");
    }
    FastPath fast = new FastPath();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String topicPartition = parser.currentName();
      JsonToken token = parser.nextToken();
      if (token == JsonToken.VALUE_NULL) {
        continue;
      }
      if (token != JsonToken.START_ARRAY) {
        throw new BadEventException(
            "\"records\".\"" + topicPartition + "\" must be an array of records");
      }
      String mapTopic = TopicPartition.topicOf(topicPartition);
      Integer mapPartition = TopicPartition.partitionOf(topicPartition);
      JsonStreamContext array = parser.getParsingContext();
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
          decodeRecord(topicPartition, mapper().readTree(parser), records, rejected);
          continue;
        }
        long start = parser.currentLocation().getByteOffset() - 1; // the '{' just read
        input.keepFrom(start);
        KafkaRecord record = fastPath ? fast.record(parser, mapTopic, mapPartition) : null;
        if (record != null) {
          records.add(record);
          continue;
        }
        while (parser.currentToken() != JsonToken.END_OBJECT
            || parser.getParsingContext() != array) {
          if (parser.nextToken() == null) {
            throw new BadEventException("the event ends inside a record");
          }
        }
        byte[] raw = input.slice(start, parser.currentLocation().getByteOffset());
        decodeRecord(topicPartition, mapper().readTree(raw), records, rejected);
      }
    }
  }

  /**
   * Reads one record of the usual shape from the parser, positioned on its START_OBJECT. Returns
   * null, possibly mid-record, as soon as anything differs from that shape; the caller then decodes
   * the record through the tree path, which has the final word on it.
   */
  private static final class FastPath {
    private byte[] headerBytes = new byte[1024];
    private final List<Header> headerScratch = new ArrayList<>();
    private String lastTopic;
    private String lastTimestampType;

    KafkaRecord record(EventParser p, String mapTopic, Integer mapPartition) throws IOException {
      String topic = mapTopic;
      Integer partition = mapPartition;
      boolean hasOffset = false;
      long offset = 0;
      long timestamp = -1L;
      String timestampType = "";
      byte[] key = null;
      byte[] value = null;
      List<Header> headers = List.of();
      SchemaMetadata keySchema = null;
      SchemaMetadata valueSchema = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "topic" -> {
            if (v != JsonToken.VALUE_STRING) {
              return null;
            }
            topic = lastTopic = reuse(p, lastTopic);
          }
          case "partition" -> {
            if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
              return null;
            }
            partition = p.getIntValue();
          }
          case "offset" -> {
            if (!isLong(p, v)) {
              return null;
            }
            offset = p.getLongValue();
            if (offset < 0) {
              return null; // the general path refuses the event, naming the cause
            }
            hasOffset = true;
          }
          case "timestamp" -> {
            if (!isLong(p, v)) {
              return null;
            }
            timestamp = p.getLongValue();
          }
          case "timestampType" -> {
            if (v != JsonToken.VALUE_STRING) {
              return null;
            }
            timestampType = lastTimestampType = reuse(p, lastTimestampType);
          }
          case "key" -> {
            if (v == JsonToken.VALUE_NULL) {
              key = null;
            } else if (v != JsonToken.VALUE_STRING || (key = p.base64Value()) == null) {
              return null;
            }
          }
          case "value" -> {
            if (v == JsonToken.VALUE_NULL) {
              value = null;
            } else if (v != JsonToken.VALUE_STRING || (value = p.base64Value()) == null) {
              return null;
            }
          }
          case "headers" -> {
            if (v == JsonToken.VALUE_NULL) {
              headers = List.of();
            } else if (v != JsonToken.START_ARRAY || (headers = headers(p)) == null) {
              return null;
            }
          }
          case "keySchemaMetadata" -> {
            if (v != JsonToken.VALUE_NULL && (keySchema = schemaMetadata(p)) == null) {
              return null;
            }
          }
          case "valueSchemaMetadata" -> {
            if (v != JsonToken.VALUE_NULL && (valueSchema = schemaMetadata(p)) == null) {
              return null;
            }
          }
          default -> p.skipChildren();
        }
      }
      if (!hasOffset || partition == null) {
        return null;
      }
      return new KafkaRecord(
          topic,
          partition,
          offset,
          timestamp,
          timestampType,
          key,
          value,
          headers,
          keySchema,
          valueSchema);
    }

    /** {@code {"dataFormat": "...", "schemaId": "..."}}; null for any other shape. */
    private static SchemaMetadata schemaMetadata(JsonParser p) throws IOException {
      if (p.currentToken() != JsonToken.START_OBJECT) {
        return null;
      }
      String dataFormat = null;
      String schemaId = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "dataFormat" -> dataFormat = v == JsonToken.VALUE_STRING ? p.getText() : null;
          case "schemaId" -> schemaId = v == JsonToken.VALUE_STRING ? p.getText() : null;
          default -> p.skipChildren();
        }
      }
      return schemaId == null || schemaId.isBlank() || dataFormat == null
          ? null
          : new SchemaMetadata(dataFormat, schemaId);
    }

    private static boolean isLong(JsonParser p, JsonToken v) throws IOException {
      return v == JsonToken.VALUE_NUMBER_INT
          && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
    }

    /** The same string as last time when the text is equal: one topic, one String. */
    private static String reuse(JsonParser p, String last) throws IOException {
      int length = p.getTextLength();
      if (last != null && last.length() == length) {
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        boolean same = true;
        for (int i = 0; i < length && same; i++) {
          same = chars[offset + i] == last.charAt(i);
        }
        if (same) {
          return last;
        }
      }
      return p.getText();
    }

    /** {@code [{"name": [bytes...] | "base64" | null}, ...]}, one name per entry; else null. */
    private List<Header> headers(EventParser p) throws IOException {
      // Collected in a list reused across records, then copied once into the immutable list the
      // record keeps (KafkaRecord's own copy of an immutable list is the same list).
      List<Header> headers = headerScratch;
      headers.clear();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (p.currentToken() != JsonToken.START_OBJECT || p.nextToken() != JsonToken.FIELD_NAME) {
          return null;
        }
        String name = p.currentName();
        byte[] bytes;
        JsonToken v = p.nextToken();
        if (v == JsonToken.VALUE_NULL) {
          bytes = null;
        } else if (v == JsonToken.VALUE_STRING) {
          if ((bytes = p.base64Value()) == null) {
            return null;
          }
        } else if (v == JsonToken.START_ARRAY) {
          if ((bytes = byteArray(p)) == null) {
            return null;
          }
        } else {
          return null;
        }
        if (p.nextToken() != JsonToken.END_OBJECT) {
          return null;
        }
        headers.add(new Header(name, bytes));
      }
      return headers.isEmpty() ? List.of() : List.copyOf(headers);
    }

    /** A header's bytes written as a JSON array of numbers, gathered in a reused buffer. */
    private byte[] byteArray(JsonParser p) throws IOException {
      byte[] bytes = headerBytes;
      int n = 0;
      while (p.nextToken() != JsonToken.END_ARRAY) {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT
            || p.getNumberType() != JsonParser.NumberType.INT) {
          return null;
        }
        int b = p.getIntValue();
        if (b < -128 || b > 255) {
          return null;
        }
        if (n == bytes.length) {
          bytes = headerBytes = Arrays.copyOf(bytes, n * 2);
        }
        bytes[n++] = (byte) b;
      }
      return Arrays.copyOf(bytes, n);
    }
  }

  /**
   * Passes the event through to the parser while keeping the bytes from the current record's start,
   * so a record that leaves the fast path can be cut out by its offsets. Holds about one record
   * plus one parser buffer, not the event.
   */
  private static final class RecordingInput extends InputStream {
    private final InputStream in;
    private byte[] buffer = new byte[32 * 1024];
    private long base;
    private int length;
    private long keepFrom;

    RecordingInput(InputStream in) {
      this.in = in;
    }

    void keepFrom(long offset) {
      keepFrom = offset;
    }

    byte[] slice(long from, long to) {
      return Arrays.copyOfRange(buffer, (int) (from - base), (int) (to - base));
    }

    /** The kept bytes just before the parser's position, masked (for DEBUG lines only). */
    String maskedAround(long offset) {
      long end = offset < 0 ? base + length : Math.min(offset, base + length);
      long start = Math.max(base, end - 16);
      return ParseProblem.maskedExcerpt(
          buffer, (int) (start - base), (int) Math.min(length, end - base + 16));
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        append(new byte[] {(byte) b}, 0, 1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        append(b, off, n);
      }
      return n;
    }

    private void append(byte[] b, int off, int n) {
      if (length + n > buffer.length) {
        int drop = (int) Math.min(Math.max(0, keepFrom - base), length);
        System.arraycopy(buffer, drop, buffer, 0, length - drop);
        length -= drop;
        base += drop;
        if (length + n > buffer.length) {
          buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + n));
        }
      }
      System.arraycopy(b, off, buffer, length, n);
      length += n;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  private static void decodeRecord(
      String topicPartition,
      JsonNode node,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected) {
    String mapTopic = TopicPartition.topicOf(topicPartition);
    Integer mapPartition = TopicPartition.partitionOf(topicPartition);

    String topic = node.path("topic").isTextual() ? node.get("topic").asText() : mapTopic;
    // Boxed on both sides: an int/Integer ternary would unbox a null mapPartition and throw.
    Integer partition =
        node.path("partition").canConvertToInt()
            ? Integer.valueOf(node.get("partition").intValue())
            : mapPartition;
    Long offset = offsetOf(node);
    long timestamp =
        node.path("timestamp").canConvertToLong() ? node.get("timestamp").longValue() : -1L;
    String timestampType = node.path("timestampType").asText("");

    String problem = null;
    if (!node.isObject()) {
      problem = "the record is not a JSON object";
    } else if (partition == null) {
      problem = "the record has no partition";
    } else if (offset == null) {
      problem = "the record has no offset";
    }
    byte[] key = null;
    byte[] value = null;
    List<Header> headers = List.of();
    SchemaMetadata keySchema = null;
    SchemaMetadata valueSchema = null;
    if (problem == null) {
      try {
        key = base64OrNull(node.get("key"), "key");
        value = base64OrNull(node.get("value"), "value");
        headers = headers(node.get("headers"));
        keySchema = schemaMetadata(node.get("keySchemaMetadata"), "keySchemaMetadata");
        valueSchema = schemaMetadata(node.get("valueSchemaMetadata"), "valueSchemaMetadata");
      } catch (IllegalArgumentException e) {
        problem = e.getMessage();
      }
    }
    if (problem != null) {
      rejected.add(
          new RejectedRecord(topic, partition, offset, timestamp, problem, null, node.toString()));
      return;
    }
    records.add(
        new KafkaRecord(
            topic,
            partition,
            offset,
            timestamp,
            timestampType,
            key,
            value,
            headers,
            keySchema,
            valueSchema));
  }

  /**
   * A record's offset, or null when it has none (the record then goes to the error object). An
   * offset that is given but is not a whole number at or above 0 makes the event malformed (DESIGN
   * §1): no redelivery could name it, and an object named from it would stall the partition, so the
   * whole event is refused instead, as any other event an event source mapping never sends.
   */
  private static Long offsetOf(JsonNode node) {
    JsonNode offset = node.path("offset");
    if (offset.isMissingNode() || offset.isNull()) {
      return null;
    }
    if (!offset.isIntegralNumber() || !offset.canConvertToLong()) {
      throw new BadEventException(
          "a record's \"offset\" is a "
              + offset.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
              + ", not a whole number: an event source mapping never sends one, so the event is"
              + " refused and nothing of it is archived");
    }
    if (offset.longValue() < 0) {
      throw new BadEventException(
          "a record's \"offset\" is negative: Kafka offsets start at 0 and an event source"
              + " mapping never sends one, so the event is refused and nothing of it is archived");
    }
    return offset.longValue();
  }

  /**
   * The mapping's schema registry metadata (Lambda developer guide, "Using schema registries with
   * Kafka event sources in Lambda": {@code {"dataFormat": "AVRO", "schemaId": "..."}}).
   */
  private static SchemaMetadata schemaMetadata(JsonNode node, String field) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()
        || !node.path("schemaId").isTextual()
        || node.path("schemaId").asText().isBlank()
        || !node.path("dataFormat").isTextual()) {
      throw new IllegalArgumentException(
          "the record's " + field + " is not {\"dataFormat\": \"...\", \"schemaId\": \"...\"}");
    }
    return new SchemaMetadata(node.get("dataFormat").asText(), node.get("schemaId").asText());
  }

  private static byte[] base64OrNull(JsonNode node, String field) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw new IllegalArgumentException("the record's " + field + " is not a base64 string");
    }
    try {
      return Base64.getDecoder().decode(node.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the record's " + field + " is not valid base64");
    }
  }

  /** Headers are a list of one-entry maps: name -> array of byte values (or a base64 string). */
  private static List<Header> headers(JsonNode node) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new IllegalArgumentException("the record's headers are not a list");
    }
    List<Header> headers = new ArrayList<>(node.size());
    for (JsonNode entry : node) {
      if (!entry.isObject()) {
        throw new IllegalArgumentException("a header is not a {name: bytes} object");
      }
      Iterator<Map.Entry<String, JsonNode>> fields = entry.properties().iterator();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        headers.add(new Header(field.getKey(), headerValue(field.getKey(), field.getValue())));
      }
    }
    return headers;
  }

  private static byte[] headerValue(String name, JsonNode value) {
    if (value.isNull()) {
      return null;
    }
    if (value.isTextual()) {
      return base64OrNull(value, "header '" + name + "'");
    }
    if (!value.isArray()) {
      throw new IllegalArgumentException("header '" + name + "' is not an array of bytes");
    }
    byte[] bytes = new byte[value.size()];
    for (int i = 0; i < bytes.length; i++) {
      JsonNode b = value.get(i);
      if (!b.canConvertToInt() || b.intValue() < -128 || b.intValue() > 255) {
        throw new IllegalArgumentException(
            "header '" + name + "' holds a value that is not a byte");
      }
      bytes[i] = (byte) b.intValue();
    }
    return bytes;
  }
}
