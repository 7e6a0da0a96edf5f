package io.kafkas3archiver.infra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.assertions.Template;

/**
 * Reads a synthesized template as plain data: IAM statements with their resources rendered to
 * strings ({@code ${Logical.Attr}} for GetAtt, {@code ${Logical}} for Ref, the CDK hash suffix
 * dropped), the function's environment, the dashboard body.
 */
final class Templates {
  private Templates() {}

  /** One IAM statement, flattened. */
  record Statement(String effect, List<String> actions, List<String> resources, Object condition) {}

  static Map<String, Object> resources(Template template) {
    return cast(template.toJSON().get("Resources"));
  }

  static List<Statement> statements(Template template) {
    List<Statement> out = new ArrayList<>();
    for (Object r : resources(template).values()) {
      Map<String, Object> resource = cast(r);
      if (!"AWS::IAM::Policy".equals(resource.get("Type"))) {
        continue;
      }
      Map<String, Object> props = cast(resource.get("Properties"));
      Map<String, Object> doc = cast(props.get("PolicyDocument"));
      for (Object s : (List<?>) doc.get("Statement")) {
        out.add(statement(cast(s)));
      }
    }
    return out;
  }

  static Statement statement(Map<String, Object> s) {
    return new Statement(
        String.valueOf(s.get("Effect")),
        strings(s.get("Action")),
        strings(s.get("Resource")).stream().map(Templates::render).toList(),
        s.get("Condition"));
  }

  static List<String> resourcesFor(List<Statement> statements, String action) {
    return statements.stream()
        .filter(s -> s.actions().contains(action))
        .flatMap(s -> s.resources().stream())
        .toList();
  }

  static List<String> allActions(List<Statement> statements) {
    return statements.stream().flatMap(s -> s.actions().stream()).distinct().toList();
  }

  static Map<String, String> environment(Template template) {
    for (Object r : resources(template).values()) {
      Map<String, Object> resource = cast(r);
      if ("AWS::Lambda::Function".equals(resource.get("Type"))) {
        Map<String, Object> props = cast(resource.get("Properties"));
        Map<String, Object> vars = cast(cast(props.get("Environment")).get("Variables"));
        Map<String, String> out = new LinkedHashMap<>();
        vars.forEach((k, v) -> out.put(k, render(v)));
        return out;
      }
    }
    throw new AssertionError("no AWS::Lambda::Function in the template");
  }

  static String dashboardBody(Template template) {
    for (Object r : resources(template).values()) {
      Map<String, Object> resource = cast(r);
      if ("AWS::CloudWatch::Dashboard".equals(resource.get("Type"))) {
        return render(cast(resource.get("Properties")).get("DashboardBody"));
      }
    }
    throw new AssertionError("no AWS::CloudWatch::Dashboard in the template");
  }

  /** Renders a CloudFormation value (string, Ref, GetAtt, Join) to one comparable string. */
  static String render(Object value) {
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    if (value instanceof Map<?, ?> m && m.size() == 1) {
      Map.Entry<?, ?> e = m.entrySet().iterator().next();
      String fn = e.getKey().toString();
      Object arg = e.getValue();
      switch (fn) {
        case "Ref" -> {
          return "${" + logical(arg.toString()) + "}";
        }
        case "Fn::GetAtt" -> {
          List<?> l = (List<?>) arg;
          return "${" + logical(l.get(0).toString()) + "." + l.get(1) + "}";
        }
        case "Fn::Join" -> {
          List<?> l = (List<?>) arg;
          List<String> parts = new ArrayList<>();
          for (Object p : (List<?>) l.get(1)) {
            parts.add(render(p));
          }
          return String.join(l.get(0).toString(), parts);
        }
        default -> {
          return fn + "(" + arg + ")";
        }
      }
    }
    return String.valueOf(value);
  }

  /** Drops the 8-hex-digit hash CDK appends to logical ids. */
  static String logical(String id) {
    return id.startsWith("AWS::") ? id : id.replaceAll("[0-9A-F]{8}$", "");
  }

  static List<String> strings(Object value) {
    if (value == null) {
      return List.of();
    }
    if (value instanceof List<?> l) {
      List<String> out = new ArrayList<>();
      l.forEach(x -> out.add(x instanceof String s ? s : render(x)));
      return out;
    }
    return List.of(value instanceof String s ? s : render(value));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> cast(Object o) {
    return (Map<String, Object>) o;
  }
}
