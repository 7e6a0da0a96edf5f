package io.kafkas3archiver.config;

import java.net.URI;
import java.util.Optional;
import java.util.regex.Pattern;

/** An http:// or https:// URL with a host, as endpoint settings take; anything else is empty. */
public final class HttpUrl {
  private static final Pattern USER_INFO = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@");

  private HttpUrl() {}

  /**
   * A URL as messages may print it: any user-info ({@code user:password@}) replaced by {@code
   * ***@}. Works on text that does not parse as a URI too, as an invalid setting's echo needs.
   */
  public static String redacted(String raw) {
    return raw == null ? null : USER_INFO.matcher(raw).replaceFirst("$1***@");
  }

  public static String redacted(URI uri) {
    return redacted(uri.toString());
  }

  /**
   * Refuses a URL with user-info: a password in an environment variable is readable by everyone who
   * can read the function's configuration, and libraries print URLs in their errors. {@code
   * instead} says where the credentials belong.
   */
  public static URI withoutUserInfo(String variable, URI uri, String instead) {
    if (uri.getRawUserInfo() != null) {
      throw new ConfigException(
          variable
              + "='"
              + redacted(uri)
              + "' carries credentials in its user-info (user:password@), where everyone who can"
              + " read the function's configuration reads them; remove them from the URL: "
              + instead);
    }
    return uri;
  }

  public static Optional<URI> parse(String raw) {
    try {
      URI uri = URI.create(raw);
      boolean http = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
      return http && uri.getHost() != null ? Optional.of(uri) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
