package io.kafkas3archiver.iceberg;

import io.kafkas3archiver.table.BatchArchiver;
import io.kafkas3archiver.table.TableWriterProvider;

/** Registered in META-INF/services: how the handler finds the Iceberg writer in this artifact. */
public final class IcebergWriterProvider implements TableWriterProvider {

  @Override
  public String format() {
    return "iceberg";
  }

  @Override
  public BatchArchiver create(Context context) {
    return new IcebergArchiver(
        context.config(),
        IcebergSettings.fromEnv(context.config(), context.env()),
        context.env(),
        context.errorStore(),
        context.credentials(),
        context.clock());
  }
}
