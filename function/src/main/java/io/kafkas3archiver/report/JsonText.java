package io.kafkas3archiver.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** One JSON document as a string: the structured log lines and the actions' responses. */
public final class JsonText {
  private static final JsonFactory FACTORY = new JsonFactory();

  /** Writes fields or a whole value; writing to a string cannot fail for I/O reasons. */
  public interface Writer {
    void write(JsonGenerator g) throws IOException;
  }

  private JsonText() {}

  public static String of(Writer writer) {
    StringWriter out = new StringWriter(512);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      writer.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** A log line: level, message, title and request id first (what every query filters on). */
  public static String logLine(
      String level, String message, String title, String requestId, Writer fields) {
    return of(
        g -> {
          g.writeStartObject();
          g.writeStringField("level", level);
          g.writeStringField("message", message);
          g.writeStringField("title", title);
          g.writeStringField("requestId", requestId);
          fields.write(g);
          g.writeEndObject();
        });
  }
}
