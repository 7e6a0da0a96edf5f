package io.kafkas3archiver.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Builds an MSK event source mapping event, record by record, as the Lambda runtime sends it. */
public final class EventBuilder {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final ObjectNode event = MAPPER.createObjectNode();
  private final ObjectNode records;

  public EventBuilder() {
    event.put("eventSource", "aws:kafka");
    event.put(
        "eventSourceArn", "arn:aws:kafka:us-east-1:123456789012:cluster/test/abcd1234-1111-2222");
    event.put("bootstrapServers", "b-1.test.kafka.us-east-1.amazonaws.com:9098");
    records = event.putObject("records");
  }

  /** Adds a record; a null value is a tombstone, a null key means none. */
  public EventBuilder add(
      String topic, int partition, long offset, long timestamp, String key, byte[] value) {
    return add(topic, partition, offset, timestamp, key, value, java.util.Map.of());
  }

  /** Adds a record with these headers besides the usual {@code source=test}. */
  public EventBuilder add(
      String topic,
      int partition,
      long offset,
      long timestamp,
      String key,
      byte[] value,
      java.util.Map<String, byte[]> extraHeaders) {
    ArrayNode list = (ArrayNode) records.get(topic + "-" + partition);
    if (list == null) {
      list = records.putArray(topic + "-" + partition);
    }
    ObjectNode r = list.addObject();
    r.put("topic", topic);
    r.put("partition", partition);
    r.put("offset", offset);
    r.put("timestamp", timestamp);
    r.put("timestampType", "CREATE_TIME");
    if (key != null) {
      r.put("key", Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8)));
    }
    if (value == null) {
      r.putNull("value");
    } else {
      r.put("value", Base64.getEncoder().encodeToString(value));
    }
    ArrayNode headers = r.putArray("headers");
    ArrayNode bytes = headers.addObject().putArray("source");
    for (byte b : "test".getBytes(StandardCharsets.UTF_8)) {
      bytes.add(b);
    }
    extraHeaders.forEach(
        (headerName, headerValue) -> {
          ArrayNode extra = headers.addObject().putArray(headerName);
          for (byte b : headerValue) {
            extra.add(b);
          }
        });
    return this;
  }

  public EventBuilder add(
      String topic, int partition, long offset, long timestamp, String key, String json) {
    return add(
        topic,
        partition,
        offset,
        timestamp,
        key,
        json == null ? null : json.getBytes(StandardCharsets.UTF_8));
  }

  public InputStream stream() {
    try {
      return new ByteArrayInputStream(MAPPER.writeValueAsBytes(event));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
