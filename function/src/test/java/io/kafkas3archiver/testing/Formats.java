package io.kafkas3archiver.testing;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The formats and codecs this build accepts, asked of {@link ArchiverConfig} itself, so a format or
 * codec that becomes available joins every data-driven test without editing it.
 */
public final class Formats {
  private Formats() {}

  /** An accepted OUTPUT_FORMAT and COMPRESSION pair. */
  public record Variant(Format format, Compression compression) {
    @Override
    public String toString() {
      return format.configName() + "+" + compression.configName();
    }
  }

  public static List<Variant> variants() {
    List<Variant> variants = new ArrayList<>();
    for (Format f : Format.values()) {
      if (f.isTable()) {
        continue; // committed to a table, not put as objects: the iceberg artifact's tests
      }
      for (Compression c : Compression.values()) {
        if (accepted(f, c)) {
          variants.add(new Variant(f, c));
        }
      }
    }
    return variants;
  }

  /** Every accepted format, uncompressed. */
  public static List<Format> formats() {
    return variants().stream()
        .filter(v -> v.compression() == Compression.NONE)
        .map(Variant::format)
        .toList();
  }

  private static boolean accepted(Format f, Compression c) {
    try {
      ArchiverConfig.fromEnv(
          Map.of(
              "BUCKET_NAME",
              "probe-bucket",
              "AWS_REGION",
              "us-east-1",
              "OUTPUT_FORMAT",
              f.configName(),
              "COMPRESSION",
              c.configName()));
      return true;
    } catch (ConfigException e) {
      return false;
    }
  }
}
