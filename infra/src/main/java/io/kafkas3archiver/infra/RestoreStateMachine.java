package io.kafkas3archiver.infra;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.Policy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.CfnFunction;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.stepfunctions.CfnStateMachine;
import software.constructs.Construct;

/**
 * {@code restore=true}: the restore Lambda (the restore jar, in the brokers' VPC) and a Step
 * Functions state machine that plans the restore, then runs a Distributed Map with one child
 * workflow per source partition, each invoking the Lambda until it answers done. Per partition one
 * writer at a time, in offset order; across partitions up to {@code restoreMaxConcurrency} at once
 * (docs/restore.md, "Step Functions").
 *
 * <p>Additive: it reads the archiver stack's bucket and settings and adds its own resources; the
 * archiver's function, role and mapping are untouched. template.yaml's {@code DeployRestore}
 * condition declares the same resources and grants.
 */
final class RestoreStateMachine {
  static final String HANDLER = "io.kafkas3archiver.restore.RestoreLambda::handleRequest";

  /** Where the plan step writes its manifests, outside every archive prefix. */
  static final String MANIFESTS = "restore-manifests";

  /**
   * The Lambda errors a retry can cure; a bad request or a refused restore (an exception the
   * handler throws, reported under its class name) fails the item. {@code Lambda.Unknown} is a
   * function timeout or out-of-memory: the retry resumes after the partition's transactional
   * checkpoint, and the abandoned transaction is fenced by the same transactional id.
   */
  static final List<String> RETRIED_ERRORS =
      List.of(
          "Lambda.ClientExecutionTimeoutException",
          "Lambda.ServiceException",
          "Lambda.AWSLambdaException",
          "Lambda.SdkClientException",
          "Lambda.TooManyRequestsException",
          "Lambda.Unknown");

  private RestoreStateMachine() {}

  /**
   * What the restore Lambda's {@code {"action":"redrive"}} needs (docs/restore.md#redrive): the
   * archiver function's alias, which it invokes with the skipped batches, and the mapping's
   * on-failure destination, which it reads: the stack's queue, or the external failure bucket.
   */
  record Redrive(
      String archiverAliasArn,
      Optional<String> queueUrl,
      Optional<String> queueArn,
      Optional<String> failureBucketArn) {

    /** {@code REDRIVE_SOURCE}: the queue's URL, or {@code s3://<failure bucket>/}, or none. */
    Optional<String> source() {
      return queueUrl.or(
          () ->
              failureBucketArn.map(arn -> "s3://" + arn.substring(arn.lastIndexOf(':') + 1) + "/"));
    }
  }

  /**
   * @param kmsKeyArn the key the archive objects are encrypted with (created or imported), if any
   */
  static CfnStateMachine create(
      ArchiverStack stack,
      ArchiverSettings s,
      RestoreSettings r,
      String bucketName,
      Optional<String> kmsKeyArn,
      Redrive redrive,
      String jarPath) {
    Construct scope = new Construct(stack, "Restore");
    String bucketArn = "arn:" + Aws.PARTITION + ":s3:::" + bucketName;

    LogGroup logs =
        LogGroup.Builder.create(scope, "FunctionLogs")
            .retention(RetentionDays.ONE_MONTH)
            .removalPolicy(RemovalPolicy.RETAIN)
            .build();
    Role role =
        Role.Builder.create(scope, "FunctionRole")
            .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
            .description(
                "kafka-s3-archiver " + s.title() + " restore: reads the archive, writes Kafka")
            .build();
    ArchiverStack.checkovSkip(
        logs,
        "CKV_AWS_158",
        "The restore logs carry counts, offsets and object keys, no payload bytes; CloudWatch"
            + " Logs encrypts them at rest with service keys.");
    Policy policy = Policy.Builder.create(scope, "FunctionAccess").build();
    ArchiverStack.checkovSkip(
        policy,
        "CKV_AWS_111",
        "The only unconstrained writes are a VPC function's network-interface actions"
            + " (ec2:CreateNetworkInterface and friends), which take no resource ARNs.");
    functionStatements(s, r, bucketArn, kmsKeyArn, logs.getLogGroupArn())
        .forEach(policy::addStatements);
    redriveStatements(s, r, redrive).forEach(policy::addStatements);
    AuditSchedule.statements(s, r, bucketArn).forEach(policy::addStatements);
    policy.attachToRole(role);
    Map<String, String> environment = new LinkedHashMap<>(redriveEnvironment(s, r, redrive));
    environment.putAll(AuditSchedule.environment(s, r, bucketName));

    Function function =
        Function.Builder.create(scope, "Function")
            .description(
                "Restores the archive of " + s.inputTopic() + " into Kafka, one partition per call")
            .runtime(Runtime.JAVA_21)
            .handler(HANDLER)
            .code(Code.fromAsset(jarPath))
            .memorySize(r.memorySize())
            .timeout(Duration.minutes(15))
            .role(role)
            .logGroup(logs)
            .environment(environment)
            .build();
    function.getNode().addDependency(policy);
    AuditSchedule.create(stack, s, r, function, stack.dashboard());
    NagSuppressions.addResourceSuppressions(
        policy,
        List.of(
            wildcards(
                List.<Object>of(
                    "Resource::*",
                    objectsUnder(s.keyPrefix() + "/" + s.inputTopic()),
                    objectsUnder(s.keyPrefix() + "/_errors/" + s.inputTopic()),
                    objectsUnder(MANIFESTS),
                    objectsUnder(AuditSchedule.stateFolder(s).replaceAll("/$", "")),
                    "Resource::"
                        + r.clusterArn()
                            .map(
                                c ->
                                    KafkaSource.mskChildArn(
                                        c, "transactional-id", r.transactionalIdPrefix() + "*"))
                            .orElse("*")),
                "Each wildcard is confined: objects under the archived topic's data and error"
                    + " prefixes, under restore-manifests/ (keys the archiver and the plan"
                    + " step generate) and the audit's state under <prefix>/_audit/<topic>/; the VPC function's network-interface actions, which take"
                    + " no resource ARNs; and the per-partition transactional ids"
                    + " kafka-s3-archiver-restore.<target>.p<n> on the target cluster.")));
    redrive
        .failureBucketArn()
        .ifPresent(
            arn ->
                NagSuppressions.addResourceSuppressions(
                    policy,
                    List.of(
                        wildcards(
                            List.<Object>of("Resource::" + arn + "/*"),
                            "redrive reads the mapping's on-failure records, which Lambda writes"
                                + " under keys it chooses (aws/lambda/<mapping>/...) in the"
                                + " failure bucket: <failure bucket>/*, read only."))));
    NagSuppressions.addResourceSuppressions(
        function,
        List.of(
            ArchiverStack.suppress(
                "AwsSolutions-L1",
                "The restore jar is compiled for and tested on java21, like the archiver.")));
    ArchiverStack.checkovSkip(
        function,
        "CKV_AWS_116",
        "Step Functions invokes the restore Lambda synchronously and retries it; a DLQ serves"
            + " asynchronous invocations only.",
        "CKV_AWS_115",
        "The Distributed Map's MaxConcurrency bounds the concurrent invocations.",
        "CKV_AWS_173",
        "The environment holds names and ARNs only (the redrive's archiver alias, on-failure"
            + " destination, Kafka auth mode and topic); requests carry names, never secrets.");
    // Subnet and security group ids, not an IVpc: the app takes ids, as the mapping does, and
    // needs no VPC lookup (no credentials at synth time).
    ((CfnFunction) function.getNode().getDefaultChild())
        .addPropertyOverride(
            "VpcConfig",
            Map.of("SubnetIds", r.subnetIds(), "SecurityGroupIds", r.securityGroupIds()));

    String name = stateMachineName(s);
    Role machineRole =
        Role.Builder.create(scope, "StateMachineRole")
            .assumedBy(new ServicePrincipal("states.amazonaws.com"))
            .description("kafka-s3-archiver " + s.title() + " restore state machine")
            .build();
    Policy machinePolicy = Policy.Builder.create(scope, "StateMachineAccess").build();
    machineStatements(name, bucketArn, function.getFunctionArn())
        .forEach(machinePolicy::addStatements);
    machinePolicy.attachToRole(machineRole);

    CfnStateMachine machine =
        CfnStateMachine.Builder.create(scope, "StateMachine")
            .stateMachineName(name)
            .stateMachineType("STANDARD")
            .roleArn(machineRole.getRoleArn())
            .definitionString(
                Stack.of(scope)
                    .toJsonString(definition(s, r, bucketName, function.getFunctionArn())))
            .build();
    machine.getNode().addDependency(machinePolicy);
    NagSuppressions.addResourceSuppressions(
        machinePolicy,
        List.of(
            wildcards(
                List.<Object>of(
                    RegexAppliesTo.builder()
                        .regex("/^Resource::<RestoreFunction[0-9A-F]+\\.Arn>:\\*$/")
                        .build(),
                    objectsUnder(MANIFESTS),
                    RegexAppliesTo.builder()
                        .regex("/^Resource::.+:execution:.+-restore\\/\\*$/")
                        .build()),
                "Each wildcard is confined: the restore function's versions (<arn>:*, as"
                    + " lambda:invoke may address them), the manifests under restore-manifests/,"
                    + " and this state machine's own child executions (<name>/*), which a"
                    + " Distributed Map starts and stops.")));
    NagSuppressions.addResourceSuppressions(
        machine,
        List.of(
            ArchiverStack.suppress(
                "AwsSolutions-SF1",
                "The execution history records every state and item; CloudWatch logging at ALL"
                    + " would copy every partition's request into logs for no extra insight."),
            ArchiverStack.suppress(
                "AwsSolutions-SF2",
                "X-Ray is off, as for the archiver: the Lambda adds no X-Ray SDK, so a trace"
                    + " would show only the invocations the execution history already shows.")));
    machine.addMetadata(
        "checkov",
        Map.of(
            "skip",
            List.of(
                Map.of(
                    "id",
                    "CKV_AWS_284",
                    "comment",
                    "X-Ray is off, as for the archiver (see the cdk-nag SF2 reason)."),
                Map.of(
                    "id",
                    "CKV_AWS_285",
                    "comment",
                    "The execution history records every state; see the cdk-nag SF1 reason."))));

    // Ref is the ARN too, and moto 5.2.5 resolves Ref but not GetAtt Arn on a state machine.
    CfnOutput.Builder.create(stack, "RestoreStateMachineArn").value(machine.getRef()).build();
    CfnOutput.Builder.create(stack, "RestoreFunctionArn").value(function.getFunctionArn()).build();
    return machine;
  }

  private static NagPackSuppression wildcards(List<?> appliesTo, String reason) {
    return NagPackSuppression.builder()
        .id("AwsSolutions-IAM5")
        .appliesTo(List.copyOf(appliesTo))
        .reason(reason)
        .build();
  }

  /** cdk-nag's finding for {@code <bucket ARN>/<folder>/*}, whatever token the bucket ARN is. */
  private static RegexAppliesTo objectsUnder(String folder) {
    return RegexAppliesTo.builder()
        .regex("/^Resource::.+\\/" + escape(folder) + "\\/\\*$/")
        .build();
  }

  private static String escape(String literal) {
    return literal.replaceAll("[.*+?^${}()|\\[\\]\\\\/]", "\\\\$0");
  }

  /**
   * {@code <stack name>-restore}: a name the role's policy can spell without referring to the
   * machine (which would be circular), and the same token in template.yaml.
   */
  static String stateMachineName(ArchiverSettings s) {
    return Aws.STACK_NAME + "-restore";
  }

  /**
   * The restore Lambda's grants: its log group; list and read the archive's data and error
   * prefixes; read and write the manifests; the VPC's network interfaces; with MSK IAM, connect to
   * the target cluster and write the target and checkpoint topics under its own transactional ids.
   */
  static List<PolicyStatement> functionStatements(
      ArchiverSettings s,
      RestoreSettings r,
      String bucketArn,
      Optional<String> kmsKeyArn,
      String logGroupArn) {
    String data = s.keyPrefix() + "/" + s.inputTopic() + "/";
    String errors = s.keyPrefix() + "/_errors/" + s.inputTopic() + "/";
    List<PolicyStatement> out = new ArrayList<>();
    out.add(
        AccessPolicy.allow(
            "RestoreWriteOwnLogs",
            List.of("logs:CreateLogStream", "logs:PutLogEvents"),
            List.of(logGroupArn)));
    out.add(
        PolicyStatement.Builder.create()
            .sid("RestoreListArchive")
            .effect(Effect.ALLOW)
            .actions(List.of("s3:ListBucket"))
            .resources(List.of(bucketArn))
            .conditions(
                Map.of("StringLike", Map.of("s3:prefix", List.of(data + "*", errors + "*"))))
            .build());
    out.add(
        AccessPolicy.allow(
            "RestoreReadArchive",
            List.of("s3:GetObject"),
            List.of(bucketArn + "/" + data + "*", bucketArn + "/" + errors + "*")));
    out.add(
        AccessPolicy.allow(
            "RestoreManifests",
            List.of("s3:PutObject", "s3:GetObject"),
            List.of(bucketArn + "/" + MANIFESTS + "/*")));
    // A VPC function's network interfaces; these EC2 actions take no resource ARNs.
    out.add(
        AccessPolicy.allow(
            "RestoreNetworkInterfaces",
            List.of(
                "ec2:CreateNetworkInterface",
                "ec2:DescribeNetworkInterfaces",
                "ec2:DeleteNetworkInterface",
                "ec2:AssignPrivateIpAddresses",
                "ec2:UnassignPrivateIpAddresses"),
            List.of("*")));
    kmsKeyArn.ifPresent(
        key ->
            out.add(
                PolicyStatement.Builder.create()
                    .sid("RestoreDecryptArchive")
                    .effect(Effect.ALLOW)
                    .actions(List.of("kms:Decrypt", "kms:GenerateDataKey"))
                    .resources(List.of(key))
                    // Only through S3: the key opens the archive's objects and manifests, nothing
                    // else.
                    .conditions(
                        Map.of(
                            "StringEquals",
                            Map.of(
                                "kms:ViaService",
                                "s3."
                                    + s.bucketRegion().orElse(Aws.REGION)
                                    + "."
                                    + Aws.URL_SUFFIX)))
                    .build()));
    if (r.auth().equals("msk-iam")) {
      String cluster = r.clusterArn().orElseThrow();
      out.add(
          AccessPolicy.allow(
              "RestoreConnect",
              List.of(
                  "kafka-cluster:Connect",
                  "kafka-cluster:DescribeCluster",
                  "kafka-cluster:WriteDataIdempotently"),
              List.of(cluster)));
      out.add(
          AccessPolicy.allow(
              "RestoreWriteTarget",
              List.of(
                  "kafka-cluster:DescribeTopic",
                  "kafka-cluster:DescribeTopicDynamicConfiguration",
                  "kafka-cluster:WriteData"),
              List.of(KafkaSource.mskChildArn(cluster, "topic", r.targetTopic()))));
      out.add(
          AccessPolicy.allow(
              "RestoreCheckpoint",
              List.of(
                  "kafka-cluster:CreateTopic",
                  "kafka-cluster:DescribeTopic",
                  "kafka-cluster:ReadData",
                  "kafka-cluster:WriteData"),
              List.of(KafkaSource.mskChildArn(cluster, "topic", r.checkpointTopic()))));
      out.add(
          AccessPolicy.allow(
              "RestoreTransactions",
              List.of(
                  "kafka-cluster:DescribeTransactionalId", "kafka-cluster:AlterTransactionalId"),
              List.of(
                  KafkaSource.mskChildArn(
                      cluster, "transactional-id", r.transactionalIdPrefix() + "*"))));
    }
    return out;
  }

  /**
   * The restore function's environment: what {@code {"action":"redrive"}} reads. The archiver's own
   * settings stay with the archiver function, which the redrive invokes.
   */
  static Map<String, String> redriveEnvironment(
      ArchiverSettings s, RestoreSettings r, Redrive redrive) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("REDRIVE_ARCHIVER_FUNCTION", redrive.archiverAliasArn());
    env.put("REDRIVE_SOURCE", redrive.source().orElse(""));
    env.put("REDRIVE_KAFKA_AUTH", r.auth());
    env.put("INPUT_TOPIC", s.inputTopic());
    return env;
  }

  /**
   * The redrive's grants: invoke the archiver's alias (the skipped batches go through its own
   * handler, role and settings); read the on-failure queue (receive, delete once redriven, release
   * what failed) or the failure bucket; with MSK IAM, read the archived topic on the cluster the
   * function reaches.
   */
  static List<PolicyStatement> redriveStatements(
      ArchiverSettings s, RestoreSettings r, Redrive redrive) {
    List<PolicyStatement> out = new ArrayList<>();
    out.add(
        AccessPolicy.allow(
            "RedriveInvokeArchiver",
            List.of("lambda:InvokeFunction"),
            List.of(redrive.archiverAliasArn())));
    redrive
        .queueArn()
        .ifPresent(
            arn ->
                out.add(
                    AccessPolicy.allow(
                        "RedriveReadFailureQueue",
                        List.of(
                            "sqs:ReceiveMessage",
                            "sqs:DeleteMessage",
                            "sqs:ChangeMessageVisibility"),
                        List.of(arn))));
    redrive
        .failureBucketArn()
        .ifPresent(
            arn -> {
              out.add(
                  AccessPolicy.allow(
                      "RedriveListFailureBucket", List.of("s3:ListBucket"), List.of(arn)));
              out.add(
                  AccessPolicy.allow(
                      "RedriveReadFailureBucket", List.of("s3:GetObject"), List.of(arn + "/*")));
            });
    if (r.auth().equals("msk-iam")) {
      out.add(
          AccessPolicy.allow(
              "RedriveReadArchivedTopic",
              List.of("kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"),
              List.of(
                  KafkaSource.mskChildArn(r.clusterArn().orElseThrow(), "topic", s.inputTopic()))));
    }
    return out;
  }

  /**
   * The state machine's grants: invoke the restore Lambda only; read the manifests (the Map's
   * ItemReader); start and watch its own child workflows (a Distributed Map runs each item as a
   * child execution of the same state machine).
   */
  static List<PolicyStatement> machineStatements(
      String name, String bucketArn, String functionArn) {
    String prefix = "arn:" + Aws.PARTITION + ":states:" + Aws.REGION + ":" + Aws.ACCOUNT_ID + ":";
    return List.of(
        AccessPolicy.allow(
            "InvokeRestoreFunction",
            List.of("lambda:InvokeFunction"),
            List.of(functionArn, functionArn + ":*")),
        AccessPolicy.allow(
            "ReadManifests", List.of("s3:GetObject"), List.of(bucketArn + "/" + MANIFESTS + "/*")),
        AccessPolicy.allow(
            "StartChildWorkflows",
            List.of("states:StartExecution"),
            List.of(prefix + "stateMachine:" + name)),
        AccessPolicy.allow(
            "WatchChildWorkflows",
            List.of("states:DescribeExecution", "states:StopExecution"),
            List.of(prefix + "execution:" + name + "/*")));
  }

  /**
   * A Step Functions service integration's resource ARN in the stack's partition: the Amazon States
   * Language spells it {@code arn:<partition>:states:::<service>:<api>}, so a literal {@code
   * arn:aws:} would not resolve in aws-cn or aws-us-gov (CDK's own tasks build it the same way).
   */
  static String integration(String serviceApi) {
    return "arn:" + Aws.PARTITION + ":states:::" + serviceApi;
  }

  /**
   * The definition (Amazon States Language). The execution input holds the range only (partitions,
   * from, to, fromOffset, toOffset, includeErrors, rekey, maxMbPerSec, transactionRecords); the
   * deployment pins the archive and the target, and wins over the input for those keys.
   */
  static Map<String, Object> definition(
      ArchiverSettings s, RestoreSettings r, String bucketName, String functionArn) {
    Map<String, Object> pinned = new LinkedHashMap<>();
    pinned.put("bucket", bucketName);
    pinned.put("topic", s.inputTopic());
    pinned.put("keyPrefix", s.keyPrefix());
    pinned.put("bootstrapServers", r.bootstrapServers());
    pinned.put("targetTopic", r.targetTopic());
    pinned.put("mskIam", r.auth().equals("msk-iam"));
    if (r.auth().equals("tls")) {
      pinned.put("producerProperties", Map.of("security.protocol", "SSL"));
    }
    s.bucketRegion().ifPresent(region -> pinned.put("region", region));

    Map<String, Object> retry =
        Map.of(
            "ErrorEquals", RETRIED_ERRORS,
            "IntervalSeconds", 2,
            "MaxAttempts", 6,
            "BackoffRate", 2);
    Map<String, Object> states = new LinkedHashMap<>();
    states.put(
        "Settings",
        Map.of(
            "Type", "Pass",
            "Parameters", Map.of("request.$", "$", "pinned", pinned),
            "Next", "Plan"));
    states.put(
        "Plan",
        Map.of(
            "Type", "Task",
            "Resource", integration("lambda:invoke"),
            "Parameters",
                Map.of(
                    "FunctionName",
                    functionArn,
                    "Payload",
                    Map.of(
                        "action", "plan",
                        "manifestPrefix.$",
                            "States.Format('" + MANIFESTS + "/{}/', $$.Execution.Name)",
                        "restore.$", "States.JsonMerge($.request, $.pinned, false)")),
            "ResultSelector", Map.of("manifest.$", "$.Payload"),
            "ResultPath", "$.plan",
            "Retry", List.of(retry),
            "Next", "Partitions"));
    Map<String, Object> child = new LinkedHashMap<>();
    child.put(
        "Restore",
        Map.of(
            "Type",
            "Task",
            "Resource",
            integration("lambda:invoke"),
            "Parameters",
            Map.of("FunctionName", functionArn, "Payload.$", "$"),
            "OutputPath",
            "$.Payload",
            "Retry",
            List.of(retry),
            "Next",
            "Done?"));
    child.put(
        "Done?",
        Map.of(
            "Type", "Choice",
            "Choices",
                List.of(Map.of("Variable", "$.done", "BooleanEquals", true, "Next", "Restored")),
            "Default", "Restore"));
    child.put("Restored", Map.of("Type", "Succeed"));
    states.put(
        "Partitions",
        Map.of(
            "Type", "Map",
            "ItemReader",
                Map.of(
                    "Resource", integration("s3:getObject"),
                    "ReaderConfig", Map.of("InputType", "JSON"),
                    "Parameters",
                        Map.of(
                            "Bucket.$", "$.plan.manifest.manifestBucket",
                            "Key.$", "$.plan.manifest.manifestKey")),
            "ItemProcessor",
                Map.of(
                    "ProcessorConfig",
                    Map.of("Mode", "DISTRIBUTED", "ExecutionType", "STANDARD"),
                    "StartAt",
                    "Restore",
                    "States",
                    child),
            "MaxConcurrency", r.maxConcurrency(),
            // One small object, not every item's output: a Map's result is capped at 256 KiB.
            "ResultSelector", Map.of("restored", true),
            "ResultPath", "$.partitions",
            "End", true));
    Map<String, Object> definition = new LinkedHashMap<>();
    definition.put(
        "Comment",
        "kafka-s3-archiver restore: plan, then one child workflow per source partition (docs/restore.md)");
    definition.put("StartAt", "Settings");
    definition.put("States", states);
    return definition;
  }
}
