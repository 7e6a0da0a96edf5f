package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A deployed stack reduced to what must not drift between the CDK app and template.yaml: every IAM
 * grant, the whole event source mapping, the whole created bucket, what survives stack deletion,
 * and the outputs. Built from a template's resources (CDK's synthesized JSON or template.yaml
 * resolved by {@link SamTemplate}), so a test can also build it from a mutated copy.
 *
 * <p>Normalisation only removes what necessarily differs: CDK's logical-id hashes, numbers written
 * as numbers by CDK and as text by SAM parameters, the alias's logical name and the created
 * bucket's ARN spelled by GetAtt or by name.
 */
record InfraModel(
    Set<String> grants,
    Map<String, Object> mapping,
    Map<String, Object> bucket,
    Set<String> retained,
    Map<String, String> names,
    Map<String, String> outputs,
    Map<String, String> alarms,
    Map<String, Object> queues,
    Set<String> resourcePolicies) {

  static InfraModel of(
      Map<String, ? extends Map<String, Object>> resources, Map<String, Object> outputs) {
    Set<String> grants = new TreeSet<>();
    Map<String, Object> mapping = Map.of();
    Map<String, Object> bucket = Map.of();
    Set<String> retained = new TreeSet<>();
    Map<String, String> names = new TreeMap<>();
    Map<String, String> principals = principals(resources);
    Map<String, Object> queues = new TreeMap<>();
    Set<String> resourcePolicies = new TreeSet<>();
    for (Map.Entry<String, ? extends Map<String, Object>> e : resources.entrySet()) {
      Map<String, Object> r = e.getValue();
      String type = String.valueOf(r.get("Type"));
      Map<String, Object> props = Templates.cast(r.get("Properties"));
      switch (type) {
        case "AWS::IAM::Policy" -> {
          for (Object role : asList(props.get("Roles"))) {
            String principal = principals.getOrDefault(referenced(role), "another role");
            grants.addAll(grants(principal, props.get("PolicyDocument")));
          }
        }
        case "AWS::IAM::Role" -> {
          Object policies = props == null ? null : props.get("Policies");
          if (policies instanceof List<?> l) {
            String principal = principals.getOrDefault(e.getKey(), "another role");
            for (Object p : l) {
              grants.addAll(grants(principal, Templates.cast(p).get("PolicyDocument")));
            }
          }
        }
        case "AWS::Lambda::EventSourceMapping" -> mapping = Templates.cast(normalize(props));
        case "AWS::S3::Bucket" -> bucket = Templates.cast(normalize(props));
        case "AWS::SQS::Queue" -> queues.put(Templates.logical(e.getKey()), normalize(props));
        // Who may not do what to the bucket and the queue: the TLS-only statements.
        case "AWS::S3::BucketPolicy", "AWS::SQS::QueuePolicy" ->
            resourcePolicies.addAll(grants(type, props.get("PolicyDocument")));
        // A schedule: its rate, state, target, input and retries (the audit's, Iceberg's).
        case "AWS::Events::Rule" -> names.put("rule " + Templates.logical(e.getKey()), rule(props));
        case "AWS::CloudWatch::Dashboard" ->
            names.put("dashboard", text(props.get("DashboardName")));
        case "AWS::Glue::Database" ->
            names.put("glueDatabase", text(Templates.cast(props.get("DatabaseInput")).get("Name")));
        case "AWS::S3Tables::TableBucket" ->
            names.put("tableBucket", text(props.get("TableBucketName")));
        case "AWS::S3Tables::Namespace" -> {
          names.put("namespace", text(props.get("Namespace")));
          names.put("namespaceTableBucket", text(props.get("TableBucketARN")));
        }
        case "AWS::Glue::Table" -> {
          names.put("glueTable", text(Templates.cast(props.get("TableInput")).get("Name")));
          names.put("glueTableDatabase", text(props.get("DatabaseName")));
        }
        default -> {}
      }
      if ("Retain".equals(r.get("DeletionPolicy"))) {
        retained.add(type + " " + Templates.logical(e.getKey()));
      }
    }
    Map<String, String> outs = new TreeMap<>();
    if (outputs != null) {
      outputs.forEach(
          (k, v) -> outs.put(Templates.logical(k), text(Templates.cast(v).get("Value"))));
    }
    Map<String, String> alarms = SamParityTest.alarms(Templates.alarms(resources));
    return new InfraModel(
        grants, mapping, bucket, retained, names, outs, alarms, queues, resourcePolicies);
  }

  /**
   * Who holds each role: "function", "restore function", "restore state machine" (the resource
   * whose Role or RoleArn names it). Grants are kept per holder, so a grant of one role cannot hide
   * the same grant missing from another (the restore function reads what the archiver writes).
   */
  private static Map<String, String> principals(
      Map<String, ? extends Map<String, Object>> resources) {
    Map<String, String> out = new TreeMap<>();
    resources.forEach(
        (id, r) -> {
          Map<String, Object> props = Templates.cast(r.get("Properties"));
          if (props == null) {
            return;
          }
          Object role = props.containsKey("Role") ? props.get("Role") : props.get("RoleArn");
          String kind =
              switch (String.valueOf(r.get("Type"))) {
                case "AWS::Lambda::Function", "AWS::Serverless::Function" -> "function";
                case "AWS::StepFunctions::StateMachine", "AWS::Serverless::StateMachine" ->
                    "state machine";
                default -> null;
              };
          String roleId = referenced(role);
          if (kind != null && roleId != null) {
            out.put(roleId, (Templates.logical(id).startsWith("Restore") ? "restore " : "") + kind);
          }
        });
    return out;
  }

  private static String rule(Map<String, Object> props) {
    StringBuilder out =
        new StringBuilder(text(props.get("ScheduleExpression")) + " " + props.get("State"));
    for (Object t : asList(props.get("Targets"))) {
      Map<String, Object> target = Templates.cast(t);
      Object retries =
          target.get("RetryPolicy") == null
              ? null
              : Templates.cast(target.get("RetryPolicy")).get("MaximumRetryAttempts");
      out.append(" ")
          .append(text(target.get("Arn")))
          .append(" ")
          .append(target.get("Input"))
          .append(" retries ")
          .append(retries == null ? "default" : text(retries));
    }
    return out.toString();
  }

  /** The logical id a {@code Ref} or {@code Fn::GetAtt [id, Arn]} names, or null. */
  private static String referenced(Object value) {
    // template.yaml resolved renders both as text: "${FunctionRole.Arn}", "${FunctionRole}".
    if (value instanceof String text && text.matches("\\$\\{[A-Za-z0-9]+(\\.Arn)?}")) {
      return text.substring(2, text.length() - 1).replace(".Arn", "");
    }
    if (value instanceof Map<?, ?> m) {
      if (m.get("Ref") instanceof String ref) {
        return ref;
      }
      if (m.get("Fn::GetAtt") instanceof List<?> l && !l.isEmpty()) {
        return String.valueOf(l.get(0));
      }
      if (m.get("Fn::GetAtt") instanceof String s) {
        return s.split("\\.")[0];
      }
    }
    return null;
  }

  /** "Allow action on resource [if condition] (principal)", one per action and resource. */
  static List<String> grants(String principal, Object document) {
    List<String> out = new ArrayList<>();
    for (String g : grants(document)) {
      out.add(g + " (" + principal + ")");
    }
    return out;
  }

  /** "Allow action on resource [if condition]", one per action and resource. */
  static List<String> grants(Object document) {
    List<String> out = new ArrayList<>();
    if (document == null) {
      return out;
    }
    for (Object s : (List<?>) Templates.cast(document).get("Statement")) {
      Map<String, Object> statement = Templates.cast(s);
      Object condition = statement.get("Condition");
      String suffix = condition == null ? "" : " if " + normalize(condition);
      for (String action : Templates.strings(statement.get("Action"))) {
        for (Object resource : asList(statement.get("Resource"))) {
          out.add(statement.get("Effect") + " " + action + " on " + text(resource) + suffix);
        }
      }
    }
    return out;
  }

  /** Action and resource of every Allow grant, conditions left out. */
  Set<String> allowed() {
    Set<String> out = new TreeSet<>();
    for (String g : grants) {
      if (g.startsWith("Allow ")) {
        String grant = g.substring(0, g.lastIndexOf(" ("));
        int cond = grant.indexOf(" if ");
        out.add(grant.substring(6, cond < 0 ? grant.length() : cond));
      }
    }
    return out;
  }

  private static List<?> asList(Object o) {
    return o instanceof List<?> l ? l : List.of(o);
  }

  /** Scalars become text, intrinsics their rendering, maps sorted by key. */
  static Object normalize(Object value) {
    if (value instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(normalize(x)));
      return out;
    }
    if (value instanceof Map<?, ?> m) {
      if (m.size() == 1 && m.keySet().iterator().next().toString().matches("Ref|Fn::.*")) {
        return text(value);
      }
      Map<String, Object> out = new TreeMap<>();
      m.forEach((k, v) -> out.put(k.toString(), normalize(v)));
      return out;
    }
    return value == null ? null : text(value);
  }

  static String text(Object value) {
    String s = value instanceof String str ? str : Templates.render(value);
    return s.replace("${LiveAlias}", "${alias}")
        .replace("${ArchiverFunction.Alias}", "${alias}")
        .replace("${ArchiveBucket.Arn}", "arn:${AWS::Partition}:s3:::" + InfraMatrix.BUCKET)
        .replace("${ArchiveBucket}", InfraMatrix.BUCKET);
  }

  /** Each difference between two models, in words; empty when they agree. */
  static List<String> differences(InfraModel cdk, InfraModel sam) {
    List<String> out = new ArrayList<>();
    Set<String> onlyCdk = new TreeSet<>(cdk.grants);
    onlyCdk.removeAll(sam.grants);
    Set<String> onlySam = new TreeSet<>(sam.grants);
    onlySam.removeAll(cdk.grants);
    onlyCdk.forEach(g -> out.add("grant only in CDK: " + g));
    onlySam.forEach(g -> out.add("grant only in SAM: " + g));
    compare("mapping", cdk.mapping, sam.mapping, out);
    compare("bucket", cdk.bucket, sam.bucket, out);
    if (!cdk.retained.equals(sam.retained)) {
      out.add("retained on delete: CDK " + cdk.retained + ", SAM " + sam.retained);
    }
    compare("names", new LinkedHashMap<>(cdk.names), new LinkedHashMap<>(sam.names), out);
    compare("outputs", new LinkedHashMap<>(cdk.outputs), new LinkedHashMap<>(sam.outputs), out);
    compare("alarms", new LinkedHashMap<>(cdk.alarms), new LinkedHashMap<>(sam.alarms), out);
    compare("queues", cdk.queues, sam.queues, out);
    if (!cdk.resourcePolicies.equals(sam.resourcePolicies)) {
      out.add(
          "bucket and queue policies: CDK "
              + cdk.resourcePolicies
              + ", SAM "
              + sam.resourcePolicies);
    }
    return out;
  }

  private static void compare(String what, Object cdk, Object sam, List<String> out) {
    if (cdk instanceof Map<?, ?> a && sam instanceof Map<?, ?> b) {
      Set<String> keys = new TreeSet<>();
      a.keySet().forEach(k -> keys.add(k.toString()));
      b.keySet().forEach(k -> keys.add(k.toString()));
      for (String k : keys) {
        compare(what + "." + k, a.get(k), b.get(k), out);
      }
    } else if (cdk == null ? sam != null : !cdk.equals(sam)) {
      out.add(what + ": CDK " + cdk + ", SAM " + sam);
    }
  }
}
