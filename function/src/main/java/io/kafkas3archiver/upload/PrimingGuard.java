package io.kafkas3archiver.upload;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Lets SnapStart priming run a real PutObject through the S3 client (marshalling, endpoint rules,
 * checksum, SigV4 signing with placeholder keys) and stops it after signing, before the request is
 * transmitted. So priming warms the client's code paths without a byte leaving the JVM, and can
 * never write to the bucket.
 */
final class PrimingGuard implements ExecutionInterceptor {
  /** Set on the priming request only. */
  static final ExecutionAttribute<Boolean> PRIMING = new ExecutionAttribute<>("ArchiverPriming");

  /** Thrown in place of the transmission; S3ObjectStore expects and swallows it. */
  static final class Stopped extends RuntimeException {
    private final boolean signed;

    Stopped(boolean signed) {
      super("priming request stopped before transmission", null, false, false);
      this.signed = signed;
    }

    /** Whether the request carried a SigV4 Authorization header: the signer ran. */
    boolean signed() {
      return signed;
    }
  }

  @Override
  public void beforeTransmission(
      Context.BeforeTransmission context, ExecutionAttributes executionAttributes) {
    if (Boolean.TRUE.equals(executionAttributes.getAttribute(PRIMING))) {
      throw new Stopped(
          context
              .httpRequest()
              .firstMatchingHeader("Authorization")
              .filter(a -> a.startsWith("AWS4-HMAC-SHA256"))
              .isPresent());
    }
  }
}
