package io.kafkas3archiver.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * An estimate of the cost per TB archived, from the measured end-to-end milliseconds per batch and
 * public list prices. The model: the work is single-threaded, the bench's one core stands in for
 * Lambda's one vCPU at 1,769 MB, and below that Lambda's CPU share (so the duration) scales with
 * memory. Upload waits are scaled too, which overstates them: the estimate errs high.
 */
public final class Cost {
  // Public list prices, us-east-1, as published in 2025 (no network here to re-check them).
  public static final double LAMBDA_X86_GB_S = 0.0000166667;
  public static final double LAMBDA_ARM_GB_S = 0.0000133334;
  public static final double LAMBDA_PER_REQUEST = 0.20 / 1_000_000;
  public static final double S3_PUT = 0.005 / 1_000;
  static final double FIREHOSE_INGEST_GB = 0.029;
  static final double FIREHOSE_CONVERSION_GB = 0.018;
  static final double FIREHOSE_RECORD_ROUNDING_BYTES = 5 * 1024;
  public static final double FULL_VCPU_MB = 1_769;
  public static final double TB = 1e12;

  private Cost() {}

  static void print(
      PrintStream out,
      TelemetryBatch batch,
      Map<Combo, Double> e2eMs,
      int memoryMb,
      double putsPerBatch) {
    double batchesPerTb = TB / batch.payloadBytes;
    double recordsPerTb = batchesPerTb * TelemetryBatch.RECORDS;
    double cpuScale = Math.max(1.0, FULL_VCPU_MB / memoryMb);
    out.println();
    out.println("## Cost per TB archived (estimate)");
    out.printf(
        Locale.ROOT,
        "TB = 10^12 bytes of Kafka payload; %,.0f batches of %,d records (%.2f MB payload) per TB;"
            + " Lambda at %d MB (duration = measured ms × %.2f, the CPU share at %d MB); one"
            + " PutObject per object, %.0f objects per batch (one per topic-partition, measured)%n",
        batchesPerTb,
        TelemetryBatch.RECORDS,
        batch.payloadBytes / 1e6,
        memoryMb,
        cpuScale,
        memoryMb,
        putsPerBatch);
    out.printf(
        Locale.ROOT,
        "prices (us-east-1 list, 2025): Lambda $%.10f/GB-s x86, $%.10f/GB-s arm64, $0.20 per 1M"
            + " requests; S3 PUT $0.005 per 1,000; Firehose ingestion $%.3f/GB (records billed"
            + " in 5 KB steps), format conversion $%.3f/GB%n%n",
        LAMBDA_X86_GB_S,
        LAMBDA_ARM_GB_S,
        FIREHOSE_INGEST_GB,
        FIREHOSE_CONVERSION_GB);
    out.println(
        "| option | ms per batch (measured → at memory) | GB-s per TB | $ per TB x86 | $ per TB"
            + " arm64 |");
    out.println("|---|--:|--:|--:|--:|");
    double fixed = batchesPerTb * (LAMBDA_PER_REQUEST + putsPerBatch * S3_PUT);
    for (var e : e2eMs.entrySet()) {
      double ms = e.getValue() * cpuScale;
      double gbSeconds = batchesPerTb * ms / 1000 * memoryMb / 1024.0;
      out.printf(
          Locale.ROOT,
          "| this function, %s | %.0f → %.0f | %,.0f | %.2f | %.2f |%n",
          e.getKey().name(),
          e.getValue(),
          ms,
          gbSeconds,
          gbSeconds * LAMBDA_X86_GB_S + fixed,
          gbSeconds * LAMBDA_ARM_GB_S + fixed);
    }
    double ingestGb = TB / 1e9;
    double billedGb =
        recordsPerTb
            * Math.max(
                FIREHOSE_RECORD_ROUNDING_BYTES,
                Math.ceil((double) batch.payloadBytes / TelemetryBatch.RECORDS / 5120) * 5120)
            / 1e9;
    out.printf(
        Locale.ROOT,
        "| Firehose ingestion, per-GB list price | – | – | %.2f | %.2f |%n",
        ingestGb * FIREHOSE_INGEST_GB,
        ingestGb * FIREHOSE_INGEST_GB);
    out.printf(
        Locale.ROOT,
        "| Firehose ingestion, %d-byte records billed as 5 KB each | – | – | %.2f | %.2f |%n",
        batch.payloadBytes / TelemetryBatch.RECORDS,
        billedGb * FIREHOSE_INGEST_GB,
        billedGb * FIREHOSE_INGEST_GB);
    out.printf(
        Locale.ROOT,
        "| Firehose + conversion to Parquet, per-GB list price | – | – | %.2f | %.2f |%n",
        ingestGb * (FIREHOSE_INGEST_GB + FIREHOSE_CONVERSION_GB),
        ingestGb * (FIREHOSE_INGEST_GB + FIREHOSE_CONVERSION_GB));
    out.printf(
        Locale.ROOT,
        "this function's rows include $%.2f per TB of Lambda requests and $%.2f of S3 PUTs;"
            + " storage, data transfer and the Kafka side are the same for every option and left"
            + " out%n",
        batchesPerTb * LAMBDA_PER_REQUEST,
        batchesPerTb * putsPerBatch * S3_PUT);
  }
}
