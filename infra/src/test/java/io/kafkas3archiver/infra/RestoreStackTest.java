package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.infra.Templates.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/** restore=true: the restore Lambda, the Distributed Map state machine and their grants. */
class RestoreStackTest {
  static final String TARGET_CLUSTER =
      "arn:aws:kafka:us-east-1:123456789012:cluster/dr-cluster/abcdef01-2345-6789-abcd-ef0123456789-2";

  private static Template restore;
  private static Template plain;
  private static JsonNode definition;

  static Map<String, Object> restoreContext() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("restore", "true");
    c.put("includeKafkaMetadata", "true");
    c.put("restoreBootstrapServers", "b-1.dr.example.com:9098,b-2.dr.example.com:9098");
    c.put("restoreTargetTopic", "vehicle-telemetry-restored");
    c.put("restoreClusterArn", TARGET_CLUSTER);
    c.put("restoreSubnetIds", "subnet-0123456789abcdef0,subnet-0fedcba9876543210");
    c.put("restoreSecurityGroupIds", "sg-0123456789abcdef0");
    c.put("restoreMaxConcurrency", "7");
    c.put(RestoreSettings.JAR_PATH_KEY, Fixtures.jar());
    return c;
  }

  @BeforeAll
  static void synth() throws Exception {
    restore = Template.fromStack(Fixtures.stack(restoreContext()));
    plain = Template.fromStack(Fixtures.stack(Fixtures.mskDefaults()));
    Map<String, Object> machine =
        Templates.cast(
            restore.findResources("AWS::StepFunctions::StateMachine").values().iterator().next());
    definition =
        new ObjectMapper()
            .readTree(
                Templates.render(
                    Templates.cast(machine.get("Properties")).get("DefinitionString")));
  }

  @Test
  void shouldRunOneDistributedChildWorkflowPerManifestItemAtMostMaxConcurrencyAtOnce() {
    JsonNode map = definition.path("States").path("Partitions");
    assertThat(map.path("Type").asText()).isEqualTo("Map");
    assertThat(map.path("ItemProcessor").path("ProcessorConfig").path("Mode").asText())
        .isEqualTo("DISTRIBUTED");
    assertThat(map.path("ItemReader").path("Resource").asText())
        .isEqualTo("arn:${AWS::Partition}:states:::s3:getObject");
    assertThat(map.path("ItemReader").path("ReaderConfig").path("InputType").asText())
        .isEqualTo("JSON");
    assertThat(map.path("MaxConcurrency").asInt()).isEqualTo(7);
  }

  @Test
  void shouldLoopEachPartitionUntilTheLambdaSaysDoneAndRetryServiceErrorsAndTimeoutsOnly() {
    JsonNode child = definition.path("States").path("Partitions").path("ItemProcessor");
    JsonNode task = child.path("States").path("Restore");
    assertThat(child.path("StartAt").asText()).isEqualTo("Restore");
    assertThat(task.path("Next").asText()).isEqualTo("Done?");
    JsonNode choice = child.path("States").path("Done?");
    assertThat(choice.path("Choices").get(0).path("Variable").asText()).isEqualTo("$.done");
    assertThat(choice.path("Default").asText()).isEqualTo("Restore");
    List<String> retried = new java.util.ArrayList<>();
    task.path("Retry").get(0).path("ErrorEquals").forEach(e -> retried.add(e.asText()));
    assertThat(retried)
        .containsExactlyInAnyOrderElementsOf(RestoreStateMachine.RETRIED_ERRORS)
        // A timed-out call resumes after the checkpoint; AWS reports it as Lambda.Unknown.
        .contains("Lambda.Unknown", "Lambda.ServiceException", "Lambda.TooManyRequestsException")
        .doesNotContain("States.ALL", "States.TaskFailed");
  }

  @Test
  void shouldPinTheArchiveAndTheTargetOverTheExecutionInput() {
    JsonNode pinned = definition.path("States").path("Settings").path("Parameters").path("pinned");
    assertThat(pinned.path("topic").asText()).isEqualTo("vehicle-telemetry");
    assertThat(pinned.path("targetTopic").asText()).isEqualTo("vehicle-telemetry-restored");
    assertThat(pinned.path("mskIam").asBoolean()).isTrue();
    assertThat(
            definition
                .path("States")
                .path("Plan")
                .path("Parameters")
                .path("Payload")
                .path("restore.$")
                .asText())
        .isEqualTo("States.JsonMerge($.request, $.pinned, false)");
  }

  @Test
  void shouldLetTheStateMachineInvokeTheRestoreFunctionOnlyAndReadOnlyManifests() {
    List<Statement> statements = Templates.statements(restore);
    List<String> invoke = Templates.resourcesFor(statements, "lambda:InvokeFunction");
    // The state machine invokes the restore function; the restore function (its redrive action)
    // only the archiver's alias.
    assertThat(invoke)
        .containsExactlyInAnyOrder(
            "${RestoreFunction.Arn}", "${RestoreFunction.Arn}:*", "${LiveAlias}");
    assertThat(Templates.allActions(statements)).doesNotContain("lambda:*", "states:*", "s3:*");
    assertThat(Templates.resourcesFor(statements, "states:StartExecution"))
        .containsExactly(
            "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:"
                + "${AWS::StackName}-restore");
  }

  @Test
  void shouldLetTheRedriveActionReadTheFailureQueueAndTheArchivedTopicAndInvokeTheArchiverOnly() {
    List<Statement> statements = Templates.statements(restore);
    assertThat(Templates.resourcesFor(statements, "sqs:ReceiveMessage"))
        .containsExactly("${OnFailureQueue.Arn}");
    assertThat(Templates.resourcesFor(statements, "sqs:DeleteMessage"))
        .containsExactly("${OnFailureQueue.Arn}");
    assertThat(Templates.resourcesFor(statements, "sqs:ChangeMessageVisibility"))
        .containsExactly("${OnFailureQueue.Arn}");
    assertThat(Templates.resourcesFor(statements, "kafka-cluster:ReadData"))
        .contains(
            "arn:aws:kafka:us-east-1:123456789012:topic/dr-cluster/"
                + "abcdef01-2345-6789-abcd-ef0123456789-2/vehicle-telemetry");
    Map<String, String> env = restoreFunctionEnvironment(restore);
    assertThat(env)
        .containsEntry("REDRIVE_ARCHIVER_FUNCTION", "${LiveAlias}")
        .containsEntry("REDRIVE_SOURCE", "${OnFailureQueue}") // Ref: the queue URL
        .containsEntry("REDRIVE_KAFKA_AUTH", "msk-iam")
        .containsEntry("INPUT_TOPIC", "vehicle-telemetry");
  }

  @Test
  void shouldPointTheRedriveAtTheFailureBucketWithOnFailureS3() {
    Map<String, Object> c = new LinkedHashMap<>(restoreContext());
    c.put("onFailure", "s3");
    c.put("onFailureBucketArn", "arn:aws:s3:::acme-failed-batches");
    Template s3 = Template.fromStack(Fixtures.stack(c));
    List<Statement> statements = Templates.statements(s3);

    assertThat(Templates.resourcesFor(statements, "s3:GetObject"))
        .contains("arn:aws:s3:::acme-failed-batches/*");
    assertThat(Templates.resourcesFor(statements, "sqs:ReceiveMessage")).isEmpty();
    assertThat(restoreFunctionEnvironment(s3))
        .containsEntry("REDRIVE_SOURCE", "s3://acme-failed-batches/");
  }

  private static Map<String, String> restoreFunctionEnvironment(Template template) {
    for (Object r : Templates.resources(template).values()) {
      Map<String, Object> resource = Templates.cast(r);
      Map<String, Object> props = Templates.cast(resource.get("Properties"));
      if ("AWS::Lambda::Function".equals(resource.get("Type"))
          && RestoreStateMachine.HANDLER.equals(props.get("Handler"))) {
        Map<String, String> out = new LinkedHashMap<>();
        Templates.cast(Templates.cast(props.get("Environment")).get("Variables"))
            .forEach((k, v) -> out.put(k, Templates.render(v)));
        return out;
      }
    }
    throw new AssertionError("no restore function in the template");
  }

  @Test
  void shouldScopeTheRestoreFunctionsKafkaGrantsToTheTargetClusterTopicAndTransactionalIds() {
    List<Statement> statements = Templates.statements(restore);
    String prefix = "arn:aws:kafka:us-east-1:123456789012:";
    String cluster = "dr-cluster/abcdef01-2345-6789-abcd-ef0123456789-2/";
    assertThat(Templates.resourcesFor(statements, "kafka-cluster:WriteData"))
        .containsExactlyInAnyOrder(
            prefix + "topic/" + cluster + "vehicle-telemetry-restored",
            prefix + "topic/" + cluster + "vehicle-telemetry-restored.restore-checkpoint");
    assertThat(Templates.resourcesFor(statements, "kafka-cluster:AlterTransactionalId"))
        .containsExactly(
            prefix
                + "transactional-id/"
                + cluster
                + "kafka-s3-archiver-restore.vehicle-telemetry-restored.p*");
    assertThat(Templates.resourcesFor(statements, "kafka-cluster:Connect"))
        .contains(TARGET_CLUSTER);
  }

  @Test
  void shouldReadOnlyTheArchivedTopicsPrefixes() {
    List<Statement> statements = Templates.statements(restore);
    assertThat(
            Templates.resourcesFor(statements, "s3:GetObject").stream()
                .filter(r -> r.contains("RestoreFunction") || r.contains("condense"))
                .toList())
        .allMatch(
            r ->
                r.endsWith("/condense/vehicle-telemetry/*")
                    || r.endsWith("/condense/_errors/vehicle-telemetry/*")
                    || r.endsWith("/restore-manifests/*")
                    // The audit's state (AuditSchedule), outside the archive's prefixes.
                    || r.endsWith("/condense/_audit/vehicle-telemetry/*"));
  }

  @Test
  void shouldRunTheRestoreJarInTheGivenSubnets() {
    Map<String, ?> functions = restore.findResources("AWS::Lambda::Function");
    Map<String, Object> fn =
        functions.values().stream()
            .map(Templates::cast)
            .map(f -> Templates.cast(f.get("Properties")))
            .filter(p -> RestoreStateMachine.HANDLER.equals(p.get("Handler")))
            .findFirst()
            .orElseThrow();
    assertThat(Templates.cast(fn.get("VpcConfig")).get("SubnetIds"))
        .isEqualTo(List.of("subnet-0123456789abcdef0", "subnet-0fedcba9876543210"));
    assertThat(fn.get("Timeout")).isEqualTo(900);
  }

  @Test
  void shouldDeployTheSameStateMachineDefinitionFromTemplateYaml() throws Exception {
    InfraMatrix.Deployment d =
        InfraMatrix.all().stream()
            .filter(x -> x.name().equals("msk-iam-restore-state-machine"))
            .findFirst()
            .orElseThrow();
    JsonNode cdk = definitionIn(Templates.cast(InfraMatrix.cdkJson(d).get("Resources")).values());
    JsonNode sam =
        definitionIn(new SamTemplate(InfraMatrix.TEMPLATE, d.sam()).resources().values());
    assertThat(sam).isEqualTo(cdk);
    assertThat(sam.path("States").path("Partitions").path("MaxConcurrency").asInt()).isEqualTo(7);
  }

  private static JsonNode definitionIn(java.util.Collection<?> resources) throws Exception {
    for (Object r : resources) {
      Map<String, Object> resource = Templates.cast(r);
      if ("AWS::StepFunctions::StateMachine".equals(resource.get("Type"))) {
        return new ObjectMapper()
            .readTree(
                InfraModel.text(
                    Templates.cast(resource.get("Properties")).get("DefinitionString")));
      }
    }
    throw new AssertionError("no state machine");
  }

  @Test
  void shouldDeployNoStateMachineWithoutTheOption() {
    plain.resourceCountIs("AWS::StepFunctions::StateMachine", 0);
  }

  @Test
  void shouldRefuseARestoreKeyWithoutRestoreTrueAndAnUnknownRestoreKey() {
    Map<String, Object> c = new LinkedHashMap<>(Fixtures.mskDefaults());
    c.put("restoreMaxConcurrency", "4");
    assertThatThrownBy(() -> Fixtures.stack(c))
        .hasMessageContaining("restoreMaxConcurrency is set but restore is not true");
    Map<String, Object> typo = restoreContext();
    typo.put("restoreMaxConcurency", "4");
    assertThatThrownBy(() -> Fixtures.stack(typo)).hasMessageContaining("restoreMaxConcurency");
  }
}
