package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link TabularValue#looksLikeJson}, which rules most text cells out without a parser, answers as
 * a parser does: the restore rebuilds values with the same answer, so a difference would change
 * what a csv or parquet row restores to.
 */
class LooksLikeJsonTest {
  private static final String ALPHABET = "0123456789-+.eE \t\n\rtrufalsxT:[]{},\"\\/n";

  @Test
  void shouldAnswerAsAParserForEveryKindOfCell() {
    SplittableRandom r = new SplittableRandom(29);
    List<String> texts = new ArrayList<>(TabularCorpus.AWKWARD_STRINGS);
    texts.addAll(TabularCorpus.NUMBERS);
    texts.addAll(
        List.of(
            "true",
            "true ",
            "true\n",
            "truex",
            "true]",
            "tru",
            "t",
            "false",
            "false\t",
            "falsey",
            "1 ",
            "1 2",
            "1\f",
            "12a",
            "-",
            "--1",
            "1e",
            "2026-07-13T15:04:05Z",
            "0x10",
            "01",
            "-Infinity",
            "NaN",
            "{}",
            "[1] ",
            "{\"a\":1}x"));
    for (int i = 0; i < 200_000; i++) {
      StringBuilder s = new StringBuilder();
      s.append("0123456789-tf".charAt(r.nextInt(13)));
      int n = r.nextInt(8);
      for (int k = 0; k < n; k++) {
        s.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
      }
      texts.add(s.toString());
    }

    for (String t : texts) {
      if (!t.isEmpty()) {
        assertThat(TabularValue.looksLikeJson(t)).as(t).isEqualTo(byParser(t));
      }
    }
  }

  /** The answer as the restore gave it before: one JSON number, boolean, object or array. */
  private static boolean byParser(String text) {
    char first = text.charAt(0);
    if (!(first == '{' || first == '[' || first == '-' || first == 't' || first == 'f')
        && !(first >= '0' && first <= '9')) {
      return false;
    }
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null || t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NULL) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }
}
