package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The JSON plumbing shared by the encoders and the error object. */
public final class Json {
  /**
   * How deep, long and large a value may be: the archiver and the restore read the same values, so
   * what one accepts the other must too.
   */
  public static final StreamReadConstraints READ_LIMITS =
      StreamReadConstraints.builder()
          .maxNestingDepth(2_000)
          .maxNumberLength(100_000)
          .maxStringLength(Integer.MAX_VALUE)
          .build();

  /**
   * Parses values as they are: huge numbers and deep nesting are kept. Duplicate keys are not
   * checked here, so json and ndjson copy them through as received; only {@link #TREE_MAPPER}
   * refuses them.
   */
  static final JsonFactory FACTORY =
      JsonFactory.builder()
          // Values are any shape: 10,000 records with 20 field names of their own took Jackson's
          // shared name table 7-12 s to canonicalise (1.4 s without), on every invocation.
          .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
          // A key given twice: json/ndjson keep such a value as a string, csv/parquet reject it.
          // Before, only a tree mapper's builder switched this on, in this shared factory, as a
          // side effect: json got it only once csv or parquet had loaded databind.
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .streamReadConstraints(READ_LIMITS)
          .build();

  private Json() {}

  /**
   * A parser that reads {@code value} as UTF-8, which it has been checked to be. Jackson's byte
   * parser guesses the encoding from the first four bytes (JSON's old rule), and a NUL among them
   * makes it read UTF-16 or UTF-32: {@code "\0\0\0\0} then fails with a {@code
   * CharConversionException}, not a JSON error, and UTF-16 {@code {"a":1}} (valid UTF-8) passes as
   * JSON. Such a value is read through a UTF-8 reader instead, so it meets the same JSON errors as
   * any other (a NUL is never valid JSON there). {@link Payload} needs none of this: it takes no
   * value with a NUL for JSON before parsing.
   */
  static JsonParser utf8Parser(byte[] value) throws IOException {
    for (int i = 0; i < Math.min(4, value.length); i++) {
      if (value[i] == 0) {
        return FACTORY.createParser(
            new InputStreamReader(new ByteArrayInputStream(value), StandardCharsets.UTF_8));
      }
    }
    return FACTORY.createParser(value);
  }

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
      gen.writeStringField(name, new String(bytes, StandardCharsets.UTF_8));
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
    if (record.headers().isEmpty()) {
      return "[]"; // most records: no generator per row for what is always the same text
    }
    java.io.StringWriter text = new java.io.StringWriter();
    try (JsonGenerator gen = FACTORY.createGenerator(text)) {
      writeHeaders(gen, record);
    } catch (IOException e) {
      throw new IllegalStateException("writing headers to a string cannot fail", e);
    }
    return text.toString();
  }
}
