package io.kafkas3archiver.bench;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.config.ConfigException;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One OUTPUT_FORMAT × COMPRESSION pair that this build's configuration accepts. The list is derived
 * from the enums and the configuration's own validation, so formats and codecs that a later build
 * enables appear in the benchmark without touching it.
 */
record Combo(Format format, Compression compression) {
  static final String BUCKET = "bench-archive";

  String name() {
    return format.configName() + "/" + compression.configName();
  }

  /** The ratio to the floor that issue 8 sets for this format. */
  double target() {
    return switch (format) {
      case JSON, NDJSON -> 1.5;
      case CSV -> 2.5;
      case PARQUET, ICEBERG -> 4.0;
    };
  }

  Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("BUCKET_NAME", BUCKET);
    env.put("AWS_REGION", "us-east-1");
    env.put("TITLE", "bench");
    env.put("OUTPUT_FORMAT", format.configName());
    env.put("COMPRESSION", compression.configName());
    return env;
  }

  ArchiverConfig config(Map<String, String> extra) {
    Map<String, String> env = env();
    env.putAll(extra);
    return ArchiverConfig.fromEnv(env);
  }

  /** Every pair the configuration accepts; the rest are printed with the reason. */
  static List<Combo> accepted(List<String> skipped) {
    List<Combo> combos = new ArrayList<>();
    for (Format f : Format.values()) {
      if (f.isTable()) {
        continue; // the iceberg artifact has its own benchmark rows
      }
      for (Compression c : Compression.values()) {
        Combo combo = new Combo(f, c);
        try {
          combo.config(Map.of());
          combos.add(combo);
        } catch (ConfigException e) {
          skipped.add(combo.name() + ": " + e.getMessage());
        }
      }
    }
    return combos;
  }
}
