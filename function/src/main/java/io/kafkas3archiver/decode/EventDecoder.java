package io.kafkas3archiver.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Turns the invocation payload into an {@link Invocation}. It reads the stream once, record by
 * record, so a bad record is rejected on its own (with its raw JSON kept for the error object)
 * instead of failing the whole batch.
 */
public final class EventDecoder {
  private final ObjectMapper mapper;

  public EventDecoder(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  public Invocation decode(InputStream in) throws IOException {
    try (JsonParser parser = mapper.createParser(in)) {
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
            readRecordsMap(parser, records, rejected);
          }
          default -> parser.skipChildren();
        }
      }
      if (action != null) {
        if (action.equals("preflight")) {
          return new Invocation.PreflightRequest();
        }
        throw new BadEventException(
            "unknown action '" + action + "'; the only action is \"preflight\"");
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
      throw new BadEventException("the event is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  private void readRecordsMap(
      JsonParser parser, List<KafkaRecord> records, List<RejectedRecord> rejected)
      throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return;
    }
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw new BadEventException(
          "\"records\" must be an object of \"<topic>-<partition>\": [records]");
    }
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
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        JsonNode node = mapper.readTree(parser);
        decodeRecord(topicPartition, node, records, rejected);
      }
    }
  }

  private static void decodeRecord(
      String topicPartition,
      JsonNode node,
      List<KafkaRecord> records,
      List<RejectedRecord> rejected) {
    int dash = topicPartition.lastIndexOf('-');
    String mapTopic = dash > 0 ? topicPartition.substring(0, dash) : topicPartition;
    Integer mapPartition = dash > 0 ? parseIntOrNull(topicPartition.substring(dash + 1)) : null;

    String topic = node.path("topic").isTextual() ? node.get("topic").asText() : mapTopic;
    // Boxed on both sides: an int/Integer ternary would unbox a null mapPartition and throw.
    Integer partition =
        node.path("partition").canConvertToInt()
            ? Integer.valueOf(node.get("partition").intValue())
            : mapPartition;
    Long offset = node.path("offset").canConvertToLong() ? node.get("offset").longValue() : null;
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
    if (problem == null) {
      try {
        key = base64OrNull(node.get("key"), "key");
        value = base64OrNull(node.get("value"), "value");
        headers = headers(node.get("headers"));
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
        new KafkaRecord(topic, partition, offset, timestamp, timestampType, key, value, headers));
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

  private static Integer parseIntOrNull(String text) {
    try {
      return Integer.valueOf(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
