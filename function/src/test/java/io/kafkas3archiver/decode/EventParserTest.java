package io.kafkas3archiver.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The parser's base64 decoding against the JDK's on the text Jackson reads: never a different
 * answer, only sometimes none, and after either the parser goes on with the next token as if it had
 * read the string itself. Inputs come whole and in reads of a few bytes, so strings and their
 * quanta cross the parser's buffer at every position.
 */
class EventParserTest {

  private static final EventParser.Factory FACTORY = new EventParser.Factory();

  private static byte[] jdk(String text) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The input in reads of 1 to {@code most} bytes. */
  private static InputStream trickle(byte[] bytes, Random random, int most) {
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, 1 + random.nextInt(most)));
      }
    };
  }

  /**
   * Parses {@code [<json string>, 7]} with the string's base64 decoded by the parser; returns what
   * it decoded (null for none) after checking the JDK's answer and the tokens after it.
   */
  private static byte[] agrees(String json, InputStream in) throws IOException {
    try (EventParser parser = (EventParser) FACTORY.createParser(in)) {
      assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      assertThat(parser.nextToken()).isEqualTo(JsonToken.VALUE_STRING);
      byte[] fast = parser.base64Value();
      if (fast != null) {
        byte[] reference = jdk(textOf(json));
        assertThat(reference).as("the JDK refuses %s, the parser decoded it", json).isNotNull();
        assertThat(fast).as(json).isEqualTo(reference);
      }
      assertThat(parser.nextToken()).as("after %s", json).isEqualTo(JsonToken.VALUE_NUMBER_INT);
      assertThat(parser.getIntValue()).isEqualTo(7);
      assertThat(parser.nextToken()).isEqualTo(JsonToken.END_ARRAY);
      assertThat(parser.nextToken()).isNull();
      return fast;
    }
  }

  /** The string as Jackson's own parser reads it (the byte-array parser is not ours). */
  private static String textOf(String jsonString) throws IOException {
    try (var parser = FACTORY.createParser(jsonString.getBytes(StandardCharsets.UTF_8))) {
      parser.nextToken();
      return parser.getText();
    }
  }

  private static String array(String jsonString) {
    return "[" + jsonString + ",7]";
  }

  private static String quoted(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }

  private static byte[] decode(String jsonString) throws IOException {
    byte[] whole =
        agrees(
            jsonString,
            new ByteArrayInputStream(array(jsonString).getBytes(StandardCharsets.UTF_8)));
    byte[] trickled =
        agrees(
            jsonString,
            trickle(array(jsonString).getBytes(StandardCharsets.UTF_8), new Random(1), 5));
    assertThat(trickled).as("read in pieces: %s", jsonString).isEqualTo(whole);
    return whole;
  }

  @Test
  void shouldDecodeTheUsualFormExactlyAsTheJdk() throws IOException {
    for (String text :
        new String[] {
          "", "QQ==", "QUI=", "QUJD", "eyJhIjoxfQ==", "+/+/", "////", "AAAA", "QR==", "QUJ=",
        }) {
      assertThat(decode(quoted(text))).as("'%s' is of the usual form", text).isNotNull();
    }
  }

  @Test
  void shouldLeaveEverythingElseToTheJdkAndStillSkipTheString() throws IOException {
    for (String jsonString :
        new String[] {
          quoted("Q"),
          quoted("QQ"),
          quoted("QQ="),
          quoted("QUJ"),
          quoted("Q==="),
          quoted("===="),
          quoted("QQ==QQ=="),
          quoted("QU=D"),
          quoted("Q UJ"),
          quoted("QUJD\n"),
          quoted("-_-_"),
          quoted("QUJDé==="),
          quoted("QUJ\u00ff"),
          quoted("QUJD\"QUJD"),
          "\"\\u0051UJD\"",
          "\"QUJ\\u0044\"",
          "\"QU\\/D\"",
          "\"QUJDQQ=\\u003d\"",
        }) {
      assertThat(decode(jsonString)).as("%s is not of the usual form", jsonString).isNull();
    }
  }

  @Test
  void shouldAgreeWithTheJdkOnRandomTextAndRandomBytesReadInPieces() throws IOException {
    long seed = Long.getLong("eventParser.seed", System.nanoTime());
    System.out.println("EventParserTest seed " + seed + " (-DeventParser.seed=" + seed + ")");
    Random random = new Random(seed);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \né\"\\";
    for (int i = 0; i < 20_000; i++) {
      String text;
      boolean canonical = false;
      byte[] bytes = null;
      if (i % 2 == 0) {
        bytes = new byte[i % 100 == 0 ? random.nextInt(20_000) : random.nextInt(60)];
        random.nextBytes(bytes);
        char[] chars = Base64.getEncoder().encodeToString(bytes).toCharArray();
        if (chars.length > 0 && random.nextInt(3) == 0) {
          chars[random.nextInt(chars.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
        }
        text = new String(chars);
        canonical = text.equals(Base64.getEncoder().encodeToString(bytes));
      } else {
        char[] chars = new char[random.nextInt(4) * 4 + random.nextInt(2) * random.nextInt(4)];
        for (int j = 0; j < chars.length; j++) {
          chars[j] = alphabet.charAt(random.nextInt(alphabet.length()));
        }
        text = new String(chars);
      }
      String jsonString = quoted(text);
      byte[] json = array(jsonString).getBytes(StandardCharsets.UTF_8);
      byte[] fast =
          agrees(
              jsonString,
              random.nextBoolean() ? new ByteArrayInputStream(json) : trickle(json, random, 9));
      if (canonical) {
        assertThat(fast).as("canonical %s", jsonString).isEqualTo(bytes);
      }
    }
  }

  @Test
  void shouldSkipAUtf8ByteOrderMarkAndCountOffsetsFromTheFirstByte() throws IOException {
    byte[] json = "\uFEFF[\"QUJD\",7]".getBytes(StandardCharsets.UTF_8);
    try (EventParser parser = (EventParser) FACTORY.createParser(new ByteArrayInputStream(json))) {
      assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      assertThat(parser.currentLocation().getByteOffset()).isEqualTo(4);
      assertThat(parser.nextToken()).isEqualTo(JsonToken.VALUE_STRING);
      assertThat(parser.base64Value()).isEqualTo("ABC".getBytes(StandardCharsets.US_ASCII));
    }
  }

  @Test
  void shouldRefuseAnEventInUtf16OrUtf32ByName() {
    for (var charset :
        new java.nio.charset.Charset[] {
          StandardCharsets.UTF_16, StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE
        }) {
      byte[] json = "{\"records\":{}}".getBytes(charset);
      assertThatThrownBy(() -> FACTORY.createParser(new ByteArrayInputStream(json)))
          .isInstanceOf(BadEventException.class)
          .hasMessageContaining("not UTF-8")
          .hasMessageContaining("save the event file as UTF-8");
    }
  }
}
