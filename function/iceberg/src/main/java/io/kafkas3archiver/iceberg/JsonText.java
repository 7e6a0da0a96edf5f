package io.kafkas3archiver.iceberg;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * A parsed JSON value as compact JSON text, exactly as {@link JsonNode#toString()} writes it, but
 * through one generator reused for every value of a batch: {@code toString()} builds a serializer
 * provider, a generator and its buffers per call, which was a third of the iceberg function's row
 * conversion (docs/iceberg.md, Performance). Iterative, like Jackson's own node writer, so a deeply
 * nested value cannot overflow the stack; nesting is bounded as on the read side.
 */
final class JsonText {
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(10_000).build())
          .build();

  private final Buffer out = new Buffer();
  private final Deque<Iterator<?>> open = new ArrayDeque<>();
  private final Deque<Boolean> isObject = new ArrayDeque<>();
  private JsonGenerator generator;

  String of(JsonNode value) {
    try {
      if (generator == null) {
        generator = FACTORY.createGenerator(out);
        generator.setRootValueSeparator(null); // values follow each other in one generator
      }
      write(value);
      generator.flush();
      return out.take();
    } catch (IOException | RuntimeException e) {
      generator = null; // mid-value: its state is unusable, the next value gets a new one
      out.reset();
      open.clear();
      isObject.clear();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  private void write(JsonNode root) throws IOException {
    JsonNode next = root;
    while (true) {
      if (next != null) {
        if (next.isObject()) {
          generator.writeStartObject();
          open.push(next.properties().iterator());
          isObject.push(true);
        } else if (next.isArray()) {
          generator.writeStartArray();
          open.push(next.elements());
          isObject.push(false);
        } else if (next.isNull()) {
          generator.writeNull();
        } else {
          next.serialize(generator, null); // text, number, boolean: no provider needed
        }
        next = null;
      }
      if (open.isEmpty()) {
        return;
      }
      Iterator<?> it = open.peek();
      if (!it.hasNext()) {
        open.pop();
        if (isObject.pop()) {
          generator.writeEndObject();
        } else {
          generator.writeEndArray();
        }
        continue;
      }
      Object item = it.next();
      if (item instanceof Map.Entry<?, ?> field) {
        generator.writeFieldName((String) field.getKey());
        next = (JsonNode) field.getValue();
      } else {
        next = (JsonNode) item;
      }
    }
  }

  /**
   * A Writer over one StringBuilder, emptied by each {@link #take}. Characters, not UTF-8:
   * Jackson's byte generator writes a character outside the BMP as an escaped surrogate pair, where
   * {@code toString()} (a character generator) writes the character itself.
   */
  private static final class Buffer extends Writer {
    private final StringBuilder text = new StringBuilder(256);

    @Override
    public void write(char[] chars, int off, int len) {
      text.append(chars, off, len);
    }

    @Override
    public void write(String s, int off, int len) {
      text.append(s, off, off + len);
    }

    String take() {
      String s = text.toString();
      text.setLength(0);
      return s;
    }

    void reset() {
      text.setLength(0);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
