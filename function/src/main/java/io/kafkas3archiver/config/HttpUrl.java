package io.kafkas3archiver.config;

import java.net.URI;
import java.util.Optional;

/** An http:// or https:// URL with a host, as endpoint settings take; anything else is empty. */
public final class HttpUrl {
  private HttpUrl() {}

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
