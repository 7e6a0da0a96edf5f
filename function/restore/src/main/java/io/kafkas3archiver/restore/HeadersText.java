package io.kafkas3archiver.restore;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kafkas3archiver.decode.Header;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** The tabular formats' headers column: {@code [{"name": ..., "value" | "value_base64": ...}]}. */
final class HeadersText {
  private HeadersText() {}

  static List<Header> parse(String text) throws IOException {
    if (text == null || text.isEmpty()) {
      return List.of();
    }
    List<Header> headers = new ArrayList<>();
    try (JsonParser p = JsonRows.FACTORY.createParser(text)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new IOException("the headers column is not a JSON array");
      }
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String name = null;
        byte[] value = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken v = p.nextToken();
          switch (field) {
            case "name" -> name = p.getText();
            case "value" ->
                value =
                    v == JsonToken.VALUE_NULL ? null : p.getText().getBytes(StandardCharsets.UTF_8);
            case "value_base64" ->
                value = v == JsonToken.VALUE_NULL ? null : Base64.getDecoder().decode(p.getText());
            default -> p.skipChildren();
          }
        }
        headers.add(new Header(name, value));
      }
    }
    return headers;
  }
}
