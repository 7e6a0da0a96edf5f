package io.kafkas3archiver.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A realistic, deterministic ESM batch: 10,000 vehicle-telemetry records (ids, coordinates, speeds,
 * timestamps, nested status objects) over four partitions of one topic, sized so the event as the
 * Lambda receives it is just under the 6 MB invocation limit. Values vary in length and digits like
 * real telemetry, so compressors see realistic entropy.
 */
public final class TelemetryBatch {
  public static final int RECORDS = 10_000;
  public static final String TOPIC = "vehicle-telemetry";
  private static final int PARTITIONS = 4;
  private static final long START_MS = 1_783_955_045_000L;

  /** The event JSON as delivered to the handler. */
  public final byte[] event;

  /** Each record's value in base64, as it appears in the event: the floor pipeline's input. */
  public final List<byte[]> base64Values;

  /** Bytes of decoded values: the payload the archive holds. */
  public final long payloadBytes;

  private TelemetryBatch(byte[] event, List<byte[]> base64Values, long payloadBytes) {
    this.event = event;
    this.base64Values = base64Values;
    this.payloadBytes = payloadBytes;
  }

  public static TelemetryBatch generate() {
    return generate(RECORDS, 42);
  }

  public static TelemetryBatch generate(int records, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Base64.Encoder b64 = Base64.getEncoder();
    StringBuilder event = new StringBuilder(6_400_000);
    List<byte[]> values = new ArrayList<>(records);
    long payload = 0;
    event
        .append("{\"eventSource\":\"aws:kafka\",\"eventSourceArn\":\"arn:aws:kafka:us-east-1:")
        .append("123456789012:cluster/vehicle-cluster/abcd1234-0123-4567-89ab-cdef01234567-1\",")
        .append("\"bootstrapServers\":\"b-1.vehicle-cluster.abc123.c2.kafka.us-east-1.amazonaws")
        .append(".com:9098,b-2.vehicle-cluster.abc123.c2.kafka.us-east-1.amazonaws.com:9098\",")
        .append("\"records\":{");
    int perPartition = records / PARTITIONS;
    int written = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      int count = p == PARTITIONS - 1 ? records - written : perPartition;
      event.append(p == 0 ? "" : ",").append('"').append(TOPIC).append('-').append(p);
      event.append("\":[");
      for (int i = 0; i < count; i++) {
        long offset = 1_000_000L + i;
        long ts = START_MS + (long) written * 37 + rnd.nextInt(5);
        String vehicle = vehicleId(rnd.nextInt(500));
        byte[] value = value(rnd, vehicle, ts).getBytes(StandardCharsets.UTF_8);
        byte[] base64 = b64.encode(value);
        values.add(base64);
        payload += value.length;
        event.append(i == 0 ? "" : ",");
        event.append("{\"topic\":\"").append(TOPIC).append("\",\"partition\":").append(p);
        event.append(",\"offset\":").append(offset).append(",\"timestamp\":").append(ts);
        event.append(",\"timestampType\":\"CREATE_TIME\",\"key\":\"");
        event.append(b64.encodeToString(vehicle.getBytes(StandardCharsets.UTF_8)));
        event.append("\",\"value\":\"").append(new String(base64, StandardCharsets.US_ASCII));
        event.append("\",\"headers\":[{\"source\":[");
        byte[] source = ("gw" + rnd.nextInt(10)).getBytes(StandardCharsets.UTF_8);
        for (int b = 0; b < source.length; b++) {
          event.append(b == 0 ? "" : ",").append(source[b]);
        }
        event.append("]}]}");
        written++;
      }
      event.append(']');
    }
    event.append("}}");
    return new TelemetryBatch(
        event.toString().getBytes(StandardCharsets.UTF_8), List.copyOf(values), payload);
  }

  private static String vehicleId(int n) {
    return String.format(
        Locale.ROOT, "KA-%02d-%c%c-%04d", n % 60, 'A' + n % 26, 'A' + n / 26 % 26, n * 7 % 10_000);
  }

  private static String value(SplittableRandom r, String vehicle, long ts) {
    StringBuilder v = new StringBuilder(360);
    v.append("{\"vehicleId\":\"").append(vehicle).append('"');
    v.append(",\"tripId\":\"").append(Long.toHexString(r.nextLong() >>> 16)).append('"');
    v.append(",\"ts\":\"").append(java.time.Instant.ofEpochMilli(ts)).append('"');
    v.append(",\"location\":{\"lat\":").append(fixed(12.9 + r.nextDouble() * 0.2, 6));
    v.append(",\"lon\":").append(fixed(77.5 + r.nextDouble() * 0.2, 6));
    v.append(",\"alt\":").append(fixed(880 + r.nextDouble() * 60, 1));
    v.append(",\"heading\":").append(r.nextInt(360)).append('}');
    v.append(",\"speedKmh\":").append(fixed(r.nextDouble() * 110, 1));
    v.append(",\"odometerKm\":").append(fixed(20_000 + r.nextDouble() * 80_000, 1));
    v.append(",\"fuelPct\":").append(r.nextInt(101));
    v.append(",\"status\":{\"engine\":\"").append(r.nextInt(10) == 0 ? "idle" : "on").append('"');
    v.append(",\"ignition\":").append(r.nextInt(20) != 0);
    v.append(",\"doors\":[\"closed\",\"").append(r.nextInt(30) == 0 ? "open" : "closed");
    v.append("\"],\"tyrePressureKpa\":[");
    for (int i = 0; i < 4; i++) {
      v.append(i == 0 ? "" : ",").append(220 + r.nextInt(25));
    }
    v.append("],\"alerts\":");
    v.append(r.nextInt(25) == 0 ? "[\"P0301\"]" : "[]").append("}}");
    return v.toString();
  }

  private static String fixed(double d, int digits) {
    return String.format(Locale.ROOT, "%." + digits + "f", d);
  }

  public static void main(String[] args) {
    TelemetryBatch b = generate();
    System.out.printf(
        "event %d bytes, payload %d bytes, %d records%n",
        b.event.length, b.payloadBytes, b.base64Values.size());
    System.out.println(
        new String(Base64.getDecoder().decode(b.base64Values.get(0)), StandardCharsets.UTF_8));
  }
}
