package io.kafkas3archiver.audit;

import io.kafkas3archiver.chain.Claim;
import io.kafkas3archiver.restore.ArchiveObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 side of an audit: lists the data and error prefixes (a listing carries key, size and ETag
 * but no user metadata) and reads each object's claim with one HEAD, unless the audit state already
 * holds the claim of that key at that ETag. Counts every request it makes.
 */
final class ArchiveScan {
  /** Requests made, by kind, for the cost line. */
  static final class Requests {
    long list;
    long head;
    long get;
    long put;

    long total() {
      return list + head + get + put;
    }

    /**
     * What the requests cost at S3 Standard's us-east-1 prices: LIST and PUT $0.005 per 1,000, HEAD
     * and GET $0.0004 per 1,000.
     */
    double dollars() {
      return (list + put) * 0.005 / 1000 + (head + get) * 0.0004 / 1000;
    }
  }

  private final S3Client s3;
  private final String bucket;
  private final Requests requests;

  ArchiveScan(S3Client s3, String bucket, Requests requests) {
    this.s3 = s3;
    this.bucket = bucket;
    this.requests = requests;
  }

  /** A listed object before its claim is read. */
  record Listed(String key, ArchiveObject.Kind kind, String etag, long size) {}

  /** Every archive object under {@code prefix}; keys the archiver never writes go to skipped. */
  List<Listed> list(String prefix, ArchiveObject.Kind kind, List<String> skipped) {
    List<Listed> out = new ArrayList<>();
    String token = null;
    do {
      ListObjectsV2Request.Builder b = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix);
      if (token != null) {
        b.continuationToken(token);
      }
      ListObjectsV2Response page;
      try {
        page = s3.listObjectsV2(b.build());
      } catch (SdkException e) {
        throw new AuditException(
            "listing s3://"
                + bucket
                + "/"
                + prefix
                + " failed ("
                + e.getMessage()
                + "); the audit needs s3:ListBucket on the bucket",
            e);
      }
      requests.list++;
      for (S3Object o : page.contents()) {
        if (kind == ArchiveObject.Kind.DATA
            && (o.key().contains("/_errors/") || o.key().contains("/_audit/"))) {
          continue; // a --list-prefix above the key prefix: error objects and the audit state
        }
        if (ArchiveObject.of(o.key(), o.size(), kind).isPresent()) {
          out.add(new Listed(o.key(), kind, unquoted(o.eTag()), o.size()));
        } else {
          skipped.add(o.key());
        }
      }
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
    return out;
  }

  /**
   * The user metadata of {@code listed}: from {@code known} when it holds this key at this ETag,
   * else one HEAD. Empty when the object vanished between the listing and the HEAD.
   */
  Optional<Map<String, String>> metadata(Listed listed, AuditState known) {
    Optional<Map<String, String>> cached = known.metadata(listed.key(), listed.etag());
    if (cached.isPresent()) {
      return cached;
    }
    try {
      requests.head++;
      HeadObjectResponse head = s3.headObject(h -> h.bucket(bucket).key(listed.key()));
      Map<String, String> m = new HashMap<>();
      head.metadata().forEach((k, v) -> m.put(k.toLowerCase(java.util.Locale.ROOT), v));
      return Optional.of(m);
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw new AuditException(
          "reading the claim of s3://"
              + bucket
              + "/"
              + listed.key()
              + " failed ("
              + e.getMessage()
              + "); the audit needs s3:GetObject on the archive prefix",
          e);
    }
  }

  /**
   * The CRC32C of the bytes stored under {@code key} now: the object's own checksum from a HEAD
   * with checksum mode on (S3 keeps the one the archiver sent; no download), or, where the store
   * keeps none (S3-compatible servers, or an overwrite sent with another algorithm), computed from
   * a GET. Empty when the object is gone.
   */
  Optional<String> storedCrc32c(String key) {
    try {
      requests.head++;
      HeadObjectResponse head =
          s3.headObject(
              h ->
                  h.bucket(bucket)
                      .key(key)
                      .checksumMode(software.amazon.awssdk.services.s3.model.ChecksumMode.ENABLED));
      if (head.checksumCRC32C() != null && !head.checksumCRC32C().contains("-")) {
        return Optional.of(head.checksumCRC32C());
      }
      requests.get++;
      byte[] bytes = s3.getObjectAsBytes(g -> g.bucket(bucket).key(key)).asByteArrayUnsafe();
      return Optional.of(io.kafkas3archiver.upload.S3ObjectStore.crc32c(bytes));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw new AuditException(
          "verifying the checksum of s3://"
              + bucket
              + "/"
              + key
              + " failed ("
              + e.getMessage()
              + "); the audit needs s3:GetObject on the archive prefix",
          e);
    }
  }

  static Optional<Claim> claimOf(Map<String, String> metadata) {
    return Claim.fromMetadata(metadata);
  }

  static String unquoted(String etag) {
    if (etag == null) {
      return "";
    }
    return etag.startsWith("\"") && etag.endsWith("\"") && etag.length() >= 2
        ? etag.substring(1, etag.length() - 1)
        : etag;
  }
}
