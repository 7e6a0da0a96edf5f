package io.kafkas3archiver.restore;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import io.kafkas3archiver.encode.Compression;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.xerial.snappy.SnappyFramedInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists an archive's objects and reads one object at a time back into records. Memory is bounded by
 * one object (the archiver writes at most one 6 MB batch per object).
 */
public final class ArchiveReader {
  private final S3Client s3;
  private final String bucket;
  private final String topic;

  public ArchiveReader(S3Client s3, String bucket, String topic) {
    this.s3 = s3;
    this.bucket = bucket;
    this.topic = topic;
  }

  /** Objects under {@code prefix}, in key order; names the archiver never writes are skipped. */
  public Listing list(String prefix, ArchiveObject.Kind kind) {
    List<ArchiveObject> objects = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (S3Object o :
        s3.listObjectsV2Paginator(
                ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build())
            .contents()) {
      ArchiveObject.of(o.key(), o.size(), kind)
          .ifPresentOrElse(objects::add, () -> skipped.add(o.key()));
    }
    objects.sort(Comparator.comparing(ArchiveObject::key));
    return new Listing(objects, skipped);
  }

  /** What a listing found, and the keys it did not recognise as archive objects. */
  public record Listing(List<ArchiveObject> objects, List<String> skipped) {}

  /** Reads and decodes one object. {@code ordinal} is its place in the listing. */
  public ObjectRows read(ArchiveObject object, long ordinal) throws IOException {
    byte[] stored =
        s3.getObjectAsBytes(b -> b.bucket(bucket).key(object.key())).asByteArrayUnsafe();
    return decode(object, stored, topic, ordinal);
  }

  static ObjectRows decode(ArchiveObject object, byte[] stored, String topic, long ordinal)
      throws IOException {
    byte[] body = decompress(object.codec(), stored);
    try {
      if (object.kind() == ArchiveObject.Kind.ERROR) {
        return JsonRows.read(body, topic, true, ordinal);
      }
      return switch (object.format()) {
        case JSON, NDJSON -> JsonRows.read(body, topic, false, ordinal);
        case CSV -> CsvRows.read(body, topic, ordinal);
        case PARQUET -> ParquetRows.read(body, topic, ordinal);
        // An Iceberg table is read with Iceberg's own tools, not from archive objects.
        case ICEBERG ->
            throw new IOException(
                "an Iceberg table is not an object archive; restore reads objects");
      };
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          "could not read "
              + object.key()
              + " as "
              + object.format().extension()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static byte[] decompress(Compression codec, byte[] stored) throws IOException {
    if (codec == Compression.NONE) {
      return stored;
    }
    try (InputStream in = inflater(codec, new ByteArrayInputStream(stored))) {
      return in.readAllBytes();
    }
  }

  private static InputStream inflater(Compression codec, InputStream in) throws IOException {
    return switch (codec) {
      case NONE -> in;
      case GZIP -> new GZIPInputStream(in, 64 * 1024);
      case SNAPPY -> new SnappyFramedInputStream(in);
      case ZSTD -> new ZstdInputStreamNoFinalizer(in);
    };
  }
}
