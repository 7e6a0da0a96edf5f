package io.kafkas3archiver.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fast decoder against the JDK's: never a different answer, only sometimes none. */
class Base64TextTest {

  private static byte[] jdk(String text) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static void agrees(String text) {
    byte[] fast = Base64Text.decodeUsual(text.toCharArray(), 0, text.length());
    byte[] reference = jdk(text);
    if (fast != null) {
      assertThat(reference).as("the JDK refuses '%s', the fast path decoded it", text).isNotNull();
      assertThat(fast).as("'%s'", text).isEqualTo(reference);
    }
  }

  @Test
  void shouldDecodeTheUsualFormExactlyAsTheJdk() {
    for (String text :
        new String[] {
          "", "QQ==", "QUI=", "QUJD", "eyJhIjoxfQ==", "+/+/", "////", "AAAA", "QR==", "QUJ=",
        }) {
      agrees(text);
      assertThat(Base64Text.decodeUsual(text.toCharArray(), 0, text.length()))
          .as("'%s' is of the usual form", text)
          .isNotNull();
    }
  }

  @Test
  void shouldLeaveEverythingElseToTheJdk() {
    for (String text :
        new String[] {
          "Q",
          "QQ",
          "QQ=",
          "QUJ",
          "Q===",
          "====",
          "QQ==QQ==",
          "QU=D",
          "Q UJ",
          "QUJD\n",
          "-_-_",
          "QUJDé===",
          "QUJ\u00ff",
        }) {
      agrees(text);
      assertThat(Base64Text.decodeUsual(text.toCharArray(), 0, text.length()))
          .as("'%s' is not of the usual form", text)
          .isNull();
    }
  }

  @Test
  void shouldAgreeWithTheJdkOnRandomTextAndRandomBytes() {
    long seed = Long.getLong("base64Text.seed", System.nanoTime());
    System.out.println("Base64TextTest seed " + seed + " (-Dbase64Text.seed=" + seed + ")");
    Random random = new Random(seed);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \né";
    for (int i = 0; i < 200_000; i++) {
      if (i % 2 == 0) {
        byte[] bytes = new byte[random.nextInt(40)];
        random.nextBytes(bytes);
        char[] text = Base64.getEncoder().encodeToString(bytes).toCharArray();
        if (text.length > 0 && random.nextInt(3) == 0) {
          text[random.nextInt(text.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
        }
        String s = new String(text);
        agrees(s);
        if (s.equals(Base64.getEncoder().encodeToString(bytes))) {
          assertThat(Base64Text.decodeUsual(text, 0, text.length)).isEqualTo(bytes);
        }
      } else {
        char[] text = new char[random.nextInt(4) * 4 + random.nextInt(2) * random.nextInt(4)];
        for (int j = 0; j < text.length; j++) {
          text[j] = alphabet.charAt(random.nextInt(alphabet.length()));
        }
        agrees(new String(text));
      }
    }
  }

  @Test
  void shouldReadFromTheMiddleOfABuffer() {
    char[] buffer = "xx\"QUJD\"yy".toCharArray();
    assertThat(Base64Text.decodeUsual(buffer, 3, 4)).isEqualTo(new byte[] {'A', 'B', 'C'});
  }
}
