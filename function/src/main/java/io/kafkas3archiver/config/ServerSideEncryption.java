package io.kafkas3archiver.config;

/** The {@code SSE} setting: how S3 encrypts each object. Unset means the bucket's default. */
public enum ServerSideEncryption {
  AES256("AES256"),
  KMS("aws:kms");

  private final String configName;

  ServerSideEncryption(String configName) {
    this.configName = configName;
  }

  /** The name in configuration. */
  public String configName() {
    return configName.toLowerCase(java.util.Locale.ROOT);
  }

  /** The value S3 expects in {@code x-amz-server-side-encryption}. */
  public String headerValue() {
    return configName;
  }
}
