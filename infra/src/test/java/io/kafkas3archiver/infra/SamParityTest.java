package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.assertions.Template;

/**
 * template.yaml and the CDK stack, given the same configuration, set the same environment variable
 * names, grant the same S3, Secrets Manager, STS and X-Ray actions on the same resources, declare
 * the same alarms (logical id, metrics, dimensions, statistic, threshold, actions) and graph the
 * same metrics and alarms on the dashboard.
 */
class SamParityTest {
  static final Path TEMPLATE = Path.of("..", "template.yaml");
  static final String BUCKET = "acme-kafka-archive";
  static final String ALARM_TOPIC = "arn:aws:sns:us-east-1:123456789012:ops";

  /** The one function, whichever of SAM's three conditional functions it is. */
  static final Pattern FUNCTION_REF = Pattern.compile("\\$\\{(Archiver)?Function}");

  /** One configuration, in the CDK app's keys and in template.yaml's parameters. */
  record Deployment(Map<String, Object> cdk, Map<String, String> sam) {}

  /** Each CDK stack is synthesized once for the three checks. */
  private static final Map<Map<String, Object>, Template> SYNTHESIZED = new ConcurrentHashMap<>();

  static Template cdk(Deployment d) {
    return SYNTHESIZED.computeIfAbsent(d.cdk(), c -> Template.fromStack(Fixtures.stack(c)));
  }

  static Stream<Arguments> deployments() {
    Map<String, Object> mskCdk = new LinkedHashMap<>(Fixtures.mskDefaults());
    mskCdk.put("bucketName", BUCKET);
    Map<String, String> mskSam =
        Map.of(
            "Title",
            "S3_Event_Archive_Prod",
            "BucketName",
            BUCKET,
            "InputTopic",
            "vehicle-telemetry",
            "ClusterArn",
            Fixtures.CLUSTER_ARN);

    Map<String, String> smSam = new LinkedHashMap<>();
    smSam.put("Title", "S3_Event_Archive_Prod");
    smSam.put("BucketName", BUCKET);
    smSam.put("CreateBucket", "false");
    smSam.put("BucketRegion", "eu-west-1");
    smSam.put("InputTopic", "vehicle-telemetry");
    smSam.put("SourceType", "self-managed");
    smSam.put("BootstrapServers", "b-1.example.com:9096,b-2.example.com:9096");
    smSam.put("SaslScramSecretArn", Fixtures.SCRAM_SECRET_ARN);
    smSam.put("SubnetIds", "subnet-0aaa,subnet-0bbb");
    smSam.put("SecurityGroupIds", "sg-0ccc");
    smSam.put("CredentialsSecretArn", Fixtures.CREDENTIALS_SECRET_ARN);
    smSam.put("RoleArn", Fixtures.ROLE_ARN);
    smSam.put("ExternalId", "archiver-external-id");
    smSam.put("Sse", "aws:kms");
    smSam.put("KmsKeyArn", Fixtures.KMS_KEY_ARN);
    smSam.put("ProvisionedPollers", "false");

    Map<String, Object> scramCdk = new LinkedHashMap<>(Fixtures.mskDefaults());
    scramCdk.put("bucketName", BUCKET);
    scramCdk.put("mskAuth", "scram");
    scramCdk.put("saslScramSecretArn", Fixtures.SCRAM_SECRET_ARN);
    scramCdk.put("sourceSecretsKmsKeyArn", Fixtures.SECRETS_KEY_ARN);
    scramCdk.put("onFailure", "s3");
    scramCdk.put("onFailureBucketArn", "arn:aws:s3:::acme-failed-batches");
    scramCdk.put("createCredentialsSecret", "true");
    scramCdk.put("endpointUrlS3", "https://minio.example.com:9000");
    scramCdk.put("s3ForcePathStyle", "true");
    scramCdk.put("tracing", "true");
    scramCdk.put("uploadRetriesThreshold", "25");
    scramCdk.put("batchAgeThresholdMs", "600000");
    scramCdk.put("offsetLagThreshold", "5000");
    scramCdk.put("alarmTopicArn", ALARM_TOPIC);
    scramCdk.put("expectedBucketOwner", "123456789012");
    scramCdk.put("outputFormat", "parquet");
    scramCdk.put("parquetSchema", "{\"vehicleId\":\"string\",\"speedKmh\":\"number\"}");
    Map<String, String> scramSam = new LinkedHashMap<>(mskSam);
    scramSam.put("MskAuth", "scram");
    scramSam.put("SaslScramSecretArn", Fixtures.SCRAM_SECRET_ARN);
    scramSam.put("SourceSecretsKmsKeyArn", Fixtures.SECRETS_KEY_ARN);
    scramSam.put("OnFailure", "s3");
    scramSam.put("OnFailureBucketArn", "arn:aws:s3:::acme-failed-batches");
    scramSam.put("CreateCredentialsSecret", "true");
    scramSam.put("EndpointUrlS3", "https://minio.example.com:9000");
    scramSam.put("S3ForcePathStyle", "true");
    scramSam.put("Tracing", "true");
    scramSam.put("UploadRetriesThreshold", "25");
    scramSam.put("BatchAgeThresholdMs", "600000");
    scramSam.put("OffsetLagThreshold", "5000");
    scramSam.put("AlarmTopicArn", ALARM_TOPIC);
    scramSam.put("ExpectedBucketOwner", "123456789012");
    scramSam.put("OutputFormat", "parquet");
    scramSam.put("ParquetSchema", "{\"vehicleId\":\"string\",\"speedKmh\":\"number\"}");

    Map<String, Object> registryCdk = new LinkedHashMap<>(mskCdk);
    registryCdk.put("schemaRegistryUri", "https://registry.example.com:8081");
    registryCdk.put("schemaRegistryAuth", "basic");
    registryCdk.put("schemaRegistrySecretArn", InfraMatrix.REGISTRY_SECRET_ARN);
    registryCdk.put("outputFormat", "parquet");
    Map<String, String> registrySam = new LinkedHashMap<>(mskSam);
    registrySam.put("SchemaRegistryUri", "https://registry.example.com:8081");
    registrySam.put("SchemaRegistryAuth", "basic");
    registrySam.put("SchemaRegistrySecretArn", InfraMatrix.REGISTRY_SECRET_ARN);
    registrySam.put("OutputFormat", "parquet");

    Map<String, Object> icebergCdk = new LinkedHashMap<>(mskCdk);
    icebergCdk.put("outputFormat", "iceberg");
    icebergCdk.put("icebergDatabase", "archive");
    icebergCdk.put("icebergTable", "vehicle_telemetry");
    icebergCdk.put("icebergMaintenanceRateHours", "12");
    icebergCdk.put("icebergTargetFileMb", "256");
    icebergCdk.put("bucketEncryption", "kms");
    icebergCdk.put("alarmTopicArn", ALARM_TOPIC);
    Map<String, String> icebergSam = new LinkedHashMap<>(mskSam);
    icebergSam.put("OutputFormat", "iceberg");
    icebergSam.put("IcebergDatabase", "archive");
    icebergSam.put("IcebergTable", "vehicle_telemetry");
    icebergSam.put("IcebergMaintenanceRateHours", "12");
    icebergSam.put("IcebergTargetFileMb", "256");
    icebergSam.put("BucketEncryption", "kms");
    icebergSam.put("AlarmTopicArn", ALARM_TOPIC);

    Map<String, Object> s3tablesCdk = new LinkedHashMap<>(mskCdk);
    s3tablesCdk.put("outputFormat", "iceberg");
    s3tablesCdk.put("icebergCatalog", "s3tables");
    s3tablesCdk.put("icebergTableBucketName", "acme-archive-tables");
    s3tablesCdk.put("icebergDatabase", "archive");
    s3tablesCdk.put("icebergTable", "vehicle_telemetry");
    s3tablesCdk.put("alarmTopicArn", ALARM_TOPIC);
    Map<String, String> s3tablesSam = new LinkedHashMap<>(mskSam);
    s3tablesSam.put("OutputFormat", "iceberg");
    s3tablesSam.put("IcebergCatalog", "s3tables");
    s3tablesSam.put("IcebergTableBucketName", "acme-archive-tables");
    s3tablesSam.put("IcebergDatabase", "archive");
    s3tablesSam.put("IcebergTable", "vehicle_telemetry");
    s3tablesSam.put("AlarmTopicArn", ALARM_TOPIC);

    return Stream.of(
        Arguments.of("msk-iam-created-bucket", new Deployment(mskCdk, mskSam)),
        Arguments.of(
            "msk-iam-iceberg-s3tables-created-table-bucket-alarm-topic",
            new Deployment(s3tablesCdk, s3tablesSam)),
        Arguments.of(
            "msk-iam-iceberg-kms-bucket-alarm-topic", new Deployment(icebergCdk, icebergSam)),
        Arguments.of(
            "msk-iam-confluent-schema-registry-basic-auth",
            new Deployment(registryCdk, registrySam)),
        Arguments.of(
            "self-managed-vpc-imported-bucket-secret-role-kms",
            new Deployment(Fixtures.selfManaged(), smSam)),
        Arguments.of(
            "msk-scram-s3-on-failure-created-secret-endpoint-tracing-alarm-topic-parquet-schema-owner",
            new Deployment(scramCdk, scramSam)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldSetTheSameEnvironmentVariableNames(String name, Deployment d) throws Exception {
    Template cdk = cdk(d);
    SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
    assertThat(sam.environment().keySet())
        .containsExactlyInAnyOrderElementsOf(Templates.environment(cdk).keySet());
  }

  /**
   * SAM can check a parameter only with a pattern, the CDK app with code; both must agree on what
   * they let through. (SAM's pattern cannot see a repeated field in PARQUET_SCHEMA, nor an
   * unknown type name or a malformed decimal/struct: it checks the shape, a JSON object of
   * "name":"type" pairs whose types are made of type characters, or glue:<database>.<table>; the
   * function refuses the rest at cold start, naming the variable and the field.)
   */
  @Test
  void shouldAcceptAndRefuseTheSameOwnersAndSchemasAsTheCdkApp() throws Exception {
    JsonNode parameters =
        new ObjectMapper(new YAMLFactory()).readTree(TEMPLATE.toFile()).path("Parameters");
    Map<String, List<String>> tried =
        Map.of(
            "expectedBucketOwner",
            List.of("123456789012", "", "12345678901", "1234567890123", "12345678901a", " 123"),
            "parquetSchema",
            List.of(
                "{\"id\":\"number\"}",
                "{ \"a\" : \"string\" , \"b\":\"json\", \"c\":\"boolean\" }",
                "{\"n\":\"bigint\",\"temp\":\"double\"}",
                "{\"n\":\"BIGINT\"}",
                "",
                "{\"id\":\"int\"}",
                "{}",
                "not json",
                "{\"id\":1}",
                "[\"id\"]",
                "{\"id\":\"number\"",
                "{\"id\":\"number\",}",
                "{\"price\":\"decimal(10,2)\",\"at\":\"timestamp\",\"loc\":\"struct<lat:double>\"}",
                "glue:analytics.orders_v1",
                "glue:analytics",
                "s3://acme-schemas/orders.json"));
    Map<String, String> disagreements = new TreeMap<>();
    int accepted = 0;
    int refused = 0;
    for (var entry : tried.entrySet()) {
      String key = entry.getKey();
      String parameter = key.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + key.substring(1);
      Pattern allowed =
          Pattern.compile(parameters.path(parameter).path("AllowedPattern").asText("(?!)"));
      for (String value : entry.getValue()) {
        Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
        c.put("outputFormat", "parquet");
        c.put(key, value);
        boolean cdk;
        try {
          ArchiverSettings.from(c);
          cdk = true;
        } catch (IllegalArgumentException e) {
          cdk = false;
        }
        boolean sam = allowed.matcher(value).matches();
        if (cdk != sam) {
          disagreements.put(key + "=" + value, "CDK " + cdk + ", SAM " + sam);
        }
        if (cdk) {
          accepted++;
        } else {
          refused++;
        }
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(accepted).isGreaterThanOrEqualTo(4);
    assertThat(refused).isGreaterThanOrEqualTo(8);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldSetTheSameEnvironmentValues(String name, Deployment d) throws Exception {
    Template cdk = cdk(d);
    SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
    assertThat(sam.environment()).isEqualTo(normalize(Templates.environment(cdk)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldGrantTheSameS3SecretsManagerStsAndXrayActionsOnTheSameResources(
      String name, Deployment d) throws Exception {
    Template cdk = cdk(d);
    SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
    Set<String> samGrants = grants(sam.roleStatements());
    Set<String> cdkGrants = grants(Templates.statements(cdk));
    assertThat(samGrants).isNotEmpty().isEqualTo(cdkGrants);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldDeclareTheSameAlarmsOnTheSameMetricsDimensionsAndThresholds(String name, Deployment d)
      throws Exception {
    Template cdk = cdk(d);
    SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
    Map<String, String> samAlarms = alarms(Templates.alarms(sam.resources()));
    Map<String, String> cdkAlarms = alarms(Templates.alarms(Templates.resources(cdk)));
    assertThat(samAlarms).hasSizeGreaterThanOrEqualTo(7).isEqualTo(cdkAlarms);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldGraphTheSameMetricsOnTheDashboard(String name, Deployment d) throws Exception {
    Template cdk = cdk(d);
    SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
    assertThat(dashboardMetrics(samDashboard(sam)))
        .isEqualTo(dashboardMetrics(Templates.dashboardBody(cdk)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldShowTheSameAlarmsOnTheDashboard(String name, Deployment d) throws Exception {
    Template cdk = cdk(d);
    SamTemplate sam = new SamTemplate(TEMPLATE, d.sam());
    assertThat(new TreeSet<>(Templates.dashboardAlarms(samDashboard(sam))))
        .isEqualTo(new TreeSet<>(Templates.dashboardAlarms(Templates.dashboardBody(cdk))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("deployments")
  void shouldScheduleTheSameMaintenanceAndCountTheSameCommitFailures(String name, Deployment d)
      throws Exception {
    Map<String, Object> cdk = Templates.resources(cdk(d));
    Map<String, Map<String, Object>> sam = new SamTemplate(TEMPLATE, d.sam()).resources();
    assertThat(scheduleAndFilter(sam)).isEqualTo(scheduleAndFilter(cdk));
    if ("iceberg".equals(d.cdk().get("outputFormat"))) {
      // S3 Tables maintains its tables itself: the commit-failure filter only, no schedule.
      assertThat(scheduleAndFilter(sam))
          .hasSize("s3tables".equals(d.cdk().get("icebergCatalog")) ? 1 : 2);
    }
  }

  /** JSON with keys sorted: CDK and YAML order a map's keys differently. */
  private static String sorted(Object value) {
    try {
      return new ObjectMapper()
          .configure(
              com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The maintenance rule's schedule and target, and the commit-failure metric filter. */
  private static List<String> scheduleAndFilter(Map<String, ?> resources) throws Exception {
    List<String> out = new java.util.ArrayList<>();
    for (Object r : resources.values()) {
      Map<String, Object> resource = Templates.cast(r);
      Map<String, Object> p = Templates.cast(resource.get("Properties"));
      if ("AWS::Events::Rule".equals(resource.get("Type"))) {
        Map<String, Object> target = Templates.cast(((List<?>) p.get("Targets")).get(0));
        // Both name the published alias "live": CDK's LiveAlias, SAM's AutoPublishAlias.
        String arn = Templates.render(target.get("Arn"));
        out.add(
            "rule "
                + p.get("ScheduleExpression")
                + " "
                + p.get("State")
                + " "
                + target.get("Input")
                + " "
                + " retries="
                + Templates.render(
                    Templates.cast(target.get("RetryPolicy")).get("MaximumRetryAttempts"))
                + " alias="
                + (arn.contains("LiveAlias") || arn.contains("ArchiverFunction.Alias")));
      }
      if ("AWS::Logs::MetricFilter".equals(resource.get("Type"))) {
        out.add(
            "filter "
                + p.get("FilterPattern")
                + " "
                + Templates.render(p.get("LogGroupName"))
                + " "
                + sorted(p.get("MetricTransformations")));
      }
    }
    java.util.Collections.sort(out);
    return out;
  }

  static String samDashboard(SamTemplate sam) {
    Map<String, Object> props = Templates.cast(sam.resources().get("Dashboard").get("Properties"));
    return props.get("DashboardBody").toString();
  }

  /** Logical id to everything that decides when an alarm fires and whom it tells. */
  static Map<String, String> alarms(Map<String, Map<String, Object>> alarms) {
    Map<String, String> out = new TreeMap<>();
    alarms.forEach(
        (id, a) ->
            out.put(
                id,
                String.join(
                    " | ",
                    String.valueOf(Templates.alarmMetrics(a).stream().sorted().toList()),
                    String.valueOf(Templates.alarmExpression(a)),
                    String.valueOf(a.get("ComparisonOperator")),
                    number(a.get("Threshold")),
                    number(a.get("EvaluationPeriods")),
                    number(a.get("DatapointsToAlarm")),
                    String.valueOf(a.get("TreatMissingData")),
                    Templates.strings(a.get("AlarmActions")).toString(),
                    Templates.strings(a.get("OKActions")).toString())));
    out.replaceAll((k, v) -> FUNCTION_REF.matcher(v).replaceAll("\\${function}"));
    return out;
  }

  static Set<String> dashboardMetrics(String body) {
    Set<String> out = new TreeSet<>();
    Templates.dashboardMetrics(body)
        .forEach(m -> out.add(FUNCTION_REF.matcher(m.toString()).replaceAll("\\${function}")));
    return out;
  }

  /** CDK writes numbers, SAM parameters resolve to text: compare their values. */
  static String number(Object value) {
    return value == null
        ? "null"
        : new BigDecimal(Templates.render(value)).stripTrailingZeros().toPlainString();
  }

  /** "action on resource" for every S3, Secrets Manager, STS and X-Ray grant. */
  static Set<String> grants(List<Templates.Statement> statements) {
    Set<String> out = new TreeSet<>();
    for (Templates.Statement s : statements) {
      for (String action : s.actions()) {
        if (action.startsWith("s3:")
            || action.startsWith("secretsmanager:")
            || action.startsWith("sts:")
            || action.startsWith("xray:")) {
          s.resources().forEach(r -> out.add(action + " on " + normalize(r)));
        }
      }
    }
    return out;
  }

  /** The created bucket is named, so its ARN is known; CDK names it by GetAtt. */
  static String normalize(String value) {
    return value
        .replace("${ArchiveBucket.Arn}", "arn:${AWS::Partition}:s3:::" + BUCKET)
        .replace("${ArchiveBucket}", BUCKET);
  }

  static Map<String, String> normalize(Map<String, String> env) {
    Map<String, String> out = new LinkedHashMap<>();
    env.forEach((k, v) -> out.put(k, normalize(v)));
    return out;
  }
}
