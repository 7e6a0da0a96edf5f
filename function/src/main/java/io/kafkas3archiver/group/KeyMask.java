package io.kafkas3archiver.group;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Masks the segments of an object key that come from record content ({@code ${value.…}}, {@code
 * ${key}}, {@code ${header.…}}), for logs and error messages (DESIGN §6): {@code
 * condense/orders/region=eu-west/…} becomes {@code condense/orders/region=…/…}. A masked segment
 * keeps the template's literal text before its first variable ({@code region=}) and nothing else,
 * not even the hash suffix of a long value (a hash of a short value can be guessed back).
 *
 * <p>It works on the key's text alone, so any message that quotes a key can use it. That is exact
 * because every value a template substitutes is escaped and never holds a {@code /}: a key of a
 * layout has that layout's segments, one for one. A key that matches neither the data layout nor
 * the error layout (which holds no record content) is masked after its first segment whole, so a
 * surprise can only hide too much.
 */
final class KeyMask {
  static final String MASK = "\u2026";

  /** A piece of a rendered layout: known text, or a variable's value (content or not). */
  sealed interface Token {}

  /** Text known when the template is built: literals, KEY_PREFIX, the escaped TITLE. */
  record Fixed(String text) implements Token {}

  /** A value that varies per key, matching {@code regex}; {@code content} if from the record. */
  record Varying(String regex, boolean content) implements Token {}

  /** The characters an escaped value can hold: S3's safe characters and {@code %XX}. */
  static final String ESCAPED = "[A-Za-z0-9._%-]+";

  static final String NUMBER = "-?[0-9]+";

  /** One segment of a layout: its pattern, and for a content segment what stays visible. */
  private record Segment(String regex, boolean content, String lead) {}

  private record Layout(Pattern pattern, List<Segment> segments, String suffix) {}

  private final Layout data;
  private final Layout errors;
  private final boolean hasContent;

  KeyMask(List<Token> data, String dataSuffix, List<Token> errors, String errorSuffix) {
    this.data = layout(data, dataSuffix);
    this.errors = layout(errors, errorSuffix);
    this.hasContent = this.data.segments().stream().anyMatch(Segment::content);
  }

  String mask(String key) {
    if (!hasContent || key == null) {
      return key;
    }
    if (data.pattern().matcher(key).matches()) {
      String[] parts = key.split("/", -1);
      StringBuilder out = new StringBuilder(key.length());
      for (int i = 0; i < parts.length; i++) {
        Segment s = data.segments().get(i);
        out.append(i == 0 ? "" : "/");
        if (s.content()) {
          out.append(s.lead()).append(MASK);
          if (i == parts.length - 1) {
            out.append(data.suffix());
          }
        } else {
          out.append(parts[i]);
        }
      }
      return out.toString();
    }
    if (errors.pattern().matcher(key).matches()) {
      return key;
    }
    int slash = key.indexOf('/');
    return slash < 0 ? MASK : key.substring(0, slash + 1) + MASK;
  }

  /**
   * Renders the tokens the way {@code ObjectKeyTemplate} renders a key (doubled slashes collapsed,
   * no leading slash, the suffix on the last segment) into one pattern per segment. Varying values
   * are never empty and never hold a slash, so only the fixed text decides where segments fall.
   */
  private static Layout layout(List<Token> tokens, String suffix) {
    List<List<Token>> segments = new ArrayList<>();
    List<Token> current = new ArrayList<>();
    for (Token t : tokens) {
      if (t instanceof Fixed f) {
        String[] pieces = f.text().split("/", -1);
        for (int i = 0; i < pieces.length; i++) {
          if (i > 0) {
            segments.add(current);
            current = new ArrayList<>();
          }
          if (!pieces[i].isEmpty()) {
            current.add(new Fixed(pieces[i]));
          }
        }
      } else {
        current.add(t);
      }
    }
    segments.add(current);
    // Empty segments collapse away, but the last one, which carries the suffix.
    List<List<Token>> kept = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      if (!segments.get(i).isEmpty() || i == segments.size() - 1) {
        kept.add(segments.get(i));
      }
    }
    List<Segment> out = new ArrayList<>();
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < kept.size(); i++) {
      StringBuilder r = new StringBuilder();
      boolean content = false;
      String lead = "";
      boolean leading = true;
      for (Token t : kept.get(i)) {
        switch (t) {
          case Fixed f -> {
            r.append(Pattern.quote(f.text()));
            if (leading) {
              lead += f.text();
            }
          }
          case Varying v -> {
            r.append(v.regex());
            content |= v.content();
            leading = false;
          }
        }
      }
      out.add(new Segment(r.toString(), content, lead));
      regex.append(i == 0 ? "" : "/").append(r);
    }
    regex.append(Pattern.quote(suffix));
    return new Layout(Pattern.compile(regex.toString()), out, suffix);
  }
}
