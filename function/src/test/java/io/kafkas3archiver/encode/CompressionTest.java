package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xerial.snappy.SnappyFramedInputStream;

/** Text compression: each codec's stream form, read back by its standard decoder. */
class CompressionTest {
  private static final byte[] TEXT =
      "{\"vehicleId\": \"KA-01\", \"speedKmh\": 62.5}\n"
          .repeat(5_000)
          .getBytes(StandardCharsets.UTF_8);

  @ParameterizedTest
  @EnumSource(Compression.class)
  void shouldRoundTripThroughTheStandardDecoder(Compression compression) throws IOException {
    byte[] compressed = compress(compression, TEXT);

    assertThat(decompress(compression, compressed)).isEqualTo(TEXT);
    if (compression != Compression.NONE) {
      assertThat(compressed.length).isLessThan(TEXT.length / 10);
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void shouldGiveIdenticalBytesForIdenticalInput(Compression compression) throws IOException {
    assertThat(compress(compression, TEXT)).isEqualTo(compress(compression, TEXT));
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void shouldPrimeEveryCodecByCompressingAProbe(Compression compression) throws IOException {
    byte[] primed = compression.prime();

    assertThat(decompress(compression, primed)).isEqualTo(Compression.PRIMING_PROBE);
  }

  @Test
  void shouldWriteSnappyInTheFramingFormat() throws IOException {
    byte[] compressed = compress(Compression.SNAPPY, TEXT);

    // The framing format's stream identifier chunk: type 0xff, length 6, "sNaPpY".
    assertThat(HexFormat.of().formatHex(compressed, 0, 10)).isEqualTo("ff060000734e61507059");
  }

  @Test
  void shouldNameTheSuffixesOfDesignSection3() {
    assertThat(Compression.NONE.suffix()).isEmpty();
    assertThat(Compression.GZIP.suffix()).isEqualTo(".gz");
    assertThat(Compression.SNAPPY.suffix()).isEqualTo(".snappy");
    assertThat(Compression.ZSTD.suffix()).isEqualTo(".zst");
  }

  private static byte[] compress(Compression compression, byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream wrapped = compression.wrap(out)) {
      wrapped.write(bytes);
    }
    return out.toByteArray();
  }

  private static byte[] decompress(Compression compression, byte[] bytes) throws IOException {
    InputStream raw = new ByteArrayInputStream(bytes);
    try (InputStream in =
        switch (compression) {
          case NONE -> raw;
          case GZIP -> new GZIPInputStream(raw);
          case SNAPPY -> new SnappyFramedInputStream(raw);
          case ZSTD -> new ZstdInputStream(raw);
        }) {
      return in.readAllBytes();
    }
  }
}
