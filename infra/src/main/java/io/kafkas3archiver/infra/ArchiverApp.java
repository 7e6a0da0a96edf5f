package io.kafkas3archiver.infra;

import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import io.github.cdklabs.cdknag.NagPackProps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.StackProps;

/**
 * Entry point of the CDK app. Configuration comes from CDK context ({@code -c key=value} or
 * cdk.json) and, when context {@code configFile} names one, from a JSON file in the seed's
 * connector shape; context wins. {@code jarPath} points at the function's jar (default: the Maven
 * build output), so tests can pass any small file and need no build.
 */
public final class ArchiverApp {
  static final String DEFAULT_JAR = "../function/target/kafka-s3-archiver.jar";

  /** outputFormat=iceberg: the second artifact, which carries Iceberg's writers and catalogs. */
  static final String DEFAULT_ICEBERG_JAR =
      "../function/iceberg/target/kafka-s3-archiver-iceberg.jar";

  private ArchiverApp() {}

  public static void main(String[] args) {
    App app = new App();
    createStack(app);
    app.synth();
  }

  /** Builds the one stack of the app from its context. Tests call this too. */
  public static ArchiverStack createStack(App app) {
    if (app.getNode().getAllContext() instanceof Map<?, ?> context) {
      ArchiverSettings.requireKnownContextKeys(
          context.keySet().stream().map(String::valueOf).collect(Collectors.toSet()));
    }
    Map<String, Object> values = new LinkedHashMap<>();
    Object file = app.getNode().tryGetContext("configFile");
    if (file != null && !file.toString().isBlank()) {
      values.putAll(ArchiverSettings.readJsonFile(Path.of(file.toString())));
    }
    Stream.of(ArchiverSettings.KNOWN_KEYS, ArchiverSettings.SECRET_KEYS, RestoreSettings.KEYS)
        .flatMap(java.util.Set::stream)
        .forEach(
            key -> {
              Object v = app.getNode().tryGetContext(key);
              if (v != null) {
                values.put(key, v);
              }
            });
    ArchiverSettings settings = ArchiverSettings.from(values);
    Object jar = app.getNode().tryGetContext("jarPath");
    Object stackName = app.getNode().tryGetContext("stackName");
    ArchiverStack stack =
        createStack(
            app,
            stackName == null ? "KafkaS3Archiver-" + settings.title() : stackName.toString(),
            settings,
            jar == null ? defaultJar(settings) : jar.toString());
    Optional<RestoreSettings> restore = RestoreSettings.from(values, settings);
    if (restore.isPresent()) {
      Object restoreJar = app.getNode().tryGetContext(RestoreSettings.JAR_PATH_KEY);
      String path = restoreJar == null ? RestoreSettings.DEFAULT_JAR : restoreJar.toString();
      requireJar("the restore jar", path, "", RestoreSettings.JAR_PATH_KEY);
      RestoreStateMachine.create(
          stack,
          settings,
          restore.get(),
          stack.bucket().getBucketName(),
          Optional.ofNullable(stack.bucket().getEncryptionKey())
              .map(k -> k.getKeyArn())
              .or(settings::kmsKeyArn),
          new RestoreStateMachine.Redrive(
              stack.alias().getFunctionArn(),
              stack.failureQueue().map(q -> q.getQueueUrl()),
              stack.failureQueue().map(q -> q.getQueueArn()),
              settings.provisionedPollers() && settings.onFailure() == ArchiverSettings.OnFailure.S3
                  ? settings.onFailureBucketArn()
                  : Optional.empty()),
          path);
    }
    return stack;
  }

  /** Fails with the build command when a jar the stack deploys has not been built. */
  private static void requireJar(String what, String path, String note, String contextKey) {
    if (!Files.exists(Path.of(path))) {
      throw new IllegalArgumentException(
          what
              + " "
              + Path.of(path).toAbsolutePath().normalize()
              + " does not exist: build it with `./mvnw -B -DskipTests package` at the repository"
              + " root"
              + note
              + ", or pass -c "
              + contextKey
              + "=<file>");
    }
  }

  /** The Maven build output of the artifact that settings' outputFormat needs. */
  static String defaultJar(ArchiverSettings settings) {
    return settings.iceberg().isPresent() ? DEFAULT_ICEBERG_JAR : DEFAULT_JAR;
  }

  /** The stack plus the AwsSolutions checks, which report into the stack's annotations. */
  public static ArchiverStack createStack(
      App app, String stackName, ArchiverSettings settings, String jarPath) {
    requireJar(
        "the function jar",
        jarPath,
        settings.iceberg().isPresent()
            ? " (outputFormat=iceberg deploys function/iceberg's jar)"
            : "",
        "jarPath");
    StackProps.Builder props =
        StackProps.builder()
            .stackName(stackName.replaceAll("[^A-Za-z0-9-]", "-"))
            .description(
                "kafka-s3-archiver: archives Kafka topic " + settings.inputTopic() + " to S3");
    String account = System.getenv("CDK_DEFAULT_ACCOUNT");
    String region = System.getenv("CDK_DEFAULT_REGION");
    if (account != null && region != null) {
      props.env(Environment.builder().account(account).region(region).build());
    }
    ArchiverStack stack =
        new ArchiverStack(app, "KafkaS3Archiver", props.build(), settings, jarPath);
    Aspects.of(stack).add(new AwsSolutionsChecks(NagPackProps.builder().verbose(true).build()));
    return stack;
  }
}
