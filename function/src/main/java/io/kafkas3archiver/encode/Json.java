package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import java.io.IOException;
import java.util.Base64;

/** The JSON plumbing shared by the encoders and the error object. */
final class Json {
  /**
   * Parses values as they are: huge numbers and deep nesting are kept. Duplicate keys are not
   * checked here, so json and ndjson copy them through as received; only {@link #TREE_MAPPER}
   * refuses them.
   */
  static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(2_000)
                  .maxNumberLength(100_000)
                  .maxStringLength(Integer.MAX_VALUE)
                  .build())
          .build();

  /**
   * For tabular formats, which need the value's fields: decimals stay exact, duplicate keys are
   * refused. Jackson databind (about 290 classes) loads on the first {@code readTree}, so json and
   * ndjson never pay for it on a cold start.
   */
  static final TreeReader TREE_MAPPER = new TreeReader();

  static final class TreeReader {
    private TreeReader() {}

    JsonNode readTree(byte[] json) throws IOException {
      return Holder.MAPPER.readTree(json);
    }

    private static final class Holder {
      static final ObjectMapper MAPPER =
          JsonMapper.builder(FACTORY)
              .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
              .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
              // '{"a":1} trailing' is not a JSON object: without this the tail is silently dropped.
              .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
              .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
              .build();
    }
  }

  private Json() {}

  static JsonGenerator generator(java.io.OutputStream out) throws IOException {
    JsonGenerator gen = FACTORY.createGenerator(out);
    gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    gen.setRootValueSeparator(null);
    return gen;
  }

  /** Writes bytes as text when they are UTF-8, else under {@code <name>_base64}. */
  static void writeBytesField(JsonGenerator gen, String name, byte[] bytes) throws IOException {
    if (bytes == null) {
      gen.writeNullField(name);
    } else if (Utf8.isValid(bytes)) {
      gen.writeStringField(name, new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
    } else {
      gen.writeStringField(name + "_base64", Base64.getEncoder().encodeToString(bytes));
    }
  }

  /** Headers as {@code [{"name": ..., "value" | "value_base64": ...}]}. */
  static void writeHeaders(JsonGenerator gen, KafkaRecord record) throws IOException {
    gen.writeStartArray();
    for (Header h : record.headers()) {
      gen.writeStartObject();
      gen.writeStringField("name", h.name());
      writeBytesField(gen, "value", h.value());
      gen.writeEndObject();
    }
    gen.writeEndArray();
  }

  /** A value as JSON, a JSON string, or {@code <name>_base64}. */
  static void writePayloadField(JsonGenerator gen, String name, Payload payload)
      throws IOException {
    switch (payload) {
      case Payload.Json j -> {
        gen.writeFieldName(name);
        gen.writeRawValue(new RawJson(j.singleLine()));
      }
      case Payload.Text t -> gen.writeStringField(name, t.text());
      case Payload.Binary b ->
          gen.writeStringField(name + "_base64", Base64.getEncoder().encodeToString(b.bytes()));
    }
  }

  /** The headers array as JSON text, for a tabular format's headers column. */
  static String headersText(KafkaRecord record) {
    java.io.StringWriter text = new java.io.StringWriter();
    try (JsonGenerator gen = FACTORY.createGenerator(text)) {
      writeHeaders(gen, record);
    } catch (IOException e) {
      throw new IllegalStateException("writing headers to a string cannot fail", e);
    }
    return text.toString();
  }

  /**
   * A tabular cell's text: a string as is, a number as written (decimals keep their scale), a
   * boolean as {@code true}/{@code false}, a nested value as compact JSON; null for JSON null.
   */
  static String cellText(com.fasterxml.jackson.databind.JsonNode value) {
    if (value == null || value.isNull()) {
      return null;
    }
    if (value.isTextual()) {
      return value.textValue();
    }
    if (value.isBigDecimal()) {
      return value.decimalValue().toString();
    }
    if (value.isValueNode()) {
      return value.asText();
    }
    return value.toString();
  }
}
