package io.kafkas3archiver.encode;

import io.kafkas3archiver.bench.TelemetryBatch;
import io.kafkas3archiver.decode.Header;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.schema.ColumnType;
import io.kafkas3archiver.schema.TopicSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A varied, deterministic corpus for the csv and parquet encoders ({@link TabularGoldenTest}): the
 * benchmark's telemetry shape, awkward values (every csv quoting trigger, escapes, lone surrogates,
 * numbers at every edge of BIGINT and DOUBLE), fields in any order and of mixed types, values that
 * are rejected, tombstones, keys and headers of every kind, per-record field names past the column
 * budget, more fields than the column cap, and a topic whose schema already has a column of every
 * {@link ColumnType}.
 */
final class TabularCorpus {
  private TabularCorpus() {}

  /** A topic's batches, encoded one after the other against the same schema source. */
  record Batch(String name, List<KafkaRecord> records) {}

  /** The schema the {@code typed} topic starts from: one column of every type. */
  static final TopicSchema TYPED_SCHEMA =
      new TopicSchema(
          "typed",
          1,
          List.of(
              new TopicSchema.Column("big", "big", ColumnType.BIGINT),
              new TopicSchema.Column("dbl", "dbl", ColumnType.DOUBLE),
              new TopicSchema.Column("flag", "flag", ColumnType.BOOLEAN),
              new TopicSchema.Column("name", "name", ColumnType.STRING),
              new TopicSchema.Column("obj", "obj", ColumnType.JSON),
              new TopicSchema.Column("amount", "amount", ColumnType.DECIMAL)));

  /** Strings that trigger each of commons-csv's quoting rules, and some that must not. */
  static final List<String> AWKWARD_STRINGS =
      List.of(
          "",
          "plain",
          " leading space",
          "trailing space ",
          "trailing tab\t",
          "#hash first",
          "!bang first",
          "\"quoted\"",
          "in\"side",
          "a,b",
          "line\nbreak",
          "cr\rhere",
          "crlf\r\nhere",
          "$dollar",
          "%percent",
          "ü umlaut",
          "日本語",
          "emoji 😀 pair",
          "\u0001control",
          "ends with control\u0002",
          "null",
          "true",
          "42",
          "-1.5e3",
          "{\"a\":1}",
          "[1,2]",
          "x".repeat(3000) + ",\"");

  /** JSON number texts at every edge of BIGINT, DOUBLE and DECIMAL. */
  static final List<String> NUMBERS =
      List.of(
          "0",
          "-0",
          "0.0",
          "-0.0",
          "0e5",
          "1",
          "-1",
          "10",
          "1.0e5",
          "1E5",
          "1e+5",
          "1.5E+3",
          "1e-5",
          "0.1",
          "0.30000000000000004",
          "12.950000",
          "100.10",
          "123.456e-2",
          "0.000001",
          "0.0000001",
          "3.14159265358979323846",
          "43.72154389814236",
          "123456789012345",
          "999999999999999",
          "9999999999999999",
          "99999999999999999",
          "123456789012345678",
          "9007199254740992",
          "9007199254740993",
          "-9007199254740993",
          "9223372036854775807",
          "-9223372036854775808",
          "9223372036854775808",
          "-9223372036854775809",
          "10000000000000000000",
          "123456789012345678901234567890",
          "1e22",
          "1e23",
          "1.7976931348623157e308",
          "1.7976931348623159e308",
          "1e308",
          "1e309",
          "1e400",
          "1E-400",
          "1e-307",
          "1e-308",
          "2.2250738585072014E-308",
          "2.5e-310",
          "4.9e-324",
          "5e-324",
          "1.23456789012345e-300",
          "1.234567890123456e-300",
          "123456789.123456789",
          "123456789.1234567891",
          "12345678901234567890123456789.5",
          "0.000000001",
          "0.0000000001",
          "1e-9",
          "1e29",
          "1e30",
          "-1.5",
          "1.000000000000000000001",
          "0.1e1",
          "0.5",
          "1e0",
          "1E-0",
          "7e-1");

  static List<Batch> batches() {
    List<Batch> batches = new ArrayList<>();
    batches.add(new Batch("telemetry", telemetry()));
    batches.add(new Batch("awkward-1", awkward("awkward", 0, 11)));
    // the same topic again: its columns exist now, and new values misfit them
    batches.add(new Batch("awkward-2", awkward("awkward", 1_000, 12)));
    batches.add(new Batch("rejected", rejected()));
    batches.add(new Batch("wide", wide()));
    batches.add(new Batch("capped", capped()));
    batches.add(new Batch("typed", typed()));
    return batches;
  }

  private static List<KafkaRecord> telemetry() {
    TelemetryBatch batch = TelemetryBatch.generate(400, 42);
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < batch.base64Values.size(); i++) {
      byte[] value = Base64.getDecoder().decode(batch.base64Values.get(i));
      records.add(
          new KafkaRecord(
              "telemetry",
              i % 4,
              1_000_000L + i,
              1_783_955_045_000L + i * 37L,
              "CREATE_TIME",
              ("KA-" + i % 50).getBytes(StandardCharsets.UTF_8),
              value,
              List.of(new Header("source", ("gw" + i % 10).getBytes(StandardCharsets.UTF_8)))));
    }
    return records;
  }

  /**
   * Records that pick their fields from a pool, in shuffled order, each field mostly of one kind
   * and sometimes of another; then fixed records for the exact-cell cases.
   */
  private static List<KafkaRecord> awkward(String topic, long firstOffset, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    String[] fields = {
      "id",
      "count",
      "price",
      "ratio",
      "ok",
      "label",
      "note",
      "tags",
      "meta",
      "mixed",
      "maybe",
      "when",
      "big",
      "deep",
      "empty",
      "Upper",
      "spaced name",
      "comma,name",
      "quote\"name",
      "ünï"
    };
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      List<String> chosen = new ArrayList<>();
      for (String f : fields) {
        if (r.nextInt(10) < 7) {
          chosen.add(f);
        }
      }
      for (int k = chosen.size() - 1; k > 0; k--) {
        int j = r.nextInt(k + 1);
        String t = chosen.get(k);
        chosen.set(k, chosen.get(j));
        chosen.set(j, t);
      }
      if (r.nextInt(3) == 0) {
        chosen.sort(null);
      }
      StringBuilder v = new StringBuilder("{");
      for (String f : chosen) {
        if (v.length() > 1) {
          v.append(',');
        }
        v.append(string(f)).append(':').append(valueFor(f, r));
      }
      v.append('}');
      records.add(record(topic, firstOffset + i, key(r), v.toString(), headers(r)));
    }
    String[] exactCases = {
      "{\"label\":\"\\u00fc\",\"id\":1}",
      "{\"label\":\"a\\/b\"}",
      "{ \"id\" : 1 }",
      "{\"id\":1}\n",
      "{\"id\":null,\"label\":null}",
      "{\"label\":\"42\",\"note\":\"\"}",
      "{\"label\":\"\\ud800\",\"note\":\"x\\udc00y\",\"tags\":\"\\ud83d\"}",
      "{\"price\":1.0E5,\"count\":1e2}",
      "{\"id\":1,\"label\":\"x\",\"zzz\":1}",
      "{\"deep\":[[[[{\"x\":[1,{\"y\":\"z, \\\"q\\\"\"}]}]]]],\"meta\":{}}",
      "{}",
      "\uFEFF{\"id\":1}"
    };
    for (int i = 0; i < exactCases.length; i++) {
      records.add(record(topic, firstOffset + 400 + i, key(r), exactCases[i], headers(r)));
    }
    return records;
  }

  private static String valueFor(String field, SplittableRandom r) {
    int odd = r.nextInt(12);
    return switch (field) {
      case "id", "count" -> odd == 0 ? pick(NUMBERS, r) : Integer.toString(r.nextInt(100_000));
      case "price", "ratio" ->
          odd == 0 ? pick(NUMBERS, r) : String.format(Locale.ROOT, "%.3f", r.nextDouble() * 1_000);
      case "ok" -> odd == 0 ? "\"yes\"" : Boolean.toString(r.nextBoolean());
      case "label", "note", "spaced name", "comma,name", "quote\"name", "ünï", "Upper" ->
          odd == 0 ? pick(NUMBERS, r) : string(pick(AWKWARD_STRINGS, r));
      case "tags" -> odd == 0 ? string("solo") : "[\"a\",\"b,c\",1.50,null,true]";
      case "meta" ->
          odd == 0 ? "null" : "{\"k\":\"v\\\"q\",\"n\":1.0e5,\"l\":[1,2e3],\"o\":{\"p\":null}}";
      case "mixed" ->
          switch (r.nextInt(6)) {
            case 0 -> Integer.toString(r.nextInt(10));
            case 1 -> "2.5";
            case 2 -> string("s");
            case 3 -> "true";
            case 4 -> "[1]";
            default -> "null";
          };
      case "maybe" -> odd < 6 ? "null" : "7";
      case "when" -> string("2026-07-13T15:04:05." + r.nextInt(1000) + "Z");
      case "big" -> pick(NUMBERS, r);
      case "deep" -> "{\"a\":{\"b\":[{\"c\":\"" + r.nextInt(5) + "\"}]}}";
      case "empty" -> odd < 4 ? "\"\"" : odd < 8 ? "{}" : "[]";
      default -> "0";
    };
  }

  /** Values the tabular formats refuse, between valid ones, and tombstones. */
  private static List<KafkaRecord> rejected() {
    List<byte[]> values = new ArrayList<>();
    for (String v :
        List.of(
            "{\"a\":1}",
            "[1,2]",
            "42",
            "\"s\"",
            "nope",
            "{\"a\":1,\"a\":2}",
            "{\"a\":1} trailing",
            "",
            "null",
            "{\"a\":2,\"b\":\"x\"}")) {
      values.add(v.getBytes(StandardCharsets.UTF_8));
    }
    values.add(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}'});
    values.add(null);
    values.add("{\"b\":\"y\"}".getBytes(StandardCharsets.UTF_8));
    values.add(null);
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      records.add(
          new KafkaRecord(
              "rejected",
              0,
              i,
              i % 3 == 0 ? -1 : 1_783_955_045_000L + i,
              i % 2 == 0 ? "CREATE_TIME" : "LOG_APPEND_TIME",
              i % 4 == 0 ? null : ("k" + i).getBytes(StandardCharsets.UTF_8),
              values.get(i),
              List.of()));
    }
    return records;
  }

  /** Common fields, and three names per record of its own: past the empty-cell budget. */
  private static List<KafkaRecord> wide() {
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String v =
          "{\"a\":"
              + i
              + ",\"b\":\"x"
              + i
              + "\",\"u"
              + i
              + "_1\":1,\"u"
              + i
              + "_2\":\"s,\\\"\",\"u"
              + i
              + "_3\":{\"n\":"
              + i
              + ".5}}";
      records.add(record("wide", i, null, v, List.of()));
    }
    return records;
  }

  /** More fields than the column cap, each in every record. */
  private static List<KafkaRecord> capped() {
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      StringBuilder v = new StringBuilder("{");
      for (int f = 0; f < ColumnPlan.MAX_COLUMNS + 10; f++) {
        v.append(f == 0 ? "" : ",").append("\"f").append(f).append("\":").append(i + f);
      }
      records.add(record("capped", i, null, v.append('}').toString(), List.of()));
    }
    return records;
  }

  /** Values that fit, and values that misfit, each column of {@link #TYPED_SCHEMA}. */
  private static List<KafkaRecord> typed() {
    String[][] cells = {
      {"big", "1", "-9223372036854775808", "1.5", "9223372036854775808", "\"7\"", "1e2", "null"},
      {"dbl", "0.1", "1e400", "12345678901234567890", "3", "2.5e-310", "\"x\"", "-0.0"},
      {"flag", "true", "false", "1", "\"true\"", "null", "[true]", "false"},
      {"name", "\"s\"", "\"\"", "1", "{\"a\":1}", "true", "\" x \"", "\"#\""},
      {"obj", "{\"a\":1}", "[1,\"b\"]", "\"s\"", "2", "{}", "null", "[]"},
      {
        "amount",
        "12.5",
        "1e-10",
        "123456789012345678901234567890123",
        "\"str\"",
        "true",
        "-0.000000001",
        "19.400"
      },
    };
    List<KafkaRecord> records = new ArrayList<>();
    for (int i = 1; i < cells[0].length; i++) {
      StringBuilder v = new StringBuilder("{");
      for (int c = 0; c < cells.length; c++) {
        v.append(c == 0 ? "" : ",").append(string(cells[c][0])).append(':').append(cells[c][i]);
      }
      v.append(",\"extra\":").append(i).append('}');
      records.add(record("typed", i, null, v.toString(), List.of()));
    }
    for (String n : NUMBERS) {
      String v =
          "{\"big\":"
              + n
              + ",\"dbl\":"
              + n
              + ",\"amount\":"
              + n
              + ",\"name\":"
              + n
              + ",\"obj\":"
              + n
              + "}";
      records.add(record("typed", 100 + records.size(), null, v, List.of()));
    }
    return records;
  }

  private static KafkaRecord record(
      String topic, long offset, byte[] key, String value, List<Header> headers) {
    return new KafkaRecord(
        topic,
        (int) (offset % 3),
        offset,
        offset % 7 == 6 ? -1 : 1_783_955_045_000L + offset,
        offset % 5 == 4 ? "LOG_APPEND_TIME" : "CREATE_TIME",
        key,
        value.getBytes(StandardCharsets.UTF_8),
        headers);
  }

  private static byte[] key(SplittableRandom r) {
    return switch (r.nextInt(7)) {
      case 0 -> null;
      case 1 -> new byte[0];
      case 2 -> "k,1".getBytes(StandardCharsets.UTF_8);
      case 3 -> "q\"k".getBytes(StandardCharsets.UTF_8);
      case 4 -> new byte[] {(byte) 0xff, 0, 1};
      case 5 -> "ключ".getBytes(StandardCharsets.UTF_8);
      default -> ("id-" + r.nextInt(100)).getBytes(StandardCharsets.UTF_8);
    };
  }

  private static List<Header> headers(SplittableRandom r) {
    return switch (r.nextInt(5)) {
      case 0 -> List.of();
      case 1 -> List.of(new Header("h", "v".getBytes(StandardCharsets.UTF_8)));
      case 2 -> List.of(new Header("bin", new byte[] {(byte) 0xff}));
      case 3 -> List.of(new Header("n", null));
      default ->
          List.of(
              new Header("a", "1".getBytes(StandardCharsets.UTF_8)),
              new Header("b", "x,y\"z\u00e9".getBytes(StandardCharsets.UTF_8)));
    };
  }

  private static String pick(List<String> from, SplittableRandom r) {
    return from.get(r.nextInt(from.size()));
  }

  /** A JSON string literal of {@code s}. */
  static String string(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
