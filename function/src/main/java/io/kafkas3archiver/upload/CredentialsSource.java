package io.kafkas3archiver.upload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kafkas3archiver.config.ArchiverConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * Where the S3 client's credentials come from (DESIGN §2), a closed set: the execution role (the
 * default), static access keys in Secrets Manager ({@code CREDENTIALS_SECRET_ARN}), or a role
 * assumed through STS ({@code ROLE_ARN} + {@code EXTERNAL_ID}) on top of either.
 *
 * <p>Built once at init without fetching anything: credentials resolve on the first signed request
 * of an invocation, after the SnapStart restore. Priming's request ({@code S3ObjectStore.prime}) is
 * signed with placeholder keys, so no secret or session is ever in a snapshot ({@code
 * SnapshotCredentialsIT}). Static keys are then cached, and re-read at most once per invocation
 * after S3 rejects them; an assumed role's session is refreshed before it expires. Nothing here
 * ever prints a key.
 */
public sealed interface CredentialsSource {

  /** The provider the S3 client signs with. */
  AwsCredentialsProvider provider();

  /** Where the credentials come from, for the preflight report and messages. Holds no secret. */
  String describe();

  /**
   * What to check when S3 rejects these credentials (InvalidAccessKeyId, SignatureDoesNotMatch).
   */
  String rejectionAdvice();

  /** Marks the start of an invocation: re-reading a rejected secret is allowed once again. */
  default void beginInvocation() {}

  /**
   * S3 rejected the credentials (InvalidAccessKeyId, SignatureDoesNotMatch): re-read them if they
   * come from a secret that may have been rotated, at most once per invocation.
   *
   * @return true if fresh credentials were fetched and a retry may succeed
   */
  default boolean refreshAfterRejection() {
    return false;
  }

  /** Builds the source the configuration asks for; the environment seam supplies endpoints. */
  static CredentialsSource from(ArchiverConfig config, Function<String, String> env) {
    ServiceClients clients = new ServiceClients(env);
    CredentialsSource source = ExecutionRole.of(env);
    if (config.credentialsSecretArn().isPresent()) {
      String arn = config.credentialsSecretArn().get();
      String region = arnRegion(arn).orElse(clients.functionRegion(config.bucketRegion()));
      AwsCredentialsProvider role = source.provider();
      source =
          new SecretKeys(
              arn,
              memoize(() -> clients.secretsManager(region, role)),
              clients.endpointName("AWS_ENDPOINT_URL_SECRETS_MANAGER", "secretsmanager", region));
    }
    if (config.roleArn().isPresent()) {
      String region = clients.functionRegion(config.bucketRegion());
      CredentialsSource base = source;
      source =
          new AssumedRole(
              config.roleArn().get(),
              config.externalId(),
              sessionName(config.title()),
              base,
              memoize(() -> clients.sts(region, base.provider())));
    }
    return source;
  }

  /** As {@link #from(ArchiverConfig, Function)} with the process environment. */
  static CredentialsSource from(ArchiverConfig config) {
    return from(config, System::getenv);
  }

  /**
   * The role the function runs as. In Lambda its keys are in the environment; read through the seam
   * at each resolve (never at init), then the SDK's default chain (e.g. SnapStart's container
   * credentials).
   */
  record ExecutionRole(AwsCredentialsProvider provider) implements CredentialsSource {
    static ExecutionRole of(Function<String, String> env) {
      AwsCredentialsProvider fromEnv =
          () -> {
            String id = env.apply("AWS_ACCESS_KEY_ID");
            String secret = env.apply("AWS_SECRET_ACCESS_KEY");
            if (blank(id) || blank(secret)) {
              throw SdkClientException.create("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY not set");
            }
            String token = env.apply("AWS_SESSION_TOKEN");
            return blank(token)
                ? AwsBasicCredentials.create(id, secret)
                : AwsSessionCredentials.create(id, secret, token);
          };
      return new ExecutionRole(
          AwsCredentialsProviderChain.builder()
              .credentialsProviders(fromEnv, DefaultCredentialsProvider.builder().build())
              .build());
    }

    @Override
    public String describe() {
      return "the function's execution role";
    }

    @Override
    public String rejectionAdvice() {
      return "The credentials are the function's execution role: check the role the function runs"
          + " as. An S3-compatible server (AWS_ENDPOINT_URL_S3) knows only its own keys: store them"
          + " in a secret and set CREDENTIALS_SECRET_ARN";
    }
  }

  /**
   * Static access keys from a Secrets Manager secret: {@code {"accessKey","secretKey"}} or {@code
   * {"accessKeyId","secretAccessKey"}}, with an optional {@code sessionToken}. Fetched on first
   * use, then cached; re-fetched once per invocation when S3 rejects them.
   */
  final class SecretKeys implements CredentialsSource, AwsCredentialsProvider {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String secretArn;
    private final Supplier<SecretsManagerClient> client;
    private final String endpoint;
    private AwsCredentials cached;
    private boolean refreshedThisInvocation;

    SecretKeys(String secretArn, Supplier<SecretsManagerClient> client, String endpoint) {
      this.secretArn = secretArn;
      this.client = client;
      this.endpoint = endpoint;
    }

    @Override
    public AwsCredentialsProvider provider() {
      return this;
    }

    @Override
    public String describe() {
      return "access keys from the Secrets Manager secret " + secretArn + " (via " + endpoint + ")";
    }

    public String secretArn() {
      return secretArn;
    }

    @Override
    public String rejectionAdvice() {
      return "The keys come from CREDENTIALS_SECRET_ARN="
          + secretArn
          + ": store the current keys there (after a rotation, update the secret: it is re-read"
          + " once per invocation after a rejection)";
    }

    @Override
    public synchronized AwsCredentials resolveCredentials() {
      if (cached == null) {
        cached = fetch();
      }
      return cached;
    }

    @Override
    public synchronized void beginInvocation() {
      refreshedThisInvocation = false;
    }

    @Override
    public synchronized boolean refreshAfterRejection() {
      if (refreshedThisInvocation) {
        return false;
      }
      refreshedThisInvocation = true;
      cached = null;
      cached = fetch();
      return true;
    }

    private AwsCredentials fetch() {
      String secretString;
      try {
        var response = client.get().getSecretValue(r -> r.secretId(secretArn));
        secretString = response.secretString();
      } catch (SdkException e) {
        throw CredentialsResolutionException.of(
            CredentialsResolutionException.Step.GET_SECRET, secretArn, e);
      }
      if (secretString == null) {
        throw CredentialsResolutionException.badSecret(
            secretArn, "the secret has no SecretString (binary secrets are not supported)");
      }
      return parse(secretArn, secretString);
    }

    /**
     * Reads the keys from the secret's JSON. Errors name the expected fields, never the content: a
     * parser's own message would quote the secret.
     */
    static AwsCredentials parse(String secretArn, String secretString) {
      JsonNode root;
      try {
        root = JSON.readTree(secretString);
      } catch (Exception e) {
        root = null;
      }
      if (root == null || !root.isObject()) {
        throw CredentialsResolutionException.badSecret(
            secretArn,
            "the secret value is not a JSON object; store"
                + " {\"accessKey\": \"...\", \"secretKey\": \"...\"}");
      }
      String id = field(root, "accessKey", "accessKeyId");
      String secret = field(root, "secretKey", "secretAccessKey");
      String token = field(root, "sessionToken", "sessionToken");
      if (id == null || secret == null) {
        throw CredentialsResolutionException.badSecret(
            secretArn,
            "the secret's JSON object ("
                + root.size()
                + " fields) lacks "
                + (id == null ? "\"accessKey\" (or \"accessKeyId\")" : "")
                + (id == null && secret == null ? " and " : "")
                + (secret == null ? "\"secretKey\" (or \"secretAccessKey\")" : "")
                + " as a non-empty string");
      }
      return token == null
          ? AwsBasicCredentials.create(id, secret)
          : AwsSessionCredentials.create(id, secret, token);
    }

    private static String field(JsonNode root, String name, String alias) {
      JsonNode node = root.has(name) ? root.get(name) : root.get(alias);
      if (node == null || !node.isTextual() || node.asText().isBlank()) {
        return null;
      }
      return node.asText().trim();
    }
  }

  /**
   * A role assumed through STS, with the external ID when set, and a session name built from TITLE
   * (so CloudTrail shows which connector acted). The base credentials are the execution role's, or
   * the secret's when both are configured. The SDK's provider refreshes the session before it
   * expires (prefetch 5 minutes, stale 1 minute ahead of expiry).
   */
  final class AssumedRole implements CredentialsSource, AwsCredentialsProvider {
    private final String roleArn;
    private final Optional<String> externalId;
    private final String sessionName;
    private final CredentialsSource base;
    private final Supplier<StsClient> sts;
    private StsAssumeRoleCredentialsProvider session;

    AssumedRole(
        String roleArn,
        Optional<String> externalId,
        String sessionName,
        CredentialsSource base,
        Supplier<StsClient> sts) {
      this.roleArn = roleArn;
      this.externalId = externalId;
      this.sessionName = sessionName;
      this.base = base;
      this.sts = sts;
    }

    @Override
    public AwsCredentialsProvider provider() {
      return this;
    }

    @Override
    public String describe() {
      return "role "
          + roleArn
          + (externalId.isPresent() ? " with an external ID" : "")
          + ", session '"
          + sessionName
          + "', assumed with "
          + base.describe();
    }

    public String roleArn() {
      return roleArn;
    }

    @Override
    public String rejectionAdvice() {
      return "The keys are a session of ROLE_ARN="
          + roleArn
          + ", which S3 did not accept: check ROLE_ARN; with AWS_ENDPOINT_URL_S3 set, that server"
          + " must accept the sessions of the STS at AWS_ENDPOINT_URL_STS";
    }

    public String sessionName() {
      return sessionName;
    }

    public CredentialsSource base() {
      return base;
    }

    @Override
    public AwsCredentials resolveCredentials() {
      StsAssumeRoleCredentialsProvider current;
      synchronized (this) {
        if (session == null) {
          session =
              StsAssumeRoleCredentialsProvider.builder()
                  .stsClient(sts.get())
                  .refreshRequest(
                      AssumeRoleRequest.builder()
                          .roleArn(roleArn)
                          .roleSessionName(sessionName)
                          .externalId(externalId.orElse(null))
                          .build())
                  // Refresh on the calling thread (no background thread in a frozen sandbox):
                  // from 5 minutes before expiry, and blocking from 1 minute before.
                  .asyncCredentialUpdateEnabled(false)
                  .prefetchTime(Duration.ofMinutes(5))
                  .staleTime(Duration.ofMinutes(1))
                  .build();
        }
        current = session;
      }
      try {
        return current.resolveCredentials();
      } catch (SdkException e) {
        CredentialsResolutionException fromBase = find(e);
        if (fromBase != null) {
          throw fromBase;
        }
        throw CredentialsResolutionException.of(
            CredentialsResolutionException.Step.ASSUME_ROLE, roleArn, e);
      }
    }

    @Override
    public void beginInvocation() {
      base.beginInvocation();
    }

    /** Rotated base keys: re-read them, and start a new session signed with the fresh ones. */
    @Override
    public boolean refreshAfterRejection() {
      if (!base.refreshAfterRejection()) {
        return false;
      }
      synchronized (this) {
        if (session instanceof SdkAutoCloseable c) {
          c.close();
        }
        session = null;
      }
      return true;
    }

    private static CredentialsResolutionException find(Throwable t) {
      for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
        if (c instanceof CredentialsResolutionException cre) {
          return cre;
        }
      }
      return null;
    }
  }

  /** STS's RoleSessionName from TITLE: 2 to 64 of {@code [\w+=,.@-]}; anything else becomes '-'. */
  static String sessionName(String title) {
    String cleaned = title.replaceAll("[^\\w+=,.@-]", "-");
    if (cleaned.length() > 64) {
      cleaned = cleaned.substring(0, 64);
    }
    return cleaned.length() < 2 ? "kafka-s3-archiver" : cleaned;
  }

  /** The region field of an ARN ({@code arn:aws:secretsmanager:<region>:...}). */
  static Optional<String> arnRegion(String arn) {
    String[] parts = arn.split(":", 6);
    return parts.length >= 4 && !parts[3].isBlank() ? Optional.of(parts[3]) : Optional.empty();
  }

  private static <T> Supplier<T> memoize(Supplier<T> factory) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = factory.get();
        }
        return value;
      }
    };
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
