package io.kafkas3archiver.upload;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Sends {@code x-amz-expected-bucket-owner} (EXPECTED_BUCKET_OWNER) on every S3 call the client
 * makes: PutObject, the preflight's ListObjectsV2, HeadBucket, GetBucketLocation and DeleteObject,
 * and any call added later, without each request builder having to remember it. S3 then answers 403
 * instead of writing into, or reading from, a bucket of the same name that another account owns.
 * The header is added before signing, so it is covered by the SigV4 signature.
 */
final class ExpectedBucketOwner implements ExecutionInterceptor {
  static final String HEADER = "x-amz-expected-bucket-owner";

  private final String accountId;

  ExpectedBucketOwner(String accountId) {
    this.accountId = accountId;
  }

  @Override
  public SdkHttpRequest modifyHttpRequest(
      Context.ModifyHttpRequest context, ExecutionAttributes executionAttributes) {
    return context.httpRequest().toBuilder().putHeader(HEADER, accountId).build();
  }
}
