package io.kafkas3archiver.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.group.ValueExtractor;
import io.kafkas3archiver.testing.UnconditionalStore;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 17's rows: the cost of partitioning by record content beside the default template, on the
 * benchmark's telemetry batch, in memory (objects discarded), handlers interleaved round by round.
 * A second table isolates the extraction: the streaming {@link ValueExtractor} against building a
 * Jackson tree per record, over the same 10,000 values.
 */
final class PartitioningBench {
  private static final String FIELD_TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/engine=${value.status.engine}/year=${YEAR}/month=${MONTH}"
          + "/day=${DAY}/hour=${HOUR}/${JOB_ID}";
  private static final String VEHICLE_TEMPLATE =
      "${KEY_PREFIX}/${OBJECT_NAME}/vehicle=${value.vehicleId}/year=${YEAR}/month=${MONTH}"
          + "/day=${DAY}/hour=${HOUR}/${JOB_ID}";

  private PartitioningBench() {}

  private record Row(String name, Map<String, String> env) {}

  static void run(PrintStream out, TelemetryBatch batch, int rounds) {
    List<Row> rows = new ArrayList<>();
    rows.add(new Row("default template, PARTITION_TIME=batch", Map.of()));
    rows.add(
        new Row("default template, PARTITION_TIME=record", Map.of("PARTITION_TIME", "record")));
    rows.add(
        new Row(
            "engine=${value.status.engine} (2 values), PARTITION_TIME=field (ts, iso8601)",
            Map.of(
                "KEY_TEMPLATE", FIELD_TEMPLATE,
                "PARTITION_TIME", "field",
                "TIME_FIELD", "ts",
                "REPORT_BATCH_ITEM_FAILURES", "true")));
    rows.add(
        new Row(
            "vehicle=${value.vehicleId} (500 values), PARTITION_TIME=batch, guard 10000",
            Map.of(
                "KEY_TEMPLATE", VEHICLE_TEMPLATE,
                "MAX_FOLDERS_PER_PARTITION", "10000",
                "REPORT_BATCH_ITEM_FAILURES", "true")));

    for (Format format : List.of(Format.NDJSON, Format.PARQUET)) {
      Compression compression = format == Format.PARQUET ? Compression.SNAPPY : Compression.GZIP;
      Combo combo = new Combo(format, compression);
      List<ArchiverHandler> handlers = new ArrayList<>();
      int[] puts = new int[rows.size()];
      for (int i = 0; i < rows.size(); i++) {
        int row = i;
        UnconditionalStore counting =
            (key, body, type, deadline) -> {
              puts[row]++;
              return new ObjectStore.PutResult(1, 0);
            };
        Map<String, String> env = rows.get(i).env();
        handlers.add(
            Bench.quietly(
                () -> new ArchiverHandler(combo.config(env), counting, Clock.systemUTC())));
      }
      for (int w = 0; w < 5; w++) {
        handlers.forEach(h -> invoke(h, batch.event));
      }
      int[] objects = new int[rows.size()];
      for (int i = 0; i < rows.size(); i++) {
        puts[i] = 0;
        invoke(handlers.get(i), batch.event);
        objects[i] = puts[i];
      }
      long[][] t = new long[rows.size()][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < rows.size(); i++) {
          int c = (i + r) % rows.size(); // rotate the order, so drift spreads over all rows
          long start = System.nanoTime();
          invoke(handlers.get(c), batch.event);
          t[c][r] = System.nanoTime() - start;
        }
      }
      double base = Stats.median(t[0]) / 1e6;
      out.println();
      out.printf(
          Locale.ROOT,
          "### %s × %s: %d rounds, median ms per 10,000-record batch, handlers rotated per round%n%n",
          format.configName(),
          compression.configName(),
          rounds);
      out.println("| key layout | objects | ms | records/s | vs default |");
      out.println("|---|--:|--:|--:|--:|");
      for (int i = 0; i < rows.size(); i++) {
        double ms = Stats.median(t[i]) / 1e6;
        out.printf(
            Locale.ROOT,
            "| %s | %d | %.1f | %,.0f | %.2f× |%n",
            rows.get(i).name(),
            objects[i],
            ms,
            TelemetryBatch.RECORDS / (ms / 1000),
            ms / base);
      }
    }
    extraction(out, batch, rounds);
  }

  /** Streaming extraction against a tree per record, the same two paths, the same values. */
  private static void extraction(PrintStream out, TelemetryBatch batch, int rounds) {
    List<byte[]> values = new ArrayList<>();
    Base64.Decoder b64 = Base64.getDecoder();
    batch.base64Values.forEach(v -> values.add(b64.decode(v)));
    ValueExtractor streaming =
        new ValueExtractor(List.of(List.of("status", "engine"), List.of("ts")));
    ObjectMapper mapper = new ObjectMapper();
    long sink = 0;
    long[] s = new long[rounds];
    long[] tree = new long[rounds];
    for (int r = -3; r < rounds; r++) {
      long a = System.nanoTime();
      for (byte[] v : values) {
        String[] found = streaming.extract(v);
        sink += found[0].length() + found[1].length();
      }
      long b = System.nanoTime();
      for (byte[] v : values) {
        try {
          JsonNode n = mapper.readTree(v);
          sink +=
              n.path("status").path("engine").asText().length() + n.path("ts").asText().length();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      long c = System.nanoTime();
      if (r >= 0) {
        s[r] = b - a;
        tree[r] = c - b;
      }
    }
    double sMs = Stats.median(s) / 1e6;
    double tMs = Stats.median(tree) / 1e6;
    out.println();
    out.printf(
        Locale.ROOT,
        "### Extracting status.engine and ts from 10,000 values: %d rounds, medians (checksum %d)%n%n",
        rounds,
        sink % 1000);
    out.println("| extractor | ms | µs/record |");
    out.println("|---|--:|--:|");
    out.printf(
        Locale.ROOT, "| streaming ValueExtractor | %.1f | %.2f |%n", sMs, sMs * 1000 / 10_000);
    out.printf(
        Locale.ROOT, "| Jackson readTree per record | %.1f | %.2f |%n", tMs, tMs * 1000 / 10_000);
  }

  private static void invoke(ArchiverHandler handler, byte[] event) {
    io.kafkas3archiver.bench.driver.Warm.archive(handler, event);
  }
}
