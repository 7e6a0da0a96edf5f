package io.kafkas3archiver;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.EventDecoder;
import io.kafkas3archiver.decode.Invocation;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Encoder;
import io.kafkas3archiver.encode.Format;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.crac.Context;
import org.crac.Resource;

/**
 * SnapStart priming (a CRaC {@code beforeCheckpoint} hook): before the snapshot is taken, run a
 * small synthetic batch through the decoder, the configured pipeline and every encoder and codec
 * this build has, and one PutObject through the S3 client, signed with placeholder keys and stopped
 * before transmission. The restored function then starts with those classes loaded and initialised.
 * Nothing is written to the bucket, nothing is logged, and no credentials are resolved: a secret
 * fetched here would live on in every copy of the snapshot (DESIGN §6).
 */
final class Priming implements Resource {
  private final ArchiverConfig config;
  private final EventDecoder decoder;
  private final ObjectStore store;
  private final Clock clock;

  Priming(ArchiverConfig config, EventDecoder decoder, ObjectStore store, Clock clock) {
    this.config = config;
    this.decoder = decoder;
    this.store = store;
    this.clock = clock;
  }

  @Override
  public void beforeCheckpoint(Context<? extends Resource> context) {
    run();
  }

  @Override
  public void afterRestore(Context<? extends Resource> context) {}

  void run() {
    try {
      var batch = (Invocation.KafkaBatch) decoder.decode(new ByteArrayInputStream(event()));
      // The configured pipeline, end to end, into a store that keeps nothing.
      if (!config.format().isTable()) {
        new Pipeline(config, new KeepsNothing(), clock).archive(batch, Deadline.in(60_000, clock));
      }
      for (Format format : Format.values()) {
        for (boolean metadata : new boolean[] {false, true}) {
          Encoder encoder;
          try {
            encoder = Encoder.forFormat(format, metadata);
          } catch (UnsupportedOperationException notInThisBuild) {
            continue;
          }
          for (Compression compression : Compression.values()) {
            if (format.compressesItself() && compression != Compression.NONE) {
              continue;
            }
            try (OutputStream out = compression.wrap(OutputStream.nullOutputStream())) {
              encoder.encode(batch.records(), out);
            } catch (UnsupportedOperationException notInThisBuild) {
              // this codec arrives in a later build
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    store.prime();
  }

  /** A few records covering JSON objects, text, binary, a tombstone, keys and headers. */
  private static byte[] event() {
    Base64.Encoder b64 = Base64.getEncoder();
    StringBuilder records = new StringBuilder();
    String[] values = {
      "{\"id\":\"v-1\",\"speed\":61.5,\"n\":7,\"ok\":true,\"at\":{\"lat\":12.97,\"lon\":77.59}}",
      "{\"id\":\"v-2\",\"speed\":0,\"n\":8,\"ok\":false,\"tags\":[\"a\",\"b\"],\"x\":null}",
      "plain text",
    };
    long offset = 0;
    for (String v : values) {
      records.append(offset == 0 ? "" : ",");
      records.append(record(offset++, b64.encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    }
    records.append(',').append(record(offset++, b64.encodeToString(new byte[] {(byte) 0xff, 1})));
    records.append(',').append(record(offset, null));
    return ("{\"eventSource\":\"aws:kafka\",\"records\":{\"priming-0\":[" + records + "]}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static String record(long offset, String value) {
    return "{\"topic\":\"priming\",\"partition\":0,\"offset\":"
        + offset
        + ",\"timestamp\":1783955045000,\"timestampType\":\"CREATE_TIME\",\"key\":\"a2V5\","
        + "\"value\":"
        + (value == null ? "null" : "\"" + value + "\"")
        + ",\"headers\":[{\"source\":[103,119]}]}";
  }

  /** Priming's store: every write succeeds and is forgotten, so no key exists to be met. */
  private static final class KeepsNothing implements ObjectStore {
    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public PutResult putIfAbsent(
        String key, ObjectBody body, String type, Map<String, String> metadata, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline) {
      return Optional.empty();
    }
  }
}
