package io.kafkas3archiver.restore;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.remote.ErrorType;
import io.kafkas3archiver.upload.ErrorClassifier;
import io.kafkas3archiver.upload.ErrorClassifier.Operation;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.xerial.snappy.SnappyFramedInputStream;
import software.amazon.awssdk.core.exception.SdkException;
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
    try {
      for (S3Object o :
          s3.listObjectsV2Paginator(
                  ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build())
              .contents()) {
        ArchiveObject.of(o.key(), o.size(), kind)
            .ifPresentOrElse(objects::add, () -> skipped.add(o.key()));
      }
    } catch (SdkException e) {
      throw refused(Operation.HEAD_BUCKET, e, "listing s3://" + bucket + "/" + prefix);
    }
    objects.sort(Comparator.comparing(ArchiveObject::key));
    return new Listing(objects, skipped);
  }

  /**
   * Where objects are near {@code prefix}, which holds none: the folders of its nearest ancestor
   * that has any, closest names first (at most five). Empty when the bucket is empty.
   */
  public List<String> nearestPrefixes(String prefix) {
    String p = prefix;
    while (p != null) {
      String parent = parent(p);
      if (parent == null) {
        return List.of();
      }
      List<String> folders = new ArrayList<>();
      try {
        s3
            .listObjectsV2Paginator(
                ListObjectsV2Request.builder()
                    .bucket(bucket)
                    .prefix(parent)
                    .delimiter("/")
                    .maxKeys(1000)
                    .build())
            .stream()
            .limit(10)
            .forEach(
                page -> {
                  page.commonPrefixes().forEach(c -> folders.add(c.prefix()));
                  page.contents().forEach(o -> folders.add(o.key()));
                });
      } catch (SdkException e) {
        return List.of();
      }
      folders.remove(prefix);
      if (!folders.isEmpty()) {
        String asked = prefix;
        return folders.stream()
            .sorted(Comparator.comparingInt((String f) -> distance(f, asked)).thenComparing(f -> f))
            .limit(5)
            .toList();
      }
      p = parent;
    }
    return List.of();
  }

  /** {@code a/b/c/} -> {@code a/b/}, {@code a/} -> {@code ""}, {@code ""} -> null. */
  private static String parent(String prefix) {
    if (prefix.isEmpty()) {
      return null;
    }
    String trimmed = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    int slash = trimmed.lastIndexOf('/');
    return slash < 0 ? "" : trimmed.substring(0, slash + 1);
  }

  /** Levenshtein distance: how many single-character edits turn one name into the other. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  /** What a listing found, and the keys it did not recognise as archive objects. */
  public record Listing(List<ArchiveObject> objects, List<String> skipped) {}

  /** Reads and decodes one object. {@code ordinal} is its place in the listing. */
  public ObjectRows read(ArchiveObject object, long ordinal) throws IOException {
    byte[] stored;
    try {
      stored = s3.getObjectAsBytes(b -> b.bucket(bucket).key(object.key())).asByteArrayUnsafe();
    } catch (SdkException e) {
      throw refused(Operation.HEAD_OBJECT, e, "reading s3://" + bucket + "/" + object.key());
    }
    return decode(object, stored, topic, ordinal);
  }

  /** A failed S3 call, in the restore's terms: what was wrong and which flag or grant fixes it. */
  private RestoreException refused(Operation op, SdkException e, String doing) {
    String region =
        s3.serviceClientConfiguration().region() == null
            ? "?"
            : s3.serviceClientConfiguration().region().id();
    String where =
        s3.serviceClientConfiguration()
            .endpointOverride()
            .map(u -> "at " + u)
            .orElse("in region " + region);
    if (String.valueOf(e.getMessage()).contains("Unable to load credentials")) {
      return new RestoreException(
          "no AWS credentials for "
              + doing
              + ": the SDK's default chain found none; set AWS_PROFILE, or AWS_ACCESS_KEY_ID and"
              + " AWS_SECRET_ACCESS_KEY, or run on a host with a role",
          e);
    }
    ErrorType type = new ErrorClassifier(bucket, region, where, "").classify(op, e, null, 1).type();
    String message =
        switch (type) {
          case NO_SUCH_BUCKET ->
              "the bucket '"
                  + bucket
                  + "' does not exist "
                  + where
                  + ": check --bucket (bucket names are global and case-sensitive), --region and"
                  + " --endpoint-url";
          case WRONG_REGION ->
              "the bucket '"
                  + bucket
                  + "' is in "
                  + ErrorClassifier.bucketRegion(e).map(r -> "region " + r).orElse("another region")
                  + ", not "
                  + region
                  + ": pass --region "
                  + ErrorClassifier.bucketRegion(e).orElse("<the bucket's region>");
          case ACCESS_DENIED ->
              "access denied "
                  + doing
                  + ": the credentials the SDK's default chain found need "
                  + (op == Operation.HEAD_BUCKET ? "s3:ListBucket on the bucket" : "s3:GetObject")
                  + " (and kms:Decrypt on the key, for SSE-KMS objects); check AWS_PROFILE or the"
                  + " host's role";
          case INVALID_CREDENTIALS, CREDENTIALS_UNAVAILABLE ->
              "S3 rejected the credentials "
                  + doing
                  + " ("
                  + e.getClass().getSimpleName()
                  + "): check AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the host's"
                  + " role, and --endpoint-url";
          default ->
              "S3 failed "
                  + doing
                  + " "
                  + where
                  + " ("
                  + type.label()
                  + ": "
                  + e.getMessage()
                  + "); check --endpoint-url and the network path (a host in a VPC needs an S3"
                  + " gateway endpoint or a NAT gateway), then run the command again";
        };
    return new RestoreException(message, e);
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
