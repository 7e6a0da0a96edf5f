package io.kafkas3archiver.group;

import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders object keys from {@code KEY_TEMPLATE} (DESIGN §3). The template is parsed and checked
 * once; rendering substitutes escaped values, so no topic or title can leave the prefix or form a
 * key S3 advises against. The extension ({@code .ndjson.gz}, ...) is appended after the rendered
 * template.
 */
public final class ObjectKeyTemplate {
  /** The seed layout. */
  public static final String DEFAULT =
      "${KEY_PREFIX}/${OBJECT_NAME}/year=${YEAR}/month=${MONTH}/day=${DAY}/hour=${HOUR}/${JOB_ID}";

  private static final String ERROR_LAYOUT =
      "${KEY_PREFIX}/_errors/${OBJECT_NAME}/year=${YEAR}/month=${MONTH}/day=${DAY}/hour=${HOUR}/${JOB_ID}";

  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]*)}");
  private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9!\\-_.*'()/=+,;:@ ]*");
  private static final int MAX_KEY_BYTES = 1024;
  private static final int MAX_TOPIC_LENGTH = 249;

  /** The variables a template may use. */
  public enum Variable {
    KEY_PREFIX,
    PIPELINE_NAME,
    OBJECT_NAME,
    DATE,
    YEAR,
    MONTH,
    DAY,
    HOUR,
    JOB_ID,
    PARTITION,
    START_OFFSET
  }

  private sealed interface Part {}

  private record Literal(String text) implements Part {}

  private record Var(Variable variable) implements Part {}

  /** The {@code index}-th record variable: its value comes from the group's folder values. */
  private record FieldVar(int index) implements Part {}

  /** No rendered record value is longer than this, however much room the template leaves. */
  static final int MAX_VALUE_BYTES = 256;

  /** Room a value needs at least: the Hive default partition and a cut value with its hash. */
  static final int MIN_VALUE_BYTES = 32;

  private final String source;
  private final List<Part> parts;
  private final List<RecordField> fields;
  private final List<Part> errorParts;
  private int maxValueBytes = MAX_VALUE_BYTES;
  private final Set<Variable> used;
  private final String keyPrefix;
  private final String pipelineName;
  private final String suffix;
  private final KeyMask mask;

  private ObjectKeyTemplate(
      String source, String keyPrefix, String pipelineName, Format format, Compression c) {
    this.source = source;
    List<RecordField> recordFields = new ArrayList<>();
    this.parts = parse("KEY_TEMPLATE", source, recordFields);
    this.fields = List.copyOf(recordFields);
    this.errorParts = parse("KEY_TEMPLATE", ERROR_LAYOUT, new ArrayList<>());
    this.used = EnumSet.noneOf(Variable.class);
    parts.stream().filter(p -> p instanceof Var).forEach(p -> used.add(((Var) p).variable()));
    this.keyPrefix = keyPrefix;
    this.pipelineName = pipelineName;
    this.suffix = "." + format.extension() + (format.compressesItself() ? "" : c.suffix());
    this.mask = new KeyMask(tokens(parts), suffix, tokens(errorParts), ".ndjson");
  }

  /** The parts as the mask sees them: what is known now, and the pattern of what varies. */
  private List<KeyMask.Token> tokens(List<Part> of) {
    List<KeyMask.Token> tokens = new ArrayList<>();
    for (Part part : of) {
      tokens.add(
          switch (part) {
            case Literal l -> new KeyMask.Fixed(l.text());
            case FieldVar f -> new KeyMask.Varying(KeyMask.ESCAPED, true);
            case Var v ->
                switch (v.variable()) {
                  case KEY_PREFIX -> new KeyMask.Fixed(keyPrefix);
                  case PIPELINE_NAME -> new KeyMask.Fixed(escape(pipelineName));
                  case OBJECT_NAME -> new KeyMask.Varying(KeyMask.ESCAPED, false);
                  case JOB_ID -> new KeyMask.Varying("[0-9a-f-]{36}", false);
                  case DATE -> new KeyMask.Varying(KeyMask.NUMBER + "-[0-9]+-[0-9]+", false);
                  case YEAR, MONTH, DAY, HOUR, PARTITION, START_OFFSET ->
                      new KeyMask.Varying(KeyMask.NUMBER, false);
                };
          });
    }
    return tokens;
  }

  /**
   * A key of this template as logs and error messages show it: its record-content segments masked
   * ({@code region=…}), everything else as is (DESIGN §6). Keys of a template without record
   * variables hold no record content and come back unchanged.
   */
  public String masked(String key) {
    return mask.mask(key);
  }

  /**
   * Parses and validates the template. A template that cannot be unique per (topic, partition,
   * first offset) is rejected: it must name {@code ${JOB_ID}}, or all of {@code ${OBJECT_NAME}},
   * {@code ${PARTITION}} and {@code ${START_OFFSET}}. Exactly-once rests on that: two objects of a
   * partition that start at the same offset are the same object.
   */
  public static ObjectKeyTemplate of(
      String template, String keyPrefix, String pipelineName, Format format, Compression c) {
    ObjectKeyTemplate t = new ObjectKeyTemplate(template, keyPrefix, pipelineName, format, c);
    boolean unique =
        t.used.contains(Variable.JOB_ID)
            || t.used.containsAll(
                EnumSet.of(Variable.OBJECT_NAME, Variable.PARTITION, Variable.START_OFFSET));
    if (!unique) {
      throw new InvalidKeyTemplateException(
          "KEY_TEMPLATE='"
              + template
              + "' cannot give each object its own key, which must be unique per topic,"
              + " partition and first offset; include ${JOB_ID}, or all of ${OBJECT_NAME},"
              + " ${PARTITION} and ${START_OFFSET}");
    }
    // The longest values each variable can take: a 249-character topic, the largest partition
    // and offset; fixed, so validation never depends on the clock. Record values share what room
    // is left, so no value, however long, can push a key past 1024 bytes.
    if (!t.fields.isEmpty()) {
      int rest = MAX_KEY_BYTES - t.longest(0);
      t.maxValueBytes = Math.min(MAX_VALUE_BYTES, rest / t.fields.size());
      if (t.maxValueBytes < MIN_VALUE_BYTES) {
        throw new InvalidKeyTemplateException(
            "KEY_TEMPLATE='"
                + template
                + "' (with KEY_PREFIX and TITLE) leaves "
                + Math.max(rest, 0)
                + " bytes of S3's 1024 for its "
                + t.fields.size()
                + " record variable(s), less than "
                + MIN_VALUE_BYTES
                + " bytes each; use fewer record variables or shorten KEY_PREFIX, TITLE or the"
                + " template");
      }
    }
    if (t.longest(t.maxValueBytes) > MAX_KEY_BYTES) {
      throw new InvalidKeyTemplateException(
          "KEY_TEMPLATE='"
              + template
              + "' (with KEY_PREFIX and TITLE) can render keys longer than S3's 1024 bytes for a"
              + " 249-character topic; shorten KEY_PREFIX, TITLE or the template");
    }
    return t;
  }

  private int longest(int valueBytes) {
    List<String> values = fields.stream().map(f -> "v".repeat(valueBytes)).toList();
    return render(
            "t".repeat(MAX_TOPIC_LENGTH),
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            new UUID(-1L, -1L),
            ZonedDateTime.of(2099, 12, 31, 23, 0, 0, 0, java.time.ZoneOffset.UTC),
            values,
            false)
        .getBytes(StandardCharsets.UTF_8)
        .length;
  }

  /** The record variables ({@code ${value.…}}, {@code ${key}}, {@code ${header.…}}), in order. */
  public List<RecordField> recordFields() {
    return fields;
  }

  /** How many bytes one rendered record value may take, so keys stay within 1024 bytes. */
  public int maxValueBytes() {
    return maxValueBytes;
  }

  public String source() {
    return source;
  }

  /** The key of a group's data object: the object that claims the group's range. */
  public String dataKey(ObjectGroup group, UUID jobId) {
    return key(group, jobId, false);
  }

  /** The key of a group's error object: always the fixed {@code _errors} layout, uncompressed. */
  public String errorKey(ObjectGroup group, UUID jobId) {
    return key(group, jobId, true);
  }

  private String key(ObjectGroup group, UUID jobId, boolean errors) {
    return render(
        group.topic(),
        partitionOf(group),
        startOf(group),
        jobId,
        group.folderTime(),
        group.folderValues(),
        errors);
  }

  /**
   * An example key for partition 0, offset 0 of {@code topic} at {@code time}, with the same
   * deterministic job id scheme; the preflight report shows it so the layout is known before
   * anything is written. {@code error} renders the {@code _errors} layout instead.
   */
  public String exampleKey(String topic, ZonedDateTime time, boolean error) {
    UUID jobId =
        UUID.nameUUIDFromBytes(("example:" + topic + ":0:0").getBytes(StandardCharsets.UTF_8));
    List<String> values = fields.stream().map(f -> PartitionValue.HIVE_DEFAULT).toList();
    return render(topic, 0, 0, jobId, time, values, error);
  }

  // A group without a place in a partition (records rejected without partition or offset) only
  // ever gets an error object, whose fixed layout is named by ${JOB_ID}.
  private static int partitionOf(ObjectGroup group) {
    return group.partition() == null ? 0 : group.partition();
  }

  private static long startOf(ObjectGroup group) {
    return group.placed() ? group.start() : 0;
  }

  private String render(
      String topic,
      int partition,
      long startOffset,
      UUID jobId,
      ZonedDateTime time,
      List<String> folderValues,
      boolean error) {
    StringBuilder key = new StringBuilder(128);
    for (Part part : error ? errorParts : parts) {
      switch (part) {
        case Literal l -> key.append(l.text());
        case Var v -> key.append(value(v.variable(), topic, partition, startOffset, jobId, time));
        case FieldVar f ->
            key.append(
                f.index() < folderValues.size()
                    ? folderValues.get(f.index())
                    : PartitionValue.HIVE_DEFAULT);
      }
    }
    String rendered = collapseSlashes(key.toString());
    return rendered + (error ? ".ndjson" : suffix);
  }

  private String value(
      Variable variable,
      String topic,
      int partition,
      long startOffset,
      UUID jobId,
      ZonedDateTime t) {
    return switch (variable) {
      case KEY_PREFIX -> keyPrefix;
      case PIPELINE_NAME -> escape(pipelineName);
      case OBJECT_NAME -> escape(topic);
      case DATE ->
          String.format(
              Locale.ROOT, "%04d-%02d-%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth());
      case YEAR -> String.format(Locale.ROOT, "%04d", t.getYear());
      case MONTH -> String.format(Locale.ROOT, "%02d", t.getMonthValue());
      case DAY -> String.format(Locale.ROOT, "%02d", t.getDayOfMonth());
      case HOUR -> String.format(Locale.ROOT, "%02d", t.getHour());
      case JOB_ID -> jobId.toString();
      case PARTITION -> Integer.toString(partition);
      case START_OFFSET -> String.format(Locale.ROOT, "%020d", startOffset);
    };
  }

  /** An empty KEY_PREFIX must not leave a leading or doubled slash behind. */
  private static String collapseSlashes(String key) {
    String collapsed = key.replaceAll("/{2,}", "/");
    return collapsed.startsWith("/") ? collapsed.substring(1) : collapsed;
  }

  /**
   * Escapes a substituted value: anything outside S3's safe characters is percent-encoded, and so
   * are the dots of "." and "..", so a value can never form a path segment that climbs out.
   */
  public static String escape(String value) {
    if (value.equals(".") || value.equals("..")) {
      return value.replace(".", "%2E");
    }
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      boolean safe =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '.';
      if (safe) {
        out.append((char) c);
      } else {
        out.append('%').append(String.format(Locale.ROOT, "%02X", c));
      }
    }
    return out.toString();
  }

  private static List<Part> parse(
      String variableName, String template, List<RecordField> recordFields) {
    if (template.startsWith("/")) {
      throw new InvalidKeyTemplateException(
          variableName + "='" + template + "' must not start with '/'; S3 keys are relative");
    }
    List<Part> parts = new ArrayList<>();
    Matcher m = VARIABLE.matcher(template);
    int last = 0;
    while (m.find()) {
      addLiteral(variableName, template, template.substring(last, m.start()), parts);
      String name = m.group(1);
      RecordField field = RecordField.parse(variableName, template, name);
      if (field != null) {
        parts.add(new FieldVar(recordFields.size()));
        recordFields.add(field);
        last = m.end();
        continue;
      }
      try {
        parts.add(new Var(Variable.valueOf(name)));
      } catch (IllegalArgumentException e) {
        throw new InvalidKeyTemplateException(
            variableName
                + "='"
                + template
                + "' uses the unknown variable ${"
                + name
                + "}; legal variables: "
                + legalVariables()
                + ", and the record variables "
                + RecordField.LEGAL_FORMS);
      }
      last = m.end();
    }
    addLiteral(variableName, template, template.substring(last), parts);
    return List.copyOf(parts);
  }

  private static void addLiteral(String name, String template, String text, List<Part> parts) {
    if (text.isEmpty()) {
      return;
    }
    if (text.contains("${") || !LITERAL.matcher(text).matches()) {
      throw new InvalidKeyTemplateException(
          name
              + "='"
              + template
              + "' holds characters S3 advises against in keys ('"
              + text
              + "'); use letters, digits and !-_.*'()/=+,;:@ and ${VARIABLES}: "
              + legalVariables());
    }
    for (String segment : text.split("/", -1)) {
      if (segment.equals("..") || segment.equals(".")) {
        throw new InvalidKeyTemplateException(
            name
                + "='"
                + template
                + "' has a '"
                + segment
                + "' path segment; keys cannot climb"
                + " out of the prefix");
      }
    }
    parts.add(new Literal(text));
  }

  private static String legalVariables() {
    StringBuilder sb = new StringBuilder();
    for (Variable v : Variable.values()) {
      sb.append(sb.isEmpty() ? "" : ", ").append("${").append(v.name()).append('}');
    }
    return sb.toString();
  }
}
