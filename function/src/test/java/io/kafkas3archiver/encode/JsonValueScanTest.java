package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-pass scan against the Jackson paths it stands in front of: for every input, {@link
 * Payload#classify} must give what {@link Payload#classifyWithJackson} gives, and {@link
 * TabularBatch#parse} what {@link TabularBatch#parseWithJackson} gives (fields, or the reason with
 * Jackson's own message). First a corpus of awkward inputs, then random JSON documents and byte
 * mutations of them; {@code -Djsonscan.seed=N} replays a run, {@code -Djsonscan.cases=N} sets its
 * size.
 */
class JsonValueScanTest {
  private final JsonValueScan scan = new JsonValueScan();
  private final ObjectFields fields = new ObjectFields();
  private int sure;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(int... values) {
    byte[] b = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      b[i] = (byte) values[i];
    }
    return b;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static String describe(Payload p) {
    return switch (p) {
      case Payload.Json j -> "json " + new String(j.singleLine(), StandardCharsets.UTF_8);
      case Payload.Text t -> "text " + t.text();
      case Payload.Binary b -> "binary " + Base64.getEncoder().encodeToString(b.bytes());
    };
  }

  /** Both sides agree on {@code input}; says which, for the failure message. */
  private void check(byte[] input) {
    Payload jackson = Payload.classifyWithJackson(Json.FACTORY, input);
    Payload fast = Payload.classify(scan, input);
    String shown = shown(input);
    assertThat(describe(fast)).as("classify %s", shown).isEqualTo(describe(jackson));
    if (jackson instanceof Payload.Json j && j.singleLine() == input) {
      assertThat(fast).as("no copy of %s", shown).isInstanceOf(Payload.Json.class);
      assertThat(((Payload.Json) fast).singleLine()).as("no copy of %s", shown).isSameAs(input);
    }
    Object old = TabularBatch.parseWithJackson(input);
    Object now = TabularBatch.parse(input, fields);
    assertThat(now).as("parse %s", shown).isEqualTo(old);
    if (scan.scan(input)) {
      sure++;
    }
  }

  private static String shown(byte[] input) {
    String text = new String(input, 0, Math.min(input.length, 300), StandardCharsets.ISO_8859_1);
    return "[" + input.length + " bytes] " + text.replace("\n", "\\n").replace("\r", "\\r");
  }

  private static String repeat(String s, int n) {
    return s.repeat(n);
  }

  private static String nested(String open, String close, int depth, String inner) {
    return repeat(open, depth) + inner + repeat(close, depth);
  }

  private static String objectWithKeys(int count, String last) {
    StringBuilder s = new StringBuilder("{");
    for (int i = 0; i < count; i++) {
      s.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
    }
    if (last != null) {
      s.append(",\"").append(last).append("\":0");
    }
    return s.append('}').toString();
  }

  static List<byte[]> corpus() {
    List<String> texts =
        new ArrayList<>(
            List.of(
                "",
                " ",
                " \t\r\n",
                "{}",
                "[]",
                "{\"a\":1}",
                " {\"a\":1} ",
                "\t{\"a\":1}\r\n",
                "{\"a\":1}\n",
                "{\n\"a\":1}",
                "{\"a\":\r1}",
                "{\"a\":1} x",
                "{\"a\":1}{\"b\":2}",
                "{\"a\":1} {\"b\":2}",
                "1 2",
                "[1] [2]",
                "\"a\"\"b\"",
                "truefalse",
                "true false",
                "true-1",
                "1-1",
                "1x",
                "[1x]",
                "[truex]",
                "[true1]",
                "[nul]",
                "nul",
                "True",
                "NaN",
                "-Infinity",
                "Infinity",
                "[NaN]",
                "0",
                "-0",
                "00",
                "01",
                "-01",
                "[01]",
                "{\"a\":01}",
                "+1",
                "[+1]",
                ".5",
                "[.5]",
                "1.",
                "[1.]",
                "1.e5",
                "1e",
                "1e+",
                "1E-5",
                "1E05",
                "0.0e-0",
                "-0.5E+10",
                "-",
                "[-]",
                "--1",
                "1.5.3",
                "0x10",
                "1_000",
                "{\"a\":1,}",
                "[1,]",
                "[,1]",
                "[1,,2]",
                "{,}",
                "{\"a\"}",
                "{\"a\":}",
                "{\"a\" 1}",
                "{\"a\"::1}",
                "{'a':1}",
                "['a']",
                "{a:1}",
                "{\"a\":1 \"b\":2}",
                "[1 2]",
                "{\"a\":[1,2}",
                "[1,2}",
                "{\"a\":1]",
                "[",
                "{",
                "\"",
                "\"abc",
                "{\"a",
                "{\"a\":",
                "]",
                "}",
                ":",
                ",",
                "// c\n{}",
                "{} // c",
                "/* c */ {}",
                "{\"a\":/*c*/1}",
                "# c\n{}",
                "{\"a\":1,\"a\":2}",
                "{\"a\":1,\"b\":{\"a\":2}}",
                "{\"a\":{\"b\":1,\"b\":2}}",
                "[{\"a\":1,\"a\":1}]",
                "{\"a\":1,\"\\u0061\":2}",
                "{\"\\u0061\":1}",
                "{\"a\\\"b\":1}",
                "{\"\":1,\"\":2}",
                "{\"\":1}",
                "{\"é\":1,\"é\":2}",
                "{\"é\":1,\"e\\u0301\":2}",
                "{\"ab\":1,\"a\":2,\"abc\":3}",
                "\"\\u0000\"",
                "\"\\uD800\"",
                "\"\\uDC00\"",
                "\"\\uD83D\\uDE00\"",
                "{\"s\":\"\\uD83D\\uDE00\",\"t\":\"\\uDE00\\uD83D\"}",
                "\"\\u00e9\\u00E9\"",
                "\"\\u12\"",
                "\"\\u12G4\"",
                "\"\\x41\"",
                "\"\\a\"",
                "\"\\'\"",
                "\"\\/\"",
                "{\"s\":\"\\/\\\\\\\"\\b\\f\\n\\r\\t\"}",
                "{\"n\":[\"\\/\"]}",
                "{\"n\":[\"\\u0041\"]}",
                "{\"n\":{\"k\":\"a\\nb\"}}",
                "\"a\tb\"",
                "\"a\nb\"",
                "\"a\u001fb\"",
                "\"a\u007fb\"",
                "{\"s\":\"a\u007fb\"}",
                "{\"s\":\"\u2028\u2029\"}",
                "{\"n\":[\"\u2028\"]}",
                "{\"n\":[\"é😀\"]}",
                "\"😀\"",
                "{\"😀\":\"😀\"}",
                "{\"a\" : 1 , \"b\" : [ 1 , 2 ] , \"c\" : { \"d\" : null } }",
                "{\"a\":{\"b\": \"x y\",\t\"c\":[1, \"2 3\"]}}",
                "{\r\n  \"a\": [\r\n    1\r\n  ]\r\n}\r\n",
                "[\n]",
                "{\n}",
                "{\"a\":{}}",
                "{\"a\":[]}",
                "{\"a\":{ }}",
                "{\"a\":[ ]}",
                "{\"a\":true,\"b\":false,\"c\":null,\"d\":\"\",\"e\":-0.0}",
                "{\"n\":1.0e5,\"m\":1E+05,\"o\":-12.50}",
                "{\"n\":[1.0e5,1E+05,-12.50]}",
                "\u00a0{}",
                "{}\u00a0",
                "\u000b{}",
                "\f{}",
                "{\"a\":1}\u0000",
                "\u0000{}",
                "\"\u0000\"",
                "\uFEFF{}",
                "\uFEFF{\"a\":1}",
                "\uFEFF\"a\"",
                "{}\uFEFF",
                "\"\uFEFF\"",
                "null",
                "true",
                "false",
                "\"null\"",
                " null ",
                "[null,true,false]",
                "123",
                "\"abc\"",
                "[\"a\",{\"b\":[]}]"));
    for (int depth : new int[] {62, 63, 64, 65, 66, 1_999, 2_000, 2_001}) {
      texts.add(nested("[", "]", depth, "1"));
      texts.add(nested("{\"a\":", "}", depth, "1"));
      texts.add("{\"x\":" + nested("[", "]", depth - 1, "1") + "}");
      texts.add("{\"x\":" + nested("{\"a\":", "}", depth - 1, "{}") + "}");
    }
    for (int digits : new int[] {999, 1_000, 1_001, 99_999, 100_000, 100_001}) {
      String many = "1" + "0".repeat(digits - 1);
      texts.add(many);
      texts.add("-" + many);
      texts.add("{\"n\":" + many + "}");
      texts.add("{\"n\":0." + many + "}");
      texts.add("{\"n\":1e" + many + "}");
      texts.add("[" + many + "]");
    }
    for (int keys : new int[] {63, 64, 65, 66}) {
      texts.add(objectWithKeys(keys, null));
      texts.add(objectWithKeys(keys - 1, "k0"));
      texts.add(objectWithKeys(keys - 1, "k" + (keys - 2)));
      texts.add("[" + objectWithKeys(keys, null) + "]");
    }
    for (int length : new int[] {999, 1_000, 1_001, 49_999, 50_000, 50_001}) {
      texts.add("{\"" + "k".repeat(length) + "\":1}");
    }
    texts.add("{\"s\":\"" + "x".repeat(3_000_000) + "\"}");
    texts.add("\"" + "é".repeat(500_000) + "\"");
    texts.add("[" + "\"a\",".repeat(100_000) + "\"b\"]");
    List<byte[]> corpus = new ArrayList<>();
    for (String t : texts) {
      corpus.add(utf8(t));
      if (t.length() < 10_000 && (t.startsWith("{") || t.startsWith("["))) {
        // The same value over two lines: json/ndjson then compact it.
        corpus.add(utf8(t.charAt(0) + "\r\n " + t.substring(1)));
      }
    }
    byte[] quote = utf8("\"");
    byte[][] invalidUtf8 = {
      bytes(0x80), // lone continuation
      bytes(0xbf),
      bytes(0xc0, 0xaf), // overlong
      bytes(0xc1, 0xbf),
      bytes(0xc2), // truncated
      bytes(0xc3, 0x28), // bad continuation
      bytes(0xe0, 0x80, 0xaf), // overlong 3
      bytes(0xe0, 0x9f, 0xbf),
      bytes(0xe2, 0x82), // truncated 3
      bytes(0xed, 0xa0, 0x80), // surrogate
      bytes(0xed, 0xbf, 0xbf),
      bytes(0xf0, 0x80, 0x80, 0xaf), // overlong 4
      bytes(0xf0, 0x8f, 0xbf, 0xbf),
      bytes(0xf4, 0x90, 0x80, 0x80), // above U+10FFFF
      bytes(0xf5, 0x80, 0x80, 0x80),
      bytes(0xf0, 0x9f, 0x98), // truncated 4
      bytes(0xfe),
      bytes(0xff),
      bytes(0xfe, 0xff),
      bytes(0xff, 0xfe)
    };
    byte[][] validUtf8 = {
      bytes(0xc2, 0x80),
      bytes(0xdf, 0xbf),
      bytes(0xe0, 0xa0, 0x80),
      bytes(0xed, 0x9f, 0xbf),
      bytes(0xee, 0x80, 0x80),
      bytes(0xef, 0xbf, 0xbf),
      bytes(0xf0, 0x90, 0x80, 0x80),
      bytes(0xf4, 0x8f, 0xbf, 0xbf)
    };
    for (byte[][] group : new byte[][][] {invalidUtf8, validUtf8}) {
      for (byte[] seq : group) {
        corpus.add(concat(quote, seq, quote));
        corpus.add(concat(utf8("{\"s\":\""), seq, utf8("\"}")));
        corpus.add(concat(utf8("{\""), seq, utf8("\":1}")));
        corpus.add(concat(utf8("[1,"), seq, utf8("]")));
        corpus.add(seq);
        corpus.add(concat(utf8("{\"a\":1}"), seq));
        corpus.add(concat(seq, utf8("{\"a\":1}")));
      }
    }
    // UTF-16 and UTF-32 with and without their byte-order marks: Jackson's bootstrapper sniffs
    // them.
    corpus.add("{\"a\":1}".getBytes(StandardCharsets.UTF_16BE));
    corpus.add("{\"a\":1}".getBytes(StandardCharsets.UTF_16LE));
    corpus.add("{\"a\":1}".getBytes(StandardCharsets.UTF_16));
    corpus.add(concat(bytes(0, 0, 0), utf8("{")));
    corpus.add(bytes(0));
    // NULs among the first four bytes: Jackson's byte parser would guess UTF-16 or UTF-32.
    corpus.addAll(NUL_STARTS);
    return corpus;
  }

  private static final List<byte[]> NUL_STARTS =
      List.of(
          concat(utf8("\""), bytes(0, 0, 0, 0)),
          concat(utf8("{"), bytes(0, 0, 0)),
          concat(utf8("{\"a\""), bytes(0)),
          concat(utf8("["), bytes(0)),
          concat(bytes(0), utf8("\"")),
          concat(utf8("1"), bytes(0, 0), utf8("2")),
          // Valid UTF-8 (a NUL is), and valid JSON only to a parser that guesses UTF-16 or 32.
          "{\"a\":1}".getBytes(StandardCharsets.UTF_16LE),
          "{\"a\":1}".getBytes(java.nio.charset.Charset.forName("UTF-32LE")));

  @Test
  void shouldRejectAValueWithNulsAmongItsFirstBytesAsNotJson() {
    for (byte[] input : NUL_STARTS) {
      // Seed 3932289111901 found the first: the reference threw instead of answering, which
      // would have failed a whole csv or parquet batch for one record.
      assertThat(TabularBatch.parseWithJackson(input))
          .as(shown(input))
          .asString()
          .startsWith("not JSON: ");
    }
    for (byte[] input : NUL_STARTS) {
      // json and ndjson embed a JSON value as received: one read as UTF-16 would put NULs and
      // another encoding into the file. Not JSON as UTF-8, it is kept as a string.
      assertThat(Payload.classify(scan, input)).as(shown(input)).isInstanceOf(Payload.Text.class);
    }
    List<io.kafkas3archiver.decode.KafkaRecord> records =
        io.kafkas3archiver.testing.Records.ofValues("{\"a\":1}", "{\"a\":2}");
    records =
        List.of(
            records.get(0),
            new io.kafkas3archiver.decode.KafkaRecord(
                "t",
                0,
                5,
                1783955045000L,
                "CREATE_TIME",
                null,
                NUL_STARTS.get(0),
                List.of(),
                null,
                null),
            records.get(1));
    TabularBatch batch = TabularBatch.read(records, "parquet", false);
    assertThat(batch.rows()).hasSize(2);
    assertThat(batch.rejected()).singleElement();
  }

  @Test
  void shouldAgreeWithJacksonOnEveryAwkwardInput() {
    List<byte[]> corpus = corpus();
    for (byte[] input : corpus) {
      check(input);
    }
    // The corpus must reach the fast path too, else it only tests Jackson against itself.
    assertThat(sure).isGreaterThan(60);
  }

  @Test
  void shouldAgreeWithJacksonOnRandomDocumentsAndTheirMutations() {
    long seed = Long.getLong("jsonscan.seed", System.nanoTime());
    int cases = Integer.getInteger("jsonscan.cases", 200_000);
    System.out.println(
        "JsonValueScanTest seed " + seed + " (replay: -Djsonscan.seed=" + seed + ")");
    Random random = new Random(seed);
    Documents documents = new Documents(random);
    int valid = 0;
    for (int n = 0; n < cases; n++) {
      byte[] doc = documents.root();
      int mutations = random.nextBoolean() ? 0 : 1 + random.nextInt(3);
      for (int m = 0; m < mutations; m++) {
        doc = documents.mutate(doc);
      }
      int before = sure;
      try {
        check(doc);
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + ", case " + n + ": " + e.getMessage(), e);
      } catch (RuntimeException e) {
        // Either side throwing, rather than answering, is a failure too: name the input.
        throw new AssertionError("seed " + seed + ", case " + n + ", " + shown(doc) + ": " + e, e);
      }
      valid += sure - before;
    }
    System.out.println(
        "JsonValueScanTest "
            + cases
            + " cases, "
            + valid
            + " read in one pass, the rest by Jackson");
    // Both sides must be exercised: plenty of values the scan is sure of, and plenty it is not.
    assertThat(valid).isBetween(cases / 5, cases - cases / 10);
  }

  /** Random JSON, mostly objects, with the edges the grammar cares about, and byte mutations. */
  private static final class Documents {
    private static final String[] KEYS = {
      "id", "name", "a", "b", "é", "😀", "", "price", "tags", "nested"
    };
    private static final String[] ESCAPED_KEYS = {"a\\u0062", "k\\\"q", "\\/"};
    private static final String[] NUMBERS = {
      "0",
      "-0",
      "1",
      "-1",
      "12.50",
      "1e5",
      "1E+05",
      "-0.0e-0",
      "123456789012345678901234567890",
      "3.141592653589793238462643383279",
      "9007199254740993",
      "1.0",
      "2E-3"
    };
    private static final String[] STRINGS = {
      "",
      "plain",
      "with space",
      "é",
      "😀",
      "\\n",
      "\\\"",
      "\\\\",
      "\\/",
      "\\u00e9",
      "\\uD83D\\uDE00",
      "\\uD800",
      "\\uDFFF",
      "\u2028",
      "\u007f",
      "tab\\tend",
      "a/b",
      "{\\\"x\\\":1}"
    };
    private static final byte[] ALPHABET =
        "{}[]:,\"\\ \t\r\n0123456789-+.eEtrufalsn/u'#*xé".getBytes(StandardCharsets.UTF_8);
    private static final int[] ODD_BYTES = {
      0x00, 0x01, 0x1f, 0x7f, 0x80, 0xa0, 0xa9, 0xbb, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xef, 0xf0,
      0xf4, 0xf5, 0x9f, 0xfe, 0xff
    };

    private final Random random;

    Documents(Random random) {
      this.random = random;
    }

    byte[] root() {
      StringBuilder s = new StringBuilder();
      space(s, true);
      if (random.nextInt(8) == 0) {
        value(s, 0);
      } else {
        object(s, 0);
      }
      space(s, true);
      return utf8(s.toString());
    }

    private void space(StringBuilder s, boolean outer) {
      int pick = random.nextInt(outer ? 6 : 10);
      switch (pick) {
        case 0 -> s.append(' ');
        case 1 -> s.append(random.nextBoolean() ? "\n" : "\r\n");
        case 2 -> s.append(" \t ");
        default -> {}
      }
    }

    private void value(StringBuilder s, int depth) {
      int pick = random.nextInt(depth > 4 ? 6 : 9);
      switch (pick) {
        case 0, 1 -> s.append(NUMBERS[random.nextInt(NUMBERS.length)]);
        case 2, 3 -> string(s);
        case 4 -> s.append("true");
        case 5 -> s.append(random.nextBoolean() ? "false" : "null");
        case 6, 7 -> object(s, depth + 1);
        default -> array(s, depth + 1);
      }
    }

    private void string(StringBuilder s) {
      s.append('"');
      int parts = random.nextInt(3);
      for (int i = 0; i < parts; i++) {
        s.append(STRINGS[random.nextInt(STRINGS.length)]);
      }
      s.append('"');
    }

    private void object(StringBuilder s, int depth) {
      s.append('{');
      int members = random.nextInt(depth == 0 ? 8 : 4);
      for (int i = 0; i < members; i++) {
        if (i > 0) {
          space(s, false);
          s.append(',');
        }
        space(s, false);
        String key =
            random.nextInt(40) == 0
                ? ESCAPED_KEYS[random.nextInt(ESCAPED_KEYS.length)]
                : KEYS[random.nextInt(KEYS.length)];
        s.append('"').append(random.nextInt(12) == 0 ? key : key + i).append('"');
        space(s, false);
        s.append(':');
        space(s, false);
        value(s, depth);
      }
      space(s, false);
      s.append('}');
    }

    private void array(StringBuilder s, int depth) {
      s.append('[');
      int items = random.nextInt(4);
      for (int i = 0; i < items; i++) {
        if (i > 0) {
          s.append(',');
        }
        space(s, false);
        value(s, depth);
      }
      s.append(']');
    }

    byte[] mutate(byte[] doc) {
      int at = doc.length == 0 ? 0 : random.nextInt(doc.length);
      byte b =
          random.nextInt(4) == 0
              ? (byte) ODD_BYTES[random.nextInt(ODD_BYTES.length)]
              : ALPHABET[random.nextInt(ALPHABET.length)];
      return switch (random.nextInt(4)) {
        case 0 -> {
          if (doc.length == 0) {
            yield new byte[] {b};
          }
          byte[] copy = doc.clone();
          copy[at] = random.nextBoolean() ? b : (byte) (copy[at] ^ (1 << random.nextInt(8)));
          yield copy;
        }
        case 1 -> {
          byte[] copy = new byte[doc.length + 1];
          System.arraycopy(doc, 0, copy, 0, at);
          copy[at] = b;
          System.arraycopy(doc, at, copy, at + 1, doc.length - at);
          yield copy;
        }
        case 2 -> {
          if (doc.length == 0) {
            yield doc;
          }
          byte[] copy = new byte[doc.length - 1];
          System.arraycopy(doc, 0, copy, 0, at);
          System.arraycopy(doc, at + 1, copy, at, doc.length - at - 1);
          yield copy;
        }
        default -> {
          // A slice of the document repeated where it was: duplicate keys, doubled values.
          int to = Math.min(doc.length, at + 1 + random.nextInt(12));
          byte[] slice = Arrays.copyOfRange(doc, at, to);
          yield concat(
              Arrays.copyOfRange(doc, 0, to), slice, Arrays.copyOfRange(doc, to, doc.length));
        }
      };
    }
  }
}
