package io.kafkas3archiver.testing;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import software.amazon.awssdk.services.s3.S3Client;

/** Reads objects back from S3 and undoes their compression, judged by the key's suffix. */
public final class ObjectBodies {
  private ObjectBodies() {}

  public static byte[] raw(S3Client s3, String bucket, String key) {
    return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
  }

  public static byte[] decompressed(S3Client s3, String bucket, String key) {
    byte[] raw = raw(s3, bucket, key);
    if (!key.endsWith(".gz")) {
      return raw;
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(raw))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
