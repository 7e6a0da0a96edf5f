package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/**
 * The function's settings are declared once, in its {@code config/Setting.java}, and generated into
 * docs/configuration.md. This module does not depend on the function's code, so it reads that
 * generated file: the CDK app and the SAM template must set exactly the declared settings.
 */
class ConfigurationParityTest {
  private static final Path DOCS = Path.of("../docs/configuration.md");
  private static final Path SAM = Path.of("../template.yaml");
  private static final String HOW =
      " Declare a setting once in function/src/main/java/io/kafkas3archiver/config/Setting.java,"
          + " run ./mvnw -q -pl function test-compile exec:java@config-docs, then set it in"
          + " ArchiverStack's environment (with its context key in ArchiverSettings) and in"
          + " template.yaml (a parameter whose Description names the variable).";

  private static Set<String> declared;
  private static Set<String> setByCdk;

  @BeforeAll
  static void read() throws IOException {
    declared = declaredSettings(Files.readString(DOCS, StandardCharsets.UTF_8));
    Map<String, Object> withEndpoint = new LinkedHashMap<>(Fixtures.mskDefaults());
    withEndpoint.put("endpointUrlS3", "https://s3.example.internal");
    setByCdk = new TreeSet<>();
    // The ICEBERG_* settings exist only with outputFormat=iceberg: Glue, and S3 Tables' REST ones.
    for (Map<String, Object> context :
        java.util.List.of(
            withEndpoint,
            Fixtures.selfManaged(),
            IcebergStackTest.icebergContext(),
            S3TablesStackTest.s3tablesContext())) {
      setByCdk.addAll(Templates.environment(Template.fromStack(Fixtures.stack(context))).keySet());
    }
  }

  @Test
  void shouldFindTheDeclaredSettingsInTheGeneratedDocs() {
    assertThat(declared).contains("BUCKET_NAME", "OUTPUT_FORMAT").hasSizeGreaterThan(10);
  }

  @Test
  void shouldSetOnlyDeclaredSettingsFromTheCdkApp() {
    assertThat(new TreeSet<>(setByCdk))
        .as("ArchiverStack sets variables the function does not declare." + HOW)
        .isSubsetOf(declared);
  }

  @Test
  void shouldLetTheCdkAppSetEveryDeclaredSetting() {
    assertThat(setByCdk)
        .as("settings the function declares that the CDK app cannot set." + HOW)
        .containsAll(declared);
  }

  @Test
  void shouldNameOnlyDeclaredSettingsInTheSamParameterDescriptions() throws IOException {
    Set<String> named = namedInSamDescriptions(Files.readString(SAM, StandardCharsets.UTF_8));

    assertThat(named).as("template.yaml names no variable; is the parser right?").isNotEmpty();
    assertThat(named)
        .as("template.yaml's parameter descriptions name undeclared variables." + HOW)
        .isSubsetOf(declared);
  }

  @Test
  void shouldOfferInSamExactlyTheLegalValuesOfEachChoice() throws IOException {
    JsonNode parameters =
        new ObjectMapper(new YAMLFactory()).readTree(SAM.toFile()).path("Parameters");
    Map<String, String> legal = legalValues(Files.readString(DOCS, StandardCharsets.UTF_8));
    Map<String, String> mismatches = new TreeMap<>();
    int checked = 0;
    for (var p : (Iterable<Map.Entry<String, JsonNode>>) parameters::fields) {
      Set<String> named =
          namedInSamDescriptions("  Description:" + p.getValue().path("Description").asText());
      JsonNode allowed = p.getValue().path("AllowedValues");
      if (named.size() != 1 || !allowed.isArray()) {
        continue;
      }
      String variable = named.iterator().next();
      Set<String> offered = new TreeSet<>();
      allowed.forEach(
          v -> {
            if (!v.asText().isEmpty()) {
              offered.add(v.asText().toLowerCase(Locale.ROOT));
            }
          });
      Set<String> declaredValues = new TreeSet<>();
      for (String v : legal.getOrDefault(variable, "").split(", ")) {
        declaredValues.add(v.toLowerCase(Locale.ROOT));
      }
      checked++;
      if (!offered.equals(declaredValues)) {
        mismatches.put(
            p.getKey() + " (" + variable + ")", offered + " but declared " + declaredValues);
      }
    }

    assertThat(checked)
        .as("SAM parameters with AllowedValues that name their variable")
        .isGreaterThanOrEqualTo(4);
    assertThat(mismatches)
        .as("template.yaml's AllowedValues differ from Setting's legal values." + HOW)
        .isEmpty();
  }

  /** The variables of the first generated table (the settings, not those Lambda sets). */
  static Set<String> declaredSettings(String docs) {
    return legalValues(docs).keySet();
  }

  /** Variable -> legal values, from the first generated table. */
  static Map<String, String> legalValues(String docs) {
    int begin = docs.indexOf("<!-- BEGIN GENERATED");
    assertThat(begin).as("docs/configuration.md has no generated table").isNotNegative();
    int end = docs.indexOf("\n\n", docs.indexOf("|---|", begin));
    Map<String, String> rows = new TreeMap<>();
    Matcher m =
        Pattern.compile("(?m)^\\| `([A-Z][A-Z0-9_]*)` \\| [^|]* \\| ([^|]*) \\|")
            .matcher(docs.substring(begin, end));
    while (m.find()) {
      rows.put(m.group(1), m.group(2));
    }
    return rows;
  }

  /**
   * Variables a SAM parameter's Description names in parentheses, e.g. "(BUCKET_NAME)": names with
   * an underscore, and one-word names that are declared (TITLE, SSE; not "(README)").
   */
  static Set<String> namedInSamDescriptions(String template) {
    Set<String> names = new TreeSet<>();
    Matcher line = Pattern.compile("(?m)^\\s+Description:(.*)$").matcher(template);
    while (line.find()) {
      Matcher v =
          Pattern.compile("\\(([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)[ )=,;]").matcher(line.group(1));
      while (v.find()) {
        if (v.group(1).contains("_") || declared.contains(v.group(1))) {
          names.add(v.group(1));
        }
      }
    }
    return names;
  }
}
