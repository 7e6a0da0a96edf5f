package io.kafkas3archiver.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awscdk.App;

/** Builds stacks the way the app does, from context, with a stand-in jar (no Maven build). */
final class Fixtures {
  static final String CLUSTER_ARN =
      "arn:aws:kafka:us-east-1:123456789012:cluster/vehicle-cluster/abcd1234-0123-4567-89ab-cdef01234567-1";
  static final String SCRAM_SECRET_ARN =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:AmazonMSK_archiver-AbCdEf";
  static final String CREDENTIALS_SECRET_ARN =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:archiver-keys-AbCdEf";
  static final String ROLE_ARN = "arn:aws:iam::210987654321:role/archive-writer";
  static final String KMS_KEY_ARN =
      "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555";

  /** The customer managed key an MSK SCRAM secret is encrypted with. */
  static final String SECRETS_KEY_ARN =
      "arn:aws:kms:us-east-1:123456789012:key/66666666-7777-8888-9999-000000000000";

  private static Path jar;

  private Fixtures() {}

  /** A tiny stand-in for function/target/kafka-s3-archiver.jar. */
  static synchronized String jar() {
    try {
      if (jar == null) {
        jar = Files.createTempFile("kafka-s3-archiver-test", ".jar");
        Files.write(
            jar, new byte[] {'P', 'K', 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        jar.toFile().deleteOnExit();
      }
      return jar.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** MSK with IAM auth, a created bucket: the defaults. */
  static Map<String, Object> mskDefaults() {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("title", "S3_Event_Archive_Prod");
    c.put("inputTopic", "vehicle-telemetry");
    c.put("clusterArn", CLUSTER_ARN);
    return c;
  }

  /** Self-managed Kafka with SCRAM in a VPC, an imported bucket, static keys, a role. */
  static Map<String, Object> selfManaged() {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("title", "S3_Event_Archive_Prod");
    c.put("inputTopic", "vehicle-telemetry");
    c.put("bucketName", "acme-kafka-archive");
    c.put("region", "eu-west-1");
    c.put("sourceType", "self-managed");
    c.put("bootstrapServers", "b-1.example.com:9096,b-2.example.com:9096");
    c.put("saslScramSecretArn", SCRAM_SECRET_ARN);
    c.put("subnetIds", "subnet-0aaa,subnet-0bbb");
    c.put("securityGroupIds", "sg-0ccc");
    c.put("credentialsSecretArn", CREDENTIALS_SECRET_ARN);
    c.put("roleArn", ROLE_ARN);
    c.put("externalId", "archiver-external-id");
    c.put("sse", "aws:kms");
    c.put("kmsKeyArn", KMS_KEY_ARN);
    c.put("provisionedPollers", "false");
    return c;
  }

  static ArchiverStack stack(Map<String, Object> context) {
    Map<String, Object> c = new LinkedHashMap<>(context);
    c.putIfAbsent("jarPath", jar());
    if ("true".equals(String.valueOf(c.get("restore")))) {
      c.putIfAbsent(RestoreSettings.JAR_PATH_KEY, jar());
    }
    App app = App.Builder.create().context(c).build();
    return ArchiverApp.createStack(app);
  }
}
