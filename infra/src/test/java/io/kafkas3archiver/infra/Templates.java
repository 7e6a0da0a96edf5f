package io.kafkas3archiver.infra;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
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

  /** One metric line of a dashboard widget, its shorthand ("." and "...") expanded. */
  record DashboardMetric(
      String namespace, String metricName, Map<String, String> dimensions, String stat) {
    @Override
    public String toString() {
      return namespace + " " + metricName + " " + dimensions + " " + stat;
    }
  }

  /** Every metric line of a dashboard body, in order. */
  static List<DashboardMetric> dashboardMetrics(String body) {
    List<DashboardMetric> out = new ArrayList<>();
    for (Map<String, Object> props : widgetProperties(body, "metric")) {
      Object rows = props.get("metrics");
      if (rows == null) {
        continue;
      }
      List<Object> previous = List.of();
      for (Object r : (List<?>) rows) {
        List<Object> row = new ArrayList<>((List<?>) r);
        Map<String, Object> options =
            !row.isEmpty() && row.get(row.size() - 1) instanceof Map<?, ?> m
                ? cast(row.remove(row.size() - 1))
                : Map.of();
        if (!row.isEmpty() && "...".equals(row.get(0))) {
          row = new ArrayList<>(previous);
        }
        for (int i = 0; i < row.size(); i++) {
          if (".".equals(row.get(i))) {
            row.set(i, previous.get(i));
          }
        }
        previous = row;
        Map<String, String> dims = new java.util.TreeMap<>();
        for (int i = 2; i + 1 < row.size(); i += 2) {
          dims.put(row.get(i).toString(), row.get(i + 1).toString());
        }
        Object stat = options.getOrDefault("stat", props.getOrDefault("stat", "Average"));
        out.add(
            new DashboardMetric(
                row.get(0).toString(), row.get(1).toString(), dims, stat.toString()));
      }
    }
    return out;
  }

  /** The alarm ARNs a dashboard shows, in alarm-status widgets and as graph annotations. */
  static List<String> dashboardAlarms(String body) {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> props : widgetProperties(body, "alarm")) {
      out.addAll(strings(props.get("alarms")));
    }
    for (Map<String, Object> props : widgetProperties(body, "metric")) {
      Object annotations = props.get("annotations");
      if (annotations != null) {
        out.addAll(strings(cast(annotations).get("alarms")));
      }
    }
    return out;
  }

  private static List<Map<String, Object>> widgetProperties(String body, String type) {
    try {
      Map<String, Object> root = cast(new ObjectMapper().readValue(body, Map.class));
      List<Map<String, Object>> out = new ArrayList<>();
      for (Object w : (List<?>) root.get("widgets")) {
        Map<String, Object> widget = cast(w);
        if (type.equals(widget.get("type"))) {
          out.add(cast(widget.get("properties")));
        }
      }
      return out;
    } catch (JsonProcessingException e) {
      throw new AssertionError("the dashboard body is not JSON: " + body, e);
    }
  }

  /** Each CloudWatch alarm by logical id (CDK hash dropped), as its properties. */
  static Map<String, Map<String, Object>> alarms(Map<String, ?> resources) {
    Map<String, Map<String, Object>> out = new java.util.TreeMap<>();
    resources.forEach(
        (id, r) -> {
          Map<String, Object> resource = cast(r);
          if ("AWS::CloudWatch::Alarm".equals(resource.get("Type"))) {
            out.put(logical(id), cast(resource.get("Properties")));
          }
        });
    return out;
  }

  /**
   * "namespace metric {dimensions} stat period" of every metric an alarm reads: the single metric
   * of a plain alarm, each MetricStat of a metric-math alarm (with its query id).
   */
  static List<String> alarmMetrics(Map<String, Object> alarm) {
    List<String> out = new ArrayList<>();
    if (alarm.get("MetricName") != null) {
      out.add(
          metric(
              alarm.get("Namespace"),
              alarm.get("MetricName"),
              alarm.get("Dimensions"),
              alarm.get("Statistic"),
              alarm.get("Period")));
    }
    Object queries = alarm.get("Metrics");
    if (queries != null) {
      for (Object q : (List<?>) queries) {
        Map<String, Object> query = cast(q);
        Object stat = query.get("MetricStat");
        if (stat != null) {
          Map<String, Object> ms = cast(stat);
          Map<String, Object> m = cast(ms.get("Metric"));
          out.add(
              query.get("Id")
                  + "="
                  + metric(
                      m.get("Namespace"),
                      m.get("MetricName"),
                      m.get("Dimensions"),
                      ms.get("Stat"),
                      ms.get("Period")));
        }
      }
    }
    return out;
  }

  /** The metric-math expression of an alarm, or null for a plain alarm. */
  static String alarmExpression(Map<String, Object> alarm) {
    Object queries = alarm.get("Metrics");
    if (queries == null) {
      return null;
    }
    for (Object q : (List<?>) queries) {
      Object e = cast(q).get("Expression");
      if (e != null) {
        return e.toString();
      }
    }
    return null;
  }

  private static String metric(
      Object namespace, Object name, Object dimensions, Object stat, Object period) {
    Map<String, String> dims = new java.util.TreeMap<>();
    if (dimensions != null) {
      for (Object d : (List<?>) dimensions) {
        Map<String, Object> dim = cast(d);
        dims.put(dim.get("Name").toString(), render(dim.get("Value")));
      }
    }
    return namespace + " " + name + " " + dims + " " + stat + " " + render(period);
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
