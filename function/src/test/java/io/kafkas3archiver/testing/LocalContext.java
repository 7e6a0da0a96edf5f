package io.kafkas3archiver.testing;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;

/** A Lambda context for local runs and tests: a fixed request id and a deadline. */
public final class LocalContext implements Context {
  private final long deadline;
  private final String requestId;

  public LocalContext(long millisToDeadline) {
    this("local-" + System.nanoTime(), millisToDeadline);
  }

  public LocalContext(String requestId, long millisToDeadline) {
    this.requestId = requestId;
    this.deadline = System.currentTimeMillis() + millisToDeadline;
  }

  @Override
  public String getAwsRequestId() {
    return requestId;
  }

  @Override
  public String getLogGroupName() {
    return "/aws/lambda/kafka-s3-archiver-local";
  }

  @Override
  public String getLogStreamName() {
    return "local";
  }

  @Override
  public String getFunctionName() {
    return "kafka-s3-archiver-local";
  }

  @Override
  public String getFunctionVersion() {
    return "$LATEST";
  }

  @Override
  public String getInvokedFunctionArn() {
    return "arn:aws:lambda:us-east-1:000000000000:function:kafka-s3-archiver-local";
  }

  @Override
  public CognitoIdentity getIdentity() {
    return null;
  }

  @Override
  public ClientContext getClientContext() {
    return null;
  }

  @Override
  public int getRemainingTimeInMillis() {
    return (int) Math.max(0, deadline - System.currentTimeMillis());
  }

  @Override
  public int getMemoryLimitInMB() {
    return 512;
  }

  @Override
  public LambdaLogger getLogger() {
    return new LambdaLogger() {
      @Override
      public void log(String message) {
        System.out.print(message);
      }

      @Override
      public void log(byte[] message) {
        System.out.write(message, 0, message.length);
      }
    };
  }
}
