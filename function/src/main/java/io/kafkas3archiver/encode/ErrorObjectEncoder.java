package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.decode.RejectedRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Base64;
import java.util.List;

/**
 * The error object: NDJSON, one line per rejected record, with topic, partition, offset, the reason
 * and the raw value in base64 (plus key and headers, so the record can be replayed). A record that
 * could not even be decoded keeps its JSON as received under {@code raw_record}.
 */
public final class ErrorObjectEncoder {

  public void encode(List<RejectedRecord> rejected, OutputStream out) throws IOException {
    try (JsonGenerator gen = Json.generator(out)) {
      for (RejectedRecord r : rejected) {
        gen.writeStartObject();
        gen.writeStringField("topic", r.topic());
        writeNumberOrNull(
            gen, "partition", r.partition() == null ? null : r.partition().longValue());
        writeNumberOrNull(gen, "offset", r.offset());
        gen.writeNumberField("timestamp", r.timestamp());
        gen.writeStringField("reason", r.reason());
        KafkaRecord record = r.record();
        if (record != null) {
          gen.writeStringField("timestamp_type", record.timestampType());
          Json.writeBytesField(gen, "key", record.key());
          gen.writeFieldName("headers");
          Json.writeHeaders(gen, record);
          if (record.value() == null) {
            gen.writeNullField("value_base64");
          } else {
            gen.writeStringField(
                "value_base64", Base64.getEncoder().encodeToString(record.value()));
          }
        } else {
          gen.writeStringField("raw_record", r.rawRecordJson());
        }
        gen.writeEndObject();
        gen.writeRaw('\n');
      }
    }
  }

  private static void writeNumberOrNull(JsonGenerator gen, String name, Long value)
      throws IOException {
    if (value == null) {
      gen.writeNullField(name);
    } else {
      gen.writeNumberField(name, value);
    }
  }
}
