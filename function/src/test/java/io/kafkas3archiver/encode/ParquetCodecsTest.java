package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.parquet.bytes.BytesInput;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * The reused page arrays give the bytes the codecs' one-shot calls give, page after page, whatever
 * the pages' sizes and however parquet splits them into slabs.
 */
class ParquetCodecsTest {

  @Test
  void shouldCompressEveryPageAsTheOneShotCallsDo() throws Exception {
    long seed = Long.getLong("parquetCodecs.seed", System.nanoTime());
    System.out.println("ParquetCodecsTest seed " + seed + " (-DparquetCodecs.seed=" + seed + ")");
    Random random = new Random(seed);
    ParquetCodecs.PageBuffers zstd = new ParquetCodecs.PageBuffers();
    ParquetCodecs.PageBuffers snappy = new ParquetCodecs.PageBuffers();
    ParquetCodecs.PageBuffers gzip = new ParquetCodecs.PageBuffers();
    for (int page = 0; page < 300; page++) {
      byte[] bytes = page(random);
      // Parquet hands a page over as slabs; the split must not matter.
      int cut = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
      BytesInput slabs =
          BytesInput.concat(
              BytesInput.from(bytes, 0, cut), BytesInput.from(bytes, cut, bytes.length - cut));

      byte[] z = zstd.zstd(slabs).toByteArray();
      byte[] s = snappy.snappy(slabs).toByteArray();
      byte[] g = gzip.gzip(slabs).toByteArray();

      assertThat(z)
          .as("zstd, page %d of %d bytes", page, bytes.length)
          .isEqualTo(Zstd.compress(bytes, Compression.ZSTD_LEVEL));
      assertThat(s)
          .as("snappy, page %d of %d bytes", page, bytes.length)
          .isEqualTo(Snappy.compress(bytes));
      assertThat(g).as("gzip, page %d of %d bytes", page, bytes.length).isEqualTo(gzipOnce(bytes));
    }
  }

  /** A page's gzip as parquet pages were compressed before the reused arrays: one member. */
  private static byte[] gzipOnce(byte[] bytes) throws java.io.IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(out, 64 * 1024)) {
      gz.write(bytes);
    }
    return out.toByteArray();
  }

  /** Empty, tiny, repetitive text or random bytes, up to 2 MB (a page grows past its target). */
  private static byte[] page(Random random) {
    int size =
        switch (random.nextInt(4)) {
          case 0 -> random.nextInt(3);
          case 1 -> random.nextInt(1_000);
          case 2 -> random.nextInt(200_000);
          default -> random.nextInt(2_000_000);
        };
    byte[] bytes = new byte[size];
    switch (random.nextInt(3)) {
      case 0 -> random.nextBytes(bytes);
      case 1 -> {
        byte[] word = ("vehicle-" + random.nextInt(50) + ",").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < size; i++) {
          bytes[i] = word[i % word.length];
        }
      }
      default -> {
        // Like a column of telemetry: words and numbers that repeat, but not in a fixed cycle,
        // where the codecs' levels and settings make a difference.
        StringBuilder text = new StringBuilder(size + 32);
        String[] words = {"engine", "on", "off", "closed", "open", "KA-56-EC-", "trip", "ok"};
        while (text.length() < size) {
          text.append(words[random.nextInt(words.length)]).append(random.nextInt(10_000));
        }
        System.arraycopy(text.toString().getBytes(StandardCharsets.UTF_8), 0, bytes, 0, size);
      }
    }
    return bytes;
  }
}
