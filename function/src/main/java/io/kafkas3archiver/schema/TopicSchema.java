package io.kafkas3archiver.schema;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One version of a topic's schema: its value columns, in the order they were first seen, each with
 * the JSON field it holds, its name in the files, and its type. Every csv and parquet object of the
 * topic is written with one version, and carries all of its columns.
 *
 * <p>Versions only append: a column, once in a version, keeps its name, type and position in every
 * later one. Names are the field's spelling, except that readers (Athena, DuckDB, Spark) match
 * names ignoring case: a name equal, ignoring case, to a reserved name (the metadata columns,
 * {@code _overflow}) or to an earlier column gets {@code _2}, {@code _3}, ...; an empty name
 * becomes {@code _}. Because the suffix is fixed when the column is added, {@code Name} and {@code
 * name} keep their two columns in every object.
 */
public record TopicSchema(String topic, int version, List<Column> columns) {
  private static final JsonFactory JSON = new JsonFactory();

  /** A value column: its name in the files, the JSON field it holds, and its type. */
  public record Column(String name, String field, ColumnType type) {}

  /** A field that a batch would add, with the type its values there give it. */
  public record Addition(String field, ColumnType type) {}

  public TopicSchema {
    columns = List.copyOf(columns);
  }

  /** Version 0: no columns yet. */
  public static TopicSchema empty(String topic) {
    return new TopicSchema(topic, 0, List.of());
  }

  /** The column of each field. */
  public Map<String, Column> byField() {
    Map<String, Column> m = new HashMap<>(columns.size() * 2);
    columns.forEach(c -> m.put(c.field(), c));
    return m;
  }

  public boolean has(String field) {
    for (Column c : columns) {
      if (c.field().equals(field)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The next version with {@code additions} appended (those whose field has no column yet), named
   * around {@code reserved}; this version itself when nothing is new.
   */
  public TopicSchema plus(Collection<Addition> additions, Collection<String> reserved) {
    Set<String> fields = new HashSet<>();
    Set<String> taken = new HashSet<>();
    reserved.forEach(n -> taken.add(fold(n)));
    for (Column c : columns) {
      fields.add(c.field());
      taken.add(fold(c.name()));
    }
    List<Column> next = new ArrayList<>(columns);
    for (Addition a : additions) {
      if (fields.add(a.field())) {
        next.add(new Column(uniqueName(a.field(), taken), a.field(), a.type()));
      }
    }
    return next.size() == columns.size() ? this : new TopicSchema(topic, version + 1, next);
  }

  /** The additions of this version over {@code base} (an earlier version of the same topic). */
  public List<Addition> additionsOver(TopicSchema base) {
    List<Addition> out = new ArrayList<>();
    for (Column c : columns) {
      if (!base.has(c.field())) {
        out.add(new Addition(c.field(), c.type()));
      }
    }
    return out;
  }

  private static String uniqueName(String field, Set<String> taken) {
    String base = field.isEmpty() ? "_" : field;
    String name = base;
    for (int n = 2; !taken.add(fold(name)); n++) {
      name = base + "_" + n;
    }
    return name;
  }

  public static String fold(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  /** The persisted document: {@code {"topic":..,"version":N,"columns":[{name,field,type}..]}}. */
  public byte[] toJson() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + columns.size() * 48);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("topic", topic);
      g.writeNumberField("version", version);
      g.writeArrayFieldStart("columns");
      for (Column c : columns) {
        g.writeStartObject();
        g.writeStringField("name", c.name());
        g.writeStringField("field", c.field());
        g.writeStringField("type", c.type().id());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }

  /** Reads a persisted document; an {@link IllegalArgumentException} says what is wrong. */
  public static TopicSchema parse(byte[] document) {
    String topic = null;
    int version = -1;
    List<Column> columns = new ArrayList<>();
    try (JsonParser p = JSON.createParser(document)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("the schema document is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case "topic" -> topic = p.getText();
          case "version" -> version = p.getIntValue();
          case "columns" -> {
            if (t != JsonToken.START_ARRAY) {
              throw new IllegalArgumentException("'columns' is not an array");
            }
            while (p.nextToken() == JsonToken.START_OBJECT) {
              String n = null;
              String f = null;
              String type = null;
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String k = p.currentName();
                p.nextToken();
                switch (k) {
                  case "name" -> n = p.getText();
                  case "field" -> f = p.getText();
                  case "type" -> type = p.getText();
                  default -> p.skipChildren();
                }
              }
              if (n == null || f == null || type == null) {
                throw new IllegalArgumentException("a column lacks its name, field or type");
              }
              columns.add(new Column(n, f, ColumnType.ofId(type)));
            }
          }
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("the schema document is not JSON", e);
    }
    if (topic == null || version < 0) {
      throw new IllegalArgumentException("the schema document lacks its topic or version");
    }
    return new TopicSchema(topic, version, columns);
  }
}
