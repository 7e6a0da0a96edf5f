package io.kafkas3archiver.infra;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads template.yaml, short-form tags included, and resolves it for a set of parameter values the
 * way CloudFormation would: conditions are evaluated, {@code Fn::If} picks a branch, {@code
 * AWS::NoValue} removes the item, parameters are substituted. What cannot be known before deploy is
 * rendered like {@link Templates#render}: {@code ${AWS::Partition}}, {@code ${Logical}}, {@code
 * ${Logical.Attr}}.
 */
final class SamTemplate {
  private static final Object NO_VALUE = new Object();
  private static final Pattern SUB_VAR = Pattern.compile("\\$\\{(!?)([^}]+)}");

  private final Map<String, Object> root;
  private final Map<String, Object> parameters = new LinkedHashMap<>();
  private final Map<String, Boolean> conditions = new LinkedHashMap<>();

  SamTemplate(Path file, Map<String, String> parameterValues) throws IOException {
    try (YAMLParser p = new YAMLFactory().createParser(Files.readString(file))) {
      p.nextToken();
      this.root = Templates.cast(read(p));
    }
    Map<String, Object> declared = Templates.cast(root.get("Parameters"));
    declared.forEach(
        (name, d) -> {
          Map<String, Object> decl = Templates.cast(d);
          Object value =
              parameterValues.getOrDefault(name, (String) stringOrNull(decl.get("Default")));
          if (value == null) {
            throw new IllegalArgumentException(
                "parameter " + name + " has no value and no default");
          }
          if ("CommaDelimitedList".equals(decl.get("Type"))) {
            String s = value.toString();
            value = s.isEmpty() ? List.of("") : Arrays.asList(s.split(","));
          }
          parameters.put(name, value);
        });
    for (String key : parameterValues.keySet()) {
      if (!declared.containsKey(key)) {
        throw new IllegalArgumentException("template.yaml has no parameter " + key);
      }
    }
    Map<String, Object> conds = Templates.cast(root.get("Conditions"));
    conds.keySet().forEach(this::condition);
  }

  /** Globals.Function, unresolved (it holds no conditions that differ between functions). */
  static Map<String, Object> globals(Path file) throws IOException {
    try (YAMLParser p = new YAMLFactory().createParser(Files.readString(file))) {
      p.nextToken();
      Map<String, Object> root = Templates.cast(read(p));
      return Templates.cast(Templates.cast(root.get("Globals")).get("Function"));
    }
  }

  /** The resolved environment of the function that deploys under these parameters. */
  Map<String, String> environment() {
    Map<String, Object> globals =
        Templates.cast(Templates.cast(root.get("Globals")).get("Function"));
    Map<String, Object> vars =
        Templates.cast(
            Templates.cast(resolve(Templates.cast(globals.get("Environment")))).get("Variables"));
    Map<String, String> out = new LinkedHashMap<>();
    vars.forEach((k, v) -> out.put(k, v.toString()));
    return out;
  }

  /** Globals.Function resolved for these parameters. */
  Map<String, Object> resolvedGlobals() {
    return Templates.cast(resolve(Templates.cast(root.get("Globals")).get("Function")));
  }

  /** Resources that exist under these parameters, resolved. */
  Map<String, Map<String, Object>> resources() {
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    Templates.cast(root.get("Resources"))
        .forEach(
            (id, r) -> {
              Map<String, Object> resource = Templates.cast(r);
              Object cond = resource.get("Condition");
              if (cond == null || condition(cond.toString())) {
                out.put(id, Templates.cast(resolve(resource)));
              }
            });
    return out;
  }

  /** Outputs that exist under these parameters, resolved. */
  Map<String, Object> outputs() {
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Object> declared = Templates.cast(root.get("Outputs"));
    if (declared != null) {
      declared.forEach(
          (id, o) -> {
            Map<String, Object> output = Templates.cast(o);
            Object cond = output.get("Condition");
            if (cond == null || condition(cond.toString())) {
              out.put(id, resolve(output));
            }
          });
    }
    return out;
  }

  // --- Rules and parameter constraints (what CloudFormation refuses before it creates anything)

  /**
   * What CloudFormation would refuse these parameters for, before creating anything: each failed
   * parameter constraint (AllowedValues, AllowedPattern, MinValue/MaxValue, MinLength/MaxLength) as
   * "Parameter: ConstraintDescription", and each failed assertion of the template's Rules whose
   * RuleCondition holds (none = always) as "RuleName: AssertDescription". Empty: it would deploy.
   */
  List<String> refusals() {
    List<String> out = new ArrayList<>();
    Templates.cast(root.get("Parameters"))
        .forEach(
            (name, d) -> {
              Map<String, Object> decl = Templates.cast(d);
              if (!constraintsHold(decl, String.valueOf(flat(parameters.get(name))))) {
                out.add(name + ": " + decl.getOrDefault("ConstraintDescription", "constraint"));
              }
            });
    out.addAll(brokenRules());
    return out;
  }

  private static boolean constraintsHold(Map<String, Object> decl, String value) {
    if (decl.get("AllowedValues") instanceof List<?> allowed
        && allowed.stream().map(String::valueOf).noneMatch(value::equals)) {
      return false;
    }
    if (decl.get("AllowedPattern") instanceof String pattern && !value.matches(pattern)) {
      return false;
    }
    if (decl.get("MinLength") != null
        && value.length() < Integer.parseInt(decl.get("MinLength").toString())) {
      return false;
    }
    if (decl.get("MaxLength") != null
        && value.length() > Integer.parseInt(decl.get("MaxLength").toString())) {
      return false;
    }
    if ("Number".equals(decl.get("Type"))) {
      java.math.BigDecimal n;
      try {
        n = new java.math.BigDecimal(value);
      } catch (NumberFormatException e) {
        return false;
      }
      if (decl.get("MinValue") != null
          && n.compareTo(new java.math.BigDecimal(decl.get("MinValue").toString())) < 0) {
        return false;
      }
      if (decl.get("MaxValue") != null
          && n.compareTo(new java.math.BigDecimal(decl.get("MaxValue").toString())) > 0) {
        return false;
      }
    }
    return true;
  }

  // --- end of Rules

  /** Statements of the inline policies of FunctionRole, flattened. */
  List<Templates.Statement> roleStatements() {
    Map<String, Object> role = Templates.cast(resources().get("FunctionRole").get("Properties"));
    List<Templates.Statement> out = new ArrayList<>();
    for (Object p : (List<?>) role.get("Policies")) {
      Map<String, Object> doc = Templates.cast(Templates.cast(p).get("PolicyDocument"));
      for (Object s : (List<?>) doc.get("Statement")) {
        out.add(Templates.statement(Templates.cast(s)));
      }
    }
    return out;
  }

  /**
   * The AssertDescription of each Rule assertion these parameter values break, as CloudFormation
   * would refuse them before creating anything: a Rule applies when its RuleCondition holds (or it
   * has none).
   */
  List<String> brokenRules() {
    List<String> out = new ArrayList<>();
    Map<String, Object> rules = Templates.cast(root.get("Rules"));
    rules.forEach(
        (name, r) -> {
          Map<String, Object> rule = Templates.cast(r);
          if (rule.containsKey("RuleCondition") && !evaluate(rule.get("RuleCondition"))) {
            return;
          }
          for (Object a : (List<?>) rule.get("Assertions")) {
            Map<String, Object> assertion = Templates.cast(a);
            if (!evaluate(assertion.get("Assert"))) {
              out.add(name + ": " + assertion.get("AssertDescription"));
            }
          }
        });
    return out;
  }

  private boolean condition(String name) {
    Boolean known = conditions.get(name);
    if (known != null) {
      return known;
    }
    Object def = Templates.cast(root.get("Conditions")).get(name);
    if (def == null) {
      throw new IllegalArgumentException("no condition " + name);
    }
    boolean value = evaluate(def);
    conditions.put(name, value);
    return value;
  }

  private boolean evaluate(Object expr) {
    Map<String, Object> m = Templates.cast(expr);
    Map.Entry<String, Object> e = m.entrySet().iterator().next();
    List<?> args = e.getValue() instanceof List<?> l ? l : List.of(e.getValue());
    return switch (e.getKey()) {
      case "Fn::Equals" ->
          String.valueOf(flat(resolve(args.get(0))))
              .equals(String.valueOf(flat(resolve(args.get(1)))));
      case "Fn::Not" -> !evaluate(args.get(0));
      case "Fn::And" -> args.stream().allMatch(this::evaluate);
      case "Fn::Or" -> args.stream().anyMatch(this::evaluate);
      case "Condition" -> condition(args.get(0).toString());
      // Rules only: whether the list (first argument) holds the value (second).
      case "Fn::Contains" ->
          ((List<?>) resolve(args.get(0)))
              .stream()
                  .map(String::valueOf)
                  .toList()
                  .contains(String.valueOf(flat(resolve(args.get(1)))));
      default -> throw new IllegalArgumentException("condition function " + e.getKey());
    };
  }

  private static Object flat(Object v) {
    return v instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList()) : v;
  }

  private Object resolve(Object value) {
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      for (Object item : list) {
        Object r = resolve(item);
        if (r != NO_VALUE) {
          out.add(r);
        }
      }
      return out;
    }
    if (!(value instanceof Map<?, ?>)) {
      return value;
    }
    Map<String, Object> map = Templates.cast(value);
    if (map.size() == 1) {
      Map.Entry<String, Object> e = map.entrySet().iterator().next();
      String key = e.getKey();
      Object arg = e.getValue();
      switch (key) {
        case "Ref" -> {
          return ref(arg.toString());
        }
        case "Fn::GetAtt" -> {
          List<?> l = arg instanceof List<?> x ? x : Arrays.asList(arg.toString().split("\\.", 2));
          return "${" + l.get(0) + "." + l.get(1) + "}";
        }
        case "Fn::If" -> {
          List<?> l = (List<?>) arg;
          return resolve(condition(l.get(0).toString()) ? l.get(1) : l.get(2));
        }
        case "Fn::Sub" -> {
          return sub(arg);
        }
        case "Fn::Join" -> {
          List<?> l = (List<?>) arg;
          List<?> parts = (List<?>) resolve(l.get(1));
          return String.join(l.get(0).toString(), parts.stream().map(String::valueOf).toList());
        }
        case "Fn::Split" -> {
          List<?> l = (List<?>) arg;
          String source = String.valueOf(flat(resolve(l.get(1))));
          return Arrays.asList(source.split(Pattern.quote(l.get(0).toString()), -1));
        }
        case "Fn::Select" -> {
          List<?> l = (List<?>) arg;
          List<?> from = (List<?>) resolve(l.get(1));
          return from.get(Integer.parseInt(String.valueOf(resolve(l.get(0)))));
        }
        case "Fn::FindInMap" -> {
          List<?> l = (List<?>) arg;
          Object found = Templates.cast(root.get("Mappings")).get(flat(resolve(l.get(0))));
          for (int i = 1; i < l.size() && found != null; i++) {
            found = Templates.cast(found).get(String.valueOf(flat(resolve(l.get(i)))));
          }
          if (found == null) {
            throw new IllegalArgumentException("Fn::FindInMap finds nothing for " + l);
          }
          return resolve(found);
        }
        default -> {
          // not an intrinsic: fall through to a plain map
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    map.forEach(
        (k, v) -> {
          Object r = resolve(v);
          if (r != NO_VALUE) {
            out.put(k, r);
          }
        });
    return out;
  }

  private Object ref(String name) {
    if (name.equals("AWS::NoValue")) {
      return NO_VALUE;
    }
    if (parameters.containsKey(name)) {
      return parameters.get(name);
    }
    return "${" + name + "}";
  }

  private String sub(Object arg) {
    String text;
    Map<String, Object> vars = Map.of();
    if (arg instanceof List<?> l) {
      text = l.get(0).toString();
      vars = Templates.cast(resolve(l.get(1)));
    } else {
      text = arg.toString();
    }
    Matcher m = SUB_VAR.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(2);
      String replacement;
      if (!m.group(1).isEmpty()) {
        replacement = "${" + name + "}";
      } else if (vars.containsKey(name)) {
        replacement = String.valueOf(vars.get(name));
      } else if (name.contains(".")) {
        replacement = "${" + name + "}";
      } else {
        replacement = String.valueOf(flat(ref(name)));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static Object stringOrNull(Object o) {
    return o == null ? null : o.toString();
  }

  /** Reads one YAML value; a short-form tag such as !Ref becomes its long form, {"Ref": ...}. */
  private static Object read(YAMLParser p) throws IOException {
    String tag = p.getTypeId() instanceof String t ? t : null;
    Object value;
    JsonToken t = p.currentToken();
    if (t == JsonToken.START_OBJECT) {
      Map<String, Object> map = new LinkedHashMap<>();
      while (p.nextToken() != JsonToken.END_OBJECT) {
        String name = p.currentName();
        p.nextToken();
        map.put(name, read(p));
      }
      value = map;
    } else if (t == JsonToken.START_ARRAY) {
      List<Object> list = new ArrayList<>();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        list.add(read(p));
      }
      value = list;
    } else if (t == JsonToken.VALUE_NULL) {
      value = null;
    } else {
      value = p.getText();
    }
    if (tag == null) {
      return value;
    }
    String name = tag.startsWith("!") ? tag.substring(1) : tag;
    return switch (name) {
      case "Ref" -> Map.of("Ref", value);
      case "Condition" -> Map.of("Condition", value);
      case "GetAtt" ->
          Map.of(
              "Fn::GetAtt", value instanceof String s ? Arrays.asList(s.split("\\.", 2)) : value);
      default -> Map.of("Fn::" + name, value);
    };
  }
}
