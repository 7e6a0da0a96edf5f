package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.SchemaMetadata;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * {@code json} (one array) and {@code ndjson} (one value per line). Values-only rows are the value
 * itself; with Kafka metadata each row is an envelope whose {@code value} holds it. JSON values are
 * copied byte for byte, so a restore gives back exactly what was produced.
 */
public final class JsonEncoder implements Encoder {
  /**
   * The envelope's field for a value's exact bytes (base64), written only where {@code value} alone
   * would not give them back.
   */
  public static final String VALUE_EXACT_FIELD = "value_exact_base64";

  private static final byte[] NULL = {'n', 'u', 'l', 'l'};

  private final boolean array;
  private final boolean includeKafkaMetadata;

  JsonEncoder(boolean array, boolean includeKafkaMetadata) {
    this.array = array;
    this.includeKafkaMetadata = includeKafkaMetadata;
  }

  @Override
  public EncodeResult encode(List<KafkaRecord> records, OutputStream out) throws IOException {
    if (!includeKafkaMetadata && out instanceof BodyBuffer body) {
      return encodeByReference(records, body);
    }
    int rows = 0;
    int tombstones = 0;
    JsonValueScan scan = new JsonValueScan();
    RawJson raw = new RawJson(NULL);
    try (JsonGenerator gen = Json.generator(out)) {
      if (array) {
        gen.writeRaw('[');
      }
      for (KafkaRecord record : records) {
        if (record.isTombstone() && !includeKafkaMetadata) {
          tombstones++;
          continue;
        }
        if (array) {
          gen.writeRaw(rows == 0 ? "\n" : ",\n");
        }
        if (includeKafkaMetadata) {
          writeEnvelope(gen, record, scan);
        } else {
          byte[] value = record.value();
          boolean valid = scan.scan(value);
          if (valid && Payload.asReceived(scan, value)) {
            // The usual value: single-line JSON written as received, with no Payload per value.
            gen.writeRawValue(raw.use(value));
          } else {
            writeValue(gen, Payload.classify(scan, value, valid));
          }
        }
        if (!array) {
          gen.writeRaw('\n');
        }
        rows++;
      }
      if (array) {
        gen.writeRaw("\n]\n");
      }
    }
    return new EncodeResult(rows, tombstones, List.of());
  }

  private static final byte[] OPEN = {'['};
  private static final byte[] FIRST = {'\n'};
  private static final byte[] NEXT = {',', '\n'};
  private static final byte[] CLOSE = {'\n', ']', '\n'};
  private static final byte[] LINE_END = {'\n'};

  /**
   * Values-only rows into an uncompressed body: the same bytes as {@link #encode(List,
   * OutputStream)} writes through a generator, but each value written as received is the record's
   * own array and each separator a constant, so the body copies nothing. A value written otherwise
   * (text, binary, JSON made single-line) goes through a generator into an array of its own.
   */
  private EncodeResult encodeByReference(List<KafkaRecord> records, BodyBuffer body)
      throws IOException {
    int rows = 0;
    int tombstones = 0;
    JsonValueScan scan = new JsonValueScan();
    if (array) {
      body.share(OPEN);
    }
    for (KafkaRecord record : records) {
      if (record.isTombstone()) {
        tombstones++;
        continue;
      }
      if (array) {
        body.share(rows == 0 ? FIRST : NEXT);
      }
      byte[] value = record.value();
      boolean valid = scan.scan(value);
      if (valid && Payload.asReceived(scan, value)) {
        body.share(value);
      } else {
        ByteArrayOutputStream own = new ByteArrayOutputStream(value.length + 16);
        try (JsonGenerator gen = Json.generator(own)) {
          writeValue(gen, Payload.classify(scan, value, valid));
        }
        body.share(own.toByteArray());
      }
      if (!array) {
        body.share(LINE_END);
      }
      rows++;
    }
    if (array) {
      body.share(CLOSE);
    }
    return new EncodeResult(rows, tombstones, List.of());
  }

  /**
   * Exact when every value is single-line JSON written as received (the usual batch): ndjson is
   * each value and a newline; json is {@code [}, a newline or {@code ,\n} before each value, and
   * {@code \n]\n}. Envelopes take the default.
   */
  @Override
  public long expectedSize(List<KafkaRecord> records) {
    if (includeKafkaMetadata) {
      return Encoder.super.expectedSize(records);
    }
    long values = 0;
    long bytes = 0;
    for (KafkaRecord r : records) {
      if (!r.isTombstone()) {
        values++;
        bytes += r.value().length;
      }
    }
    if (!array) {
      return bytes + values;
    }
    return values == 0 ? 4 : bytes + 2 * values + 3;
  }

  private static void writeValue(JsonGenerator gen, Payload payload) throws IOException {
    switch (payload) {
      case Payload.Json j -> gen.writeRawValue(new RawJson(j.singleLine()));
      case Payload.Text t -> gen.writeString(t.text());
      case Payload.Binary b -> {
        gen.writeStartObject();
        gen.writeStringField("value_base64", Base64.getEncoder().encodeToString(b.bytes()));
        gen.writeEndObject();
      }
    }
  }

  private static void writeEnvelope(JsonGenerator gen, KafkaRecord record, JsonValueScan scan)
      throws IOException {
    gen.writeStartObject();
    gen.writeStringField("topic", record.topic());
    gen.writeNumberField("partition", record.partition());
    gen.writeNumberField("offset", record.offset());
    gen.writeNumberField("timestamp", record.timestamp());
    gen.writeStringField("timestamp_type", record.timestampType());
    Json.writeBytesField(gen, "key", record.key());
    gen.writeFieldName("headers");
    Json.writeHeaders(gen, record);
    // Only when the mapping's schema registry sent them, so other envelopes keep their shape.
    writeSchema(gen, "key", record.keySchema());
    writeSchema(gen, "value", record.valueSchema());
    if (record.isTombstone()) {
      gen.writeNullField("value");
    } else {
      Payload payload = Payload.classify(scan, record.value());
      if (payload instanceof Payload.Json j && !restoresExactly(j, record.value())) {
        // Before "value": a reader may stop at the value's end (it is the envelope's last field).
        gen.writeStringField(VALUE_EXACT_FIELD, Base64.getEncoder().encodeToString(record.value()));
      }
      Json.writePayloadField(gen, "value", payload);
    }
    gen.writeEndObject();
  }

  /**
   * Whether the embedded JSON alone gives back the value's bytes: not when it was trimmed or
   * compacted onto one line, nor when it reads as something else, a string literal ({@code "abc"}
   * reads as the text {@code abc}) or {@code null} (reads as a tombstone). Those rare values also
   * carry their exact bytes, so a restore is lossless; every other row stays as it was.
   */
  private static boolean restoresExactly(Payload.Json json, byte[] value) {
    byte[] line = json.singleLine();
    if (line != value && !Arrays.equals(line, value)) {
      return false;
    }
    return line[0] != '"' && !(line.length == 4 && Arrays.equals(line, NULL));
  }

  private static void writeSchema(JsonGenerator gen, String prefix, SchemaMetadata schema)
      throws IOException {
    if (schema != null) {
      gen.writeStringField(prefix + "_schema_id", schema.schemaId());
      gen.writeStringField(prefix + "_data_format", schema.dataFormat());
    }
  }
}
