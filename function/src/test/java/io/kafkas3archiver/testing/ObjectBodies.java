package io.kafkas3archiver.testing;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import org.xerial.snappy.SnappyFramedInputStream;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Reads objects back from S3 and undoes their text compression, judged by the key's suffix ({@code
 * .gz}, {@code .zst}, {@code .snappy} as framed snappy). Parquet objects come back as stored.
 */
public final class ObjectBodies {
  private ObjectBodies() {}

  public static byte[] raw(S3Client s3, String bucket, String key) {
    return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
  }

  public static byte[] decompressed(S3Client s3, String bucket, String key) {
    byte[] raw = raw(s3, bucket, key);
    if (raw.length == 0) {
      return raw; // a claim-only object: offsets that hold no data rows
    }
    try {
      InputStream body = new ByteArrayInputStream(raw);
      if (key.endsWith(".gz")) {
        body = new GZIPInputStream(body);
      } else if (key.endsWith(".zst")) {
        body = new ZstdInputStream(body);
      } else if (key.endsWith(".snappy")) {
        body = new SnappyFramedInputStream(body);
      } else {
        return raw;
      }
      try (InputStream in = body) {
        return in.readAllBytes();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
