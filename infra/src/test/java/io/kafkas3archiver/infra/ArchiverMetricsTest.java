package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * infra's copy of the metric names against the function's source: infra may not depend on the
 * function's classes, so the text of EmfMetrics.java is the reference.
 */
class ArchiverMetricsTest {
  static final Path EMF =
      Path.of("..", "function/src/main/java/io/kafkas3archiver/report/EmfMetrics.java");
  static final Pattern ENUM_ENTRY =
      Pattern.compile(
          "^\\s*([A-Z][A-Z0-9_]*)\\(\"([A-Za-z0-9]+)\", \"([A-Za-z]+)\"\\)[,;]", Pattern.MULTILINE);

  static String source;

  @BeforeAll
  static void read() throws Exception {
    source = Files.readString(EMF);
  }

  @Test
  void shouldNameTheSameMetricsWithTheSameUnitsInTheSameOrderAsTheFunction() {
    List<String> function = new ArrayList<>();
    Matcher m = ENUM_ENTRY.matcher(source);
    while (m.find()) {
      function.add(m.group(1) + " " + m.group(2) + " " + m.group(3));
    }
    List<String> infra =
        Arrays.stream(ArchiverMetrics.values())
            .map(x -> x.name() + " " + x.metricName() + " " + x.unit())
            .toList();
    assertThat(infra).hasSize(12).isEqualTo(function);
  }

  @Test
  void shouldUseTheFunctionsNamespace() {
    assertThat(source)
        .contains("NAMESPACE = \"" + ArchiverMetrics.NAMESPACE + "\";")
        .contains("KafkaS3Archiver");
  }

  @Test
  void shouldAlarmOnADimensionSetTheFunctionEmitsOnItsOwn() {
    // The [Title] set: a Title array of its own among the Dimensions.
    assertThat(source)
        .containsPattern(
            "writeStartArray\\(\\);\\s*g\\.writeString\\(\""
                + ArchiverMetrics.TITLE_DIMENSION
                + "\"\\);\\s*g\\.writeEndArray\\(\\);");
  }
}
