package io.kafkas3archiver.table;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.upload.CredentialsSource;
import io.kafkas3archiver.upload.ObjectStore;
import java.time.Clock;
import java.util.function.Function;

/**
 * The seam between the handler and a table format. Implementations live in another artifact and are
 * found by {@link java.util.ServiceLoader}, so the plain jar neither ships nor loads them.
 */
public interface TableWriterProvider {

  /** The {@code OUTPUT_FORMAT} value this provider writes, e.g. {@code iceberg}. */
  String format();

  /**
   * Builds the writer at init. Reads and validates its own settings from {@code context.env()} and
   * throws {@link io.kafkas3archiver.config.ConfigException} on a bad one.
   */
  BatchArchiver create(Context context);

  /**
   * What a table writer gets: the parsed configuration, the environment seam for its own variables,
   * the object store for error objects, the credentials (null when a test hands the handler a bare
   * store) and the clock.
   */
  record Context(
      ArchiverConfig config,
      Function<String, String> env,
      ObjectStore errorStore,
      CredentialsSource credentials,
      Clock clock) {}
}
