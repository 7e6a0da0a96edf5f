package io.kafkas3archiver.infra;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.infra.InfraMatrix.Deployment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Mutation check of the infra tests: one statement, action, mapping property, bucket property,
 * retention or output at a time is removed or changed, in the CDK app's synthesized template or in
 * template.yaml resolved, and the checks of {@link DeploymentParityTest} (parity with the other
 * template, AWS's documented permissions, no wildcard or stray kms:Decrypt) must notice. Mutations
 * are applied to parsed templates in memory, so the whole matrix runs in one JVM in about a minute
 * (no Maven run per mutation). Prints the score; every mutation must be caught.
 */
class InfraMutationTest {

  /**
   * One change to a template's parsed JSON. {@code alone}: the change matters for data (a queue's
   * retention, a TLS-only policy, a stall alarm, the restore's key), so the checks of one template
   * by itself must catch it, as they would if it were made to both templates at once.
   */
  record Mutation(String description, Consumer<Map<String, Object>> apply, boolean alone) {
    Mutation(String description, Consumer<Map<String, Object>> apply) {
      this(description, apply, false);
    }
  }

  /**
   * The alarms that say a stall or a loss happened: any change to one (its metric, statistic,
   * period, dimensions, threshold, periods, missing data) must be caught one-sided too.
   */
  static final List<String> STALL_ALARMS =
      List.of(
          "HeartbeatAlarm",
          "MappingNotPollingAlarm",
          "PollingErrorsAlarm",
          "DroppedEventsAlarm",
          "FailedBatchesAlarm",
          "OnFailureDestinationAlarm",
          "OnFailureDeliveryErrorsAlarm");

  @Test
  void shouldCatchEveryMutationOfEitherTemplate() {
    int total = 0;
    Map<String, Integer> classes = new java.util.TreeMap<>();
    int byParity = 0;
    int byDocs = 0;
    List<String> survivors = new ArrayList<>();
    for (Deployment d : InfraMatrix.all()) {
      InfraModel cdk = InfraMatrix.model(InfraMatrix.cdkJson(d));
      InfraModel sam = InfraMatrix.model(InfraMatrix.samJson(d));
      for (String side : List.of("CDK", "SAM")) {
        Map<String, Object> original =
            side.equals("CDK") ? InfraMatrix.cdkJson(d) : InfraMatrix.samJson(d);
        for (Mutation m : mutations(original)) {
          Map<String, Object> json =
              side.equals("CDK") ? InfraMatrix.cdkJson(d) : InfraMatrix.samJson(d);
          m.apply().accept(json);
          InfraModel mutated = InfraMatrix.model(json);
          boolean parity =
              !InfraModel.differences(
                      side.equals("CDK") ? mutated : cdk, side.equals("CDK") ? sam : mutated)
                  .isEmpty();
          boolean docs = !InfraMatrix.problems(d, mutated, side).isEmpty();
          total++;
          byParity += parity ? 1 : 0;
          byDocs += docs ? 1 : 0;
          if (!parity && !docs) {
            survivors.add(d.name() + " " + side + ": " + m.description());
          } else if (m.alone() && !docs) {
            survivors.add(d.name() + " " + side + " (both templates): " + m.description());
          }
          classes.merge(mutationClass(m.description()), 1, Integer::sum);
        }
      }
    }
    System.out.printf(
        "infra mutation score: %d of %d caught (%d by CDK/SAM parity, %d by the documented-"
            + "permission checks alone); %d survived%n",
        total - survivors.size(), total, byParity, byDocs, survivors.size());
    classes.forEach((c, n) -> System.out.printf("  %-28s %5d mutations%n", c, n));
    survivors.forEach(s -> System.out.println("  survived: " + s));
    assertThat(total).isGreaterThan(500);
    assertThat(survivors).isEmpty();
  }

  /** The classes docs/testing.md lists: what part of a template a mutation changes. */
  static String mutationClass(String description) {
    if (description.contains(" deleted with the stack")) {
      return "retention on stack delete";
    }
    if (description.startsWith("without output")) {
      return "stack output";
    }
    if (description.startsWith("AWS::CloudWatch::Alarm")
        && (description.endsWith(" namespace changed")
            || description.endsWith(" period changed")
            || description.contains(" dimension "))) {
      return "alarm metric (namespace, dimensions, period)";
    }
    if (description.startsWith("AWS::Events::Rule")) {
      return "schedule";
    }
    if (description.startsWith("AWS::CloudWatch::Alarm")) {
      return "alarm (metric, threshold, missing data)";
    }
    if (description.startsWith("AWS::SQS::Queue")) {
      return "queue attribute";
    }
    if (description.startsWith("AWS::S3::Bucket lifecycle")) {
      return "lifecycle rule";
    }
    if (description.startsWith("AWS::S3::Bucket")) {
      return "bucket property";
    }
    if (description.startsWith("AWS::Lambda::EventSourceMapping")) {
      return "event source mapping property";
    }
    if (description.startsWith("data-Restore")) {
      return "restore role grant (its key)";
    }
    if (description.startsWith("data-")) {
      return "bucket or queue policy statement";
    }
    if (description.startsWith("Restore")) {
      return "restore role grant";
    }
    return "IAM grant";
  }

  static List<Mutation> mutations(Map<String, Object> template) {
    List<Mutation> out = new ArrayList<>();
    Map<String, Object> resources = Templates.cast(template.get("Resources"));
    resources.forEach(
        (id, r) -> {
          Map<String, Object> resource = Templates.cast(r);
          String type = String.valueOf(resource.get("Type"));
          Map<String, Object> props = Templates.cast(resource.get("Properties"));
          if (type.equals("AWS::IAM::Policy")) {
            statementMutations(id, List.of("PolicyDocument"), props, out);
          }
          if (type.equals("AWS::S3::BucketPolicy") || type.equals("AWS::SQS::QueuePolicy")) {
            statementMutations(id, List.of("PolicyDocument"), props, out);
          }
          if (type.equals("AWS::CloudWatch::Alarm")) {
            alarmMutations(id, props, out);
          }
          if (type.equals("AWS::Events::Rule")) {
            ruleMutations(id, props, out);
          }
          if (type.equals("AWS::S3::Bucket")
              && props.get("LifecycleConfiguration") instanceof Map<?, ?> lc
              && lc.get("Rules") instanceof List<?> rules) {
            for (int i = 0; i < rules.size(); i++) {
              int at = i;
              for (String key : Templates.cast(rules.get(i)).keySet()) {
                out.add(
                    new Mutation(
                        "AWS::S3::Bucket lifecycle rule " + i + " without " + key,
                        t -> lifecycleRule(t, id, at).remove(key)));
                if (!(Templates.cast(rules.get(i)).get(key) instanceof Map<?, ?>)
                    && !(Templates.cast(rules.get(i)).get(key) instanceof List<?>)) {
                  out.add(
                      new Mutation(
                          "AWS::S3::Bucket lifecycle rule " + i + " " + key + " changed",
                          t ->
                              lifecycleRule(t, id, at)
                                  .put(key, changed(lifecycleRule(t, id, at).get(key)))));
                }
              }
            }
          }
          if (type.equals("AWS::IAM::Role") && props.get("Policies") instanceof List<?> ps) {
            for (int p = 0; p < ps.size(); p++) {
              statementMutations(id, List.of("Policies", p, "PolicyDocument"), props, out);
            }
          }
          boolean queue = type.equals("AWS::SQS::Queue");
          if (type.equals("AWS::Lambda::EventSourceMapping")
              || type.equals("AWS::S3::Bucket")
              || queue) {
            for (String key : props.keySet()) {
              // The bucket's Object Lock is a promise to the auditor: caught one-sided too.
              boolean lock = key.startsWith("ObjectLock");
              out.add(
                  new Mutation(
                      type + " without " + key, t -> props(t, id).remove(key), queue || lock));
              Object v = props.get(key);
              if (v instanceof List<?> l && !l.isEmpty()) {
                for (int i = 0; i < l.size(); i++) {
                  int at = i;
                  out.add(
                      new Mutation(
                          type + " " + key + " without item " + i,
                          t -> ((List<?>) props(t, id).get(key)).remove(at)));
                }
              } else if (!(v instanceof Map<?, ?>)) {
                out.add(
                    new Mutation(
                        type + " " + key + " changed from " + v,
                        t -> props(t, id).put(key, changed(props(t, id).get(key))),
                        (queue && key.equals("MessageRetentionPeriod")) || lock));
              }
            }
          }
          if (type.equals("AWS::S3::Bucket")
              && props.get("ObjectLockConfiguration") instanceof Map<?, ?>) {
            objectLockMutations(id, out);
          }
          if ("Retain".equals(resource.get("DeletionPolicy"))) {
            out.add(
                new Mutation(
                    type + " " + id + " deleted with the stack",
                    t -> resource(t, id).remove("DeletionPolicy"),
                    type.endsWith("Policy")));
          }
        });
    Map<String, Object> outputs = Templates.cast(template.get("Outputs"));
    if (outputs != null) {
      for (String key : outputs.keySet()) {
        out.add(
            new Mutation(
                "without output " + key, t -> Templates.cast(t.get("Outputs")).remove(key)));
      }
    }
    return out;
  }

  /** The default retention's mode and days, each changed; one template alone must notice. */
  private static void objectLockMutations(String id, List<Mutation> out) {
    for (String key : List.of("Mode", "Days")) {
      out.add(
          new Mutation(
              "AWS::S3::Bucket ObjectLockConfiguration default retention " + key + " changed",
              t -> {
                Map<String, Object> retention =
                    Templates.cast(
                        Templates.cast(
                                Templates.cast(props(t, id).get("ObjectLockConfiguration"))
                                    .get("Rule"))
                            .get("DefaultRetention"));
                Object v = retention.get(key);
                retention.put(
                    key,
                    !key.equals("Mode")
                        ? changed(v)
                        : "COMPLIANCE".equals(v) ? "GOVERNANCE" : "COMPLIANCE");
              },
              true));
    }
    out.add(
        new Mutation(
            "AWS::S3::Bucket without VersioningConfiguration under Object Lock",
            t -> props(t, id).remove("VersioningConfiguration"),
            true));
  }

  private static void statementMutations(
      String id, List<Object> path, Map<String, Object> props, List<Mutation> out) {
    List<?> statements = (List<?>) Templates.cast(at(props, path)).get("Statement");
    for (int i = 0; i < statements.size(); i++) {
      int s = i;
      Map<String, Object> statement = Templates.cast(statements.get(i));
      String name = id + " statement " + statement.getOrDefault("Sid", i);
      List<String> actions = Templates.strings(statement.get("Action"));
      // A TLS-only deny, or the restore's key: what matters for data whatever the other side.
      // The audit's grants too: without them the scheduled audit fails and the gap alarm is blind.
      boolean alone =
          "Deny".equals(statement.get("Effect"))
              || (Templates.logical(id).startsWith("Restore")
                  && actions.stream().anyMatch(a -> a.startsWith("kms:")))
              || String.valueOf(statement.get("Sid")).startsWith("Audit");
      name = (alone ? "data-" : "") + name;
      out.add(new Mutation(name + " removed", t -> statements(t, id, path).remove(s), alone));
      for (String action : actions) {
        String wrong =
            action.equals("kms:Decrypt") ? "kms:Encrypt" : action.replace(":", ":Mutated");
        out.add(
            new Mutation(
                name + " " + action + " changed to " + wrong,
                t -> {
                  Map<String, Object> st = Templates.cast(statements(t, id, path).get(s));
                  List<String> as = new ArrayList<>(Templates.strings(st.get("Action")));
                  as.set(as.indexOf(action), wrong);
                  st.put("Action", as);
                },
                alone));
        if (actions.size() > 1) {
          out.add(
              new Mutation(
                  name + " without " + action,
                  t -> {
                    Map<String, Object> st = Templates.cast(statements(t, id, path).get(s));
                    List<String> as = new ArrayList<>(Templates.strings(st.get("Action")));
                    as.remove(action);
                    st.put("Action", as);
                  },
                  alone));
        }
      }
      if (!"*".equals(statement.get("Resource"))) {
        out.add(
            new Mutation(
                name + " resource widened to *",
                t -> Templates.cast(statements(t, id, path).get(s)).put("Resource", "*")));
      }
      if (statement.containsKey("Condition")) {
        out.add(
            new Mutation(
                name + " without its condition",
                t -> Templates.cast(statements(t, id, path).get(s)).remove("Condition"),
                alone));
      }
    }
  }

  /**
   * An alarm removed, or its metric (name, namespace, dimensions, period), statistic, expression,
   * comparison, threshold, evaluation periods, datapoints or missing-data treatment changed.
   */
  private static void alarmMutations(String id, Map<String, Object> props, List<Mutation> out) {
    String name = Templates.logical(id);
    // The audit's alarms (docs/audit.md) are checked one-sided in full, thresholds included.
    boolean audit = InfraMatrix.AUDIT_ALARMS.contains(name);
    boolean stall = STALL_ALARMS.contains(name) || audit;
    String what = "AWS::CloudWatch::Alarm " + name;
    out.add(
        new Mutation(what + " removed", t -> Templates.cast(t.get("Resources")).remove(id), stall));
    out.add(
        new Mutation(
            what + " TreatMissingData flipped",
            t ->
                props(t, id)
                    .put(
                        "TreatMissingData",
                        "breaching".equals(props(t, id).get("TreatMissingData"))
                            ? "notBreaching"
                            : "breaching"),
            stall));
    for (String key : List.of("Threshold", "EvaluationPeriods", "DatapointsToAlarm")) {
      if (props.containsKey(key)) {
        out.add(
            new Mutation(
                what + " " + key + " changed",
                t -> props(t, id).put(key, changed(Templates.render(props(t, id).get(key)))),
                stall));
      }
    }
    out.add(
        new Mutation(
            what + " ComparisonOperator changed",
            t ->
                props(t, id)
                    .put(
                        "ComparisonOperator",
                        "LessThanThreshold".equals(props(t, id).get("ComparisonOperator"))
                            ? "GreaterThanThreshold"
                            : "LessThanThreshold"),
            stall));
    if (props.containsKey("MetricName")) {
      out.add(
          new Mutation(
              what + " MetricName changed",
              t -> props(t, id).put("MetricName", props(t, id).get("MetricName") + "Mutant"),
              stall));
      out.add(
          new Mutation(
              what + " Statistic changed",
              t ->
                  props(t, id)
                      .put(
                          "Statistic",
                          "Sum".equals(props(t, id).get("Statistic")) ? "Average" : "Sum"),
              stall));
      metricMutations(what, stall, t -> props(t, id), props, out);
    }
    if (props.get("Metrics") instanceof List<?> queries) {
      for (int i = 0; i < queries.size(); i++) {
        int q = i;
        Map<String, Object> query = Templates.cast(queries.get(i));
        if (query.containsKey("Expression")) {
          out.add(
              new Mutation(
                  what + " expression changed",
                  t -> query(t, id, q).put("Expression", "0 * (" + query.get("Expression") + ")"),
                  stall));
        } else {
          out.add(
              new Mutation(
                  what + " metric " + query.get("Id") + " renamed",
                  t -> {
                    Map<String, Object> m =
                        Templates.cast(
                            Templates.cast(query(t, id, q).get("MetricStat")).get("Metric"));
                    m.put("MetricName", m.get("MetricName") + "Mutant");
                  },
                  stall));
          Map<String, Object> stat = Templates.cast(query.get("MetricStat"));
          String which = what + " metric " + query.get("Id");
          out.add(
              new Mutation(
                  which + " period changed",
                  t -> {
                    Map<String, Object> ms = Templates.cast(query(t, id, q).get("MetricStat"));
                    ms.put("Period", changed(Templates.render(ms.get("Period"))));
                  },
                  stall));
          metricMutations(
              which,
              stall,
              t -> Templates.cast(Templates.cast(query(t, id, q).get("MetricStat")).get("Metric")),
              Templates.cast(stat.get("Metric")),
              out);
        }
      }
    }
  }

  /**
   * A metric's namespace changed, and each of its dimensions removed or pointed elsewhere; for a
   * plain alarm also its period. {@code metric} finds the metric's map in a template copy.
   */
  private static void metricMutations(
      String what,
      boolean stall,
      java.util.function.Function<Map<String, Object>, Map<String, Object>> metric,
      Map<String, Object> original,
      List<Mutation> out) {
    out.add(
        new Mutation(
            what + " namespace changed",
            t -> metric.apply(t).put("Namespace", metric.apply(t).get("Namespace") + "Mutant"),
            stall));
    if (original.containsKey("Period")) {
      out.add(
          new Mutation(
              what + " period changed",
              t ->
                  metric
                      .apply(t)
                      .put("Period", changed(Templates.render(metric.apply(t).get("Period")))),
              stall));
    }
    if (original.get("Dimensions") instanceof List<?> dims) {
      for (int i = 0; i < dims.size(); i++) {
        int at = i;
        out.add(
            new Mutation(
                what + " dimension " + i + " removed",
                t -> ((List<?>) metric.apply(t).get("Dimensions")).remove(at),
                stall));
        out.add(
            new Mutation(
                what + " dimension " + i + " value changed",
                t -> {
                  Map<String, Object> dim =
                      Templates.cast(((List<?>) metric.apply(t).get("Dimensions")).get(at));
                  dim.put("Value", "mutant");
                },
                stall));
      }
    }
  }

  /**
   * A schedule removed, its rate, state or input changed. The audit's schedule must be caught on
   * one template alone: without it the gap alarm has nothing to watch.
   */
  private static void ruleMutations(String id, Map<String, Object> props, List<Mutation> out) {
    String name = Templates.logical(id);
    boolean audit = name.equals("AuditSchedule");
    String what = "AWS::Events::Rule " + name;
    out.add(
        new Mutation(what + " removed", t -> Templates.cast(t.get("Resources")).remove(id), audit));
    out.add(
        new Mutation(
            what + " ScheduleExpression changed",
            t ->
                props(t, id)
                    .put(
                        "ScheduleExpression",
                        Templates.render(props(t, id).get("ScheduleExpression"))
                            .replaceFirst("\\d+", "7")),
            audit));
    out.add(new Mutation(what + " disabled", t -> props(t, id).put("State", "DISABLED"), audit));
    out.add(
        new Mutation(
            what + " Input changed",
            t ->
                Templates.cast(((List<?>) props(t, id).get("Targets")).get(0))
                    .put("Input", "{\"action\":\"plan\"}"),
            audit));
  }

  private static Map<String, Object> query(Map<String, Object> t, String id, int i) {
    return Templates.cast(((List<?>) props(t, id).get("Metrics")).get(i));
  }

  private static Map<String, Object> lifecycleRule(Map<String, Object> t, String id, int i) {
    return Templates.cast(
        ((List<?>) Templates.cast(props(t, id).get("LifecycleConfiguration")).get("Rules")).get(i));
  }

  private static Object changed(Object v) {
    String s = String.valueOf(v);
    if (s.equals("true") || s.equals("false")) {
      return s.equals("true") ? "false" : "true";
    }
    if (s.matches("-?\\d+")) {
      return Long.toString(Long.parseLong(s) + 1);
    }
    if (v instanceof Map<?, ?>) {
      return "mutant";
    }
    return s + "-mutant";
  }

  private static Map<String, Object> resource(Map<String, Object> t, String id) {
    return Templates.cast(Templates.cast(t.get("Resources")).get(id));
  }

  private static Map<String, Object> props(Map<String, Object> t, String id) {
    return Templates.cast(resource(t, id).get("Properties"));
  }

  @SuppressWarnings("unchecked")
  private static List<Object> statements(Map<String, Object> t, String id, List<Object> path) {
    return (List<Object>) Templates.cast(at(props(t, id), path)).get("Statement");
  }

  private static Object at(Object root, List<Object> path) {
    Object o = root;
    for (Object step : path) {
      o = step instanceof Integer i ? ((List<?>) o).get(i) : Templates.cast(o).get(step);
    }
    return o;
  }
}
