package io.kafkas3archiver.encode;

import com.fasterxml.jackson.core.JsonGenerator;
import io.kafkas3archiver.encode.TabularBatch.Field;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The {@value ColumnPlan#OVERFLOW} cells of one encoding: the row's other fields as one compact
 * JSON object, values as received. One generator and one buffer serve the whole batch, not a {@link
 * StringWriter} and a generator per row (a batch of per-record field names has an overflow cell in
 * every row). Made on the first overflow cell; not thread-safe.
 */
final class OverflowText implements AutoCloseable {
  private StringWriter buffer;
  private JsonGenerator generator;

  /** The fields as one JSON object text, values as received. */
  String of(List<Field> fields) {
    try {
      if (generator == null) {
        buffer = new StringWriter(256);
        generator = Json.FACTORY.createGenerator(buffer);
        // One object after another, each taken out alone: no separator between them.
        generator.setRootValueSeparator(null);
      }
      generator.writeStartObject();
      for (int i = 0; i < fields.size(); i++) {
        Field f = fields.get(i);
        generator.writeFieldName(f.name());
        switch (f.kind()) {
          case NULL -> generator.writeNull();
          case STRING -> generator.writeString(f.text());
          case BOOLEAN, NUMBER, NESTED -> generator.writeRawValue(f.text());
        }
      }
      generator.writeEndObject();
      generator.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to a string cannot fail", e);
    }
    String text = buffer.toString();
    buffer.getBuffer().setLength(0);
    return text;
  }

  @Override
  public void close() {
    if (generator != null) {
      try {
        generator.close();
      } catch (IOException e) {
        throw new UncheckedIOException("closing a generator over a string cannot fail", e);
      }
    }
  }
}
