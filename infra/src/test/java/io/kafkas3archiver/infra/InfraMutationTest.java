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

  /** One change to a template's parsed JSON. */
  record Mutation(String description, Consumer<Map<String, Object>> apply) {}

  @Test
  void shouldCatchEveryMutationOfEitherTemplate() {
    int total = 0;
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
          }
        }
      }
    }
    System.out.printf(
        "infra mutation score: %d of %d caught (%d by CDK/SAM parity, %d by the documented-"
            + "permission checks alone); %d survived%n",
        total - survivors.size(), total, byParity, byDocs, survivors.size());
    survivors.forEach(s -> System.out.println("  survived: " + s));
    assertThat(total).isGreaterThan(500);
    assertThat(survivors).isEmpty();
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
          if (type.equals("AWS::IAM::Role") && props.get("Policies") instanceof List<?> ps) {
            for (int p = 0; p < ps.size(); p++) {
              statementMutations(id, List.of("Policies", p, "PolicyDocument"), props, out);
            }
          }
          if (type.equals("AWS::Lambda::EventSourceMapping") || type.equals("AWS::S3::Bucket")) {
            for (String key : props.keySet()) {
              out.add(new Mutation(type + " without " + key, t -> props(t, id).remove(key)));
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
                        t -> props(t, id).put(key, changed(props(t, id).get(key)))));
              }
            }
          }
          if ("Retain".equals(resource.get("DeletionPolicy"))) {
            out.add(
                new Mutation(
                    type + " " + id + " deleted with the stack",
                    t -> resource(t, id).remove("DeletionPolicy")));
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

  private static void statementMutations(
      String id, List<Object> path, Map<String, Object> props, List<Mutation> out) {
    List<?> statements = (List<?>) Templates.cast(at(props, path)).get("Statement");
    for (int i = 0; i < statements.size(); i++) {
      int s = i;
      Map<String, Object> statement = Templates.cast(statements.get(i));
      String name = id + " statement " + statement.getOrDefault("Sid", i);
      out.add(new Mutation(name + " removed", t -> statements(t, id, path).remove(s)));
      List<String> actions = Templates.strings(statement.get("Action"));
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
                }));
        if (actions.size() > 1) {
          out.add(
              new Mutation(
                  name + " without " + action,
                  t -> {
                    Map<String, Object> st = Templates.cast(statements(t, id, path).get(s));
                    List<String> as = new ArrayList<>(Templates.strings(st.get("Action")));
                    as.remove(action);
                    st.put("Action", as);
                  }));
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
                t -> Templates.cast(statements(t, id, path).get(s)).remove("Condition")));
      }
    }
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
