package io.kafkas3archiver.shapes;

import io.kafkas3archiver.testing.KafkaEvents.Rec;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * Batches of the JSON shapes real topics send and tidy fixtures never do (DESIGN §4, "Any shape,
 * bounded memory"). Each is close to a full batch (at most 10,000 records, about 6 MB of values),
 * with a tombstone every 97th record and a non-JSON value every 101st, so every count of records in
 * = written + errored + tombstones is exercised. Random choices come from the given seed.
 */
public final class HostileShapes {
  static final int MAX_RECORDS = 10_000;
  static final int MAX_VALUE_BYTES = 6_000_000;
  static final long BASE_TIME = 1_784_023_200_000L;

  /** A named shape; {@code build} makes its records from a seeded random. */
  public record Shape(String name, Function<Random, List<Rec>> build) {}

  private HostileShapes() {}

  public static List<Shape> all() {
    return List.of(
        new Shape("per-record-keys", HostileShapes::perRecordKeys),
        new Shape("5000-fields", HostileShapes::fiveThousandFields),
        new Shape("100-deep", HostileShapes::hundredDeep),
        new Shape("100k-arrays", HostileShapes::hundredThousandElementArrays),
        new Shape("5mb-string", HostileShapes::fiveMegabyteString),
        new Shape("mixed-types", HostileShapes::mixedTypes),
        new Shape("case-and-nfc-keys", HostileShapes::caseAndNormalisationKeys),
        new Shape("empty-keys", HostileShapes::emptyKeys));
  }

  /** 10,000 records, each with 20 field names of its own (device ids as keys). */
  static List<Rec> perRecordKeys(Random rnd) {
    return fill(
        MAX_RECORDS,
        i -> {
          StringBuilder v = new StringBuilder(600).append("{\"id\":").append(i);
          for (int k = 0; k < 20; k++) {
            v.append(",\"dev-").append(i).append('-').append(k).append("\":");
            v.append(rnd.nextInt(1_000_000)).append('.').append(rnd.nextInt(100));
          }
          return v.append('}').toString();
        });
  }

  /** Records of 5,000 fields each, as many as fit in 6 MB. */
  static List<Rec> fiveThousandFields(Random rnd) {
    String sample = wide(rnd, 0);
    int count = Math.min(MAX_RECORDS, MAX_VALUE_BYTES / sample.length());
    return fill(count, i -> wide(rnd, i));
  }

  private static String wide(Random rnd, int i) {
    StringBuilder v = new StringBuilder(60_000).append("{\"id\":").append(i);
    for (int f = 0; f < 5_000; f++) {
      v.append(",\"field_").append(f).append("\":").append(rnd.nextInt(100_000));
    }
    return v.append('}').toString();
  }

  /** 10,000 records nested 100 levels deep. */
  static List<Rec> hundredDeep(Random rnd) {
    return fill(
        MAX_RECORDS,
        i -> {
          StringBuilder v = new StringBuilder(700).append("{\"id\":").append(i).append(",\"n\":");
          for (int d = 0; d < 100; d++) {
            v.append(d % 2 == 0 ? "{\"a\":" : "[");
          }
          v.append(rnd.nextInt(1000));
          for (int d = 99; d >= 0; d--) {
            v.append(d % 2 == 0 ? "}" : "]");
          }
          return v.append('}').toString();
        });
  }

  /** Records holding one array of 100,000 numbers each (about 0.6 MB), as many as fit in 6 MB. */
  static List<Rec> hundredThousandElementArrays(Random rnd) {
    return fill(
        9,
        i -> {
          StringBuilder v =
              new StringBuilder(700_000).append("{\"id\":").append(i).append(",\"a\":[");
          for (int e = 0; e < 100_000; e++) {
            v.append(e == 0 ? "" : ",").append(rnd.nextInt(100_000));
          }
          return v.append("]}").toString();
        });
  }

  /** One 5 MB string among a few small records. */
  static List<Rec> fiveMegabyteString(Random rnd) {
    return fill(
        200,
        i -> {
          if (i != 50) {
            return "{\"id\":" + i + ",\"s\":\"small\"}";
          }
          StringBuilder v = new StringBuilder(5_000_100).append("{\"id\":").append(i);
          v.append(",\"s\":\"");
          for (int c = 0; c < 5_000_000; c++) {
            v.append((char) ('a' + rnd.nextInt(26)));
          }
          return v.append("\"}").toString();
        });
  }

  /** 10,000 records whose fields change JSON kind from record to record. */
  static List<Rec> mixedTypes(Random rnd) {
    String[] kinds = {
      "1",
      "10.5",
      "-0.0",
      "1.0e5",
      "0.0000001",
      "123456789012345678901234567890",
      "1e-12",
      "true",
      "null",
      "\"text\"",
      "{\"x\":[1,2]}",
      "[]",
      "\"2026-01-01T00:00:00Z\""
    };
    return fill(
        MAX_RECORDS,
        i -> {
          StringBuilder v = new StringBuilder(300).append("{\"id\":").append(i);
          for (int f = 0; f < 8; f++) {
            v.append(",\"f").append(f).append("\":").append(kinds[rnd.nextInt(kinds.length)]);
          }
          return v.append('}').toString();
        });
  }

  /** Keys that differ only in case, or only in Unicode normalisation (NFC vs NFD). */
  static List<Rec> caseAndNormalisationKeys(Random rnd) {
    String nfc = Normalizer.normalize("café", Normalizer.Form.NFC);
    String nfd = Normalizer.normalize("café", Normalizer.Form.NFD);
    return fill(
        MAX_RECORDS,
        i ->
            "{\"id\":"
                + i
                + ",\"Name\":"
                + rnd.nextInt(9)
                + ",\"name\":\"n\",\"NAME\":true,\""
                + nfc
                + "\":1,\""
                + nfd
                + "\":2,\"kafka_offset\":\"mine\",\"_overflow\":\"mine too\"}");
  }

  /** Empty keys, at the top and nested. */
  static List<Rec> emptyKeys(Random rnd) {
    return fill(
        MAX_RECORDS,
        i ->
            i % 2 == 0
                ? "{\"\":" + rnd.nextInt(100) + ",\"id\":" + i + "}"
                : "{\"id\":" + i + ",\"\":{\"\":\"\"},\"_\":1}");
  }

  private static List<Rec> fill(int count, java.util.function.IntFunction<String> value) {
    List<Rec> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String v;
      if (i % 97 == 96) {
        v = null;
      } else if (i % 101 == 100) {
        v = "not json " + i;
      } else {
        v = value.apply(i);
      }
      records.add(
          new Rec(
              "shapes",
              i % 3,
              i / 3,
              BASE_TIME + i,
              ("k" + i).getBytes(StandardCharsets.UTF_8),
              v == null ? null : v.getBytes(StandardCharsets.UTF_8)));
    }
    return records;
  }
}
