package io.kafkas3archiver.bench.driver;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.ObjectBody;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.remote.UploadException;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A warm Lambda instance for the benchmark's "as Lambda runs" sections (issue 29): a JVM forked
 * with Lambda's flags on the shaded jar, holding one function built once, as the runtime builds it
 * once per instance, and invoked once per command read from stdin. It replies to each command with
 * one {@code BENCH} line: the invocation's milliseconds, the bytes the invoking thread allocated,
 * and the milliseconds the JVM spent in GC meanwhile.
 *
 * <p>Usage: {@code Warm <function> <event-file>}; functions: {@code archiver} (the handler over the
 * real S3 store, url-connection client, puts unconditional so every invocation is a first
 * delivery), {@code putonly} ({@link ColdStart}'s minimal function: the event PUT as one object
 * with the same SDK, client and settings), {@code memory} (the handler over a store that discards,
 * and the floor pipeline). Commands: {@code run} (one invocation), {@code floor} ({@code memory}
 * only: base64-decode the event's values, concatenate, the configured compressor, discard), {@code
 * quit}.
 */
public final class Warm {
  private Warm() {}

  public static void main(String[] args) throws Exception {
    String function = args[0];
    byte[] event = Files.readAllBytes(Path.of(args[1]));
    // The handler logs to the stdout it finds at construction; the replies go to the real one.
    PrintStream replies = System.out;
    Runnable run;
    Runnable floor = () -> unknown("floor", function);
    switch (function) {
      case "putonly" -> {
        S3Client s3 = ColdStart.minimalClient(ColdStart.http("url"));
        String bucket = System.getenv("BUCKET_NAME");
        run =
            () ->
                s3.putObject(
                    b -> b.bucket(bucket).key("minimal/" + System.nanoTime()),
                    RequestBody.fromBytes(event));
      }
      case "archiver" -> {
        ArchiverConfig config = ArchiverConfig.fromEnv(System::getenv);
        ArchiverHandler handler =
            quietly(
                () ->
                    new ArchiverHandler(
                        config,
                        new Unconditional(ColdStart.store(config, "url")),
                        Clock.systemUTC()));
        run = () -> archive(handler, event);
      }
      case "memory" -> {
        ArchiverConfig config = ArchiverConfig.fromEnv(System::getenv);
        ArchiverHandler handler =
            quietly(
                () ->
                    new ArchiverHandler(
                        config, new Unconditional(new Discard()), Clock.systemUTC()));
        run = () -> archive(handler, event);
        List<byte[]> values = base64Values(event);
        floor = () -> floor(values, config.compression());
      }
      default -> throw new IllegalArgumentException("unknown function " + function);
    }
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
    BufferedReader commands =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = commands.readLine()) != null && !command.equals("quit")) {
      Runnable work =
          switch (command) {
            case "run" -> run;
            case "floor" -> floor;
            default -> throw new IllegalArgumentException("unknown command " + command);
          };
      long gcBefore = gcMillis(gcs);
      long allocBefore = threads.getCurrentThreadAllocatedBytes();
      long start = System.nanoTime();
      work.run();
      long nanos = System.nanoTime() - start;
      long allocated = threads.getCurrentThreadAllocatedBytes() - allocBefore;
      long gc = gcMillis(gcs) - gcBefore;
      replies.printf("BENCH ms=%.3f alloc=%d gc=%d%n", nanos / 1e6, allocated, gc);
      replies.flush();
    }
  }

  private static void unknown(String command, String function) {
    throw new IllegalArgumentException(command + " is not a command of " + function);
  }

  private static long gcMillis(List<GarbageCollectorMXBean> gcs) {
    long sum = 0;
    for (GarbageCollectorMXBean gc : gcs) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

  /** The handler logs to the stdout it finds at construction; keep the tables readable. */
  public static <T> T quietly(java.util.function.Supplier<T> build) {
    PrintStream original = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream()));
    try {
      return build.get();
    } finally {
      System.setOut(original);
    }
  }

  /**
   * Invokes the handler with one event and requires that every record was archived: the one such
   * call of the benchmarks (in-process sections call it too; a fork has only this package).
   */
  public static void archive(ArchiverHandler handler, byte[] event) {
    ByteArrayOutputStream response = new ByteArrayOutputStream();
    try {
      handler.handleRequest(new ByteArrayInputStream(event), response, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!response.toString(StandardCharsets.UTF_8).contains("\"batchItemFailures\":[]")) {
      throw new IllegalStateException("the batch was not archived: " + response);
    }
  }

  /** The floor: no parsing at all, just the bytes the archive must hold, through the codec. */
  private static void floor(List<byte[]> base64Values, Compression compression) {
    Base64.Decoder decoder = Base64.getDecoder();
    try (OutputStream out = compression.wrap(OutputStream.nullOutputStream())) {
      for (byte[] value : base64Values) {
        out.write(decoder.decode(value));
        out.write('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The floor's input: each record's value as it appears in the event, still in base64. */
  private static List<byte[]> base64Values(byte[] event) {
    String text = new String(event, StandardCharsets.US_ASCII);
    String marker = "\"value\":\"";
    List<byte[]> values = new ArrayList<>();
    for (int i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i)) {
      int start = i + marker.length();
      int end = text.indexOf('"', start);
      values.add(text.substring(start, end).getBytes(StandardCharsets.US_ASCII));
      i = end;
    }
    if (values.isEmpty()) {
      throw new IllegalStateException("no \"value\" fields in the event");
    }
    return values;
  }

  /**
   * The in-memory function's store: every body is dropped as it comes, ranges or one array (the
   * array methods for an earlier build's jar, whose store has only those).
   */
  private static final class Discard implements ObjectStore {
    @Override
    public PutResult put(String key, byte[] body, String contentType, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public PutResult putIfAbsent(
        String key, byte[] body, String type, Map<String, String> metadata, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public PutResult putIfAbsent(
        String key, ObjectBody body, String type, Map<String, String> metadata, Deadline deadline) {
      return new PutResult(1, 0);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline) {
      return Optional.empty();
    }
  }

  /**
   * Conditional puts made plain: the same event archived again would meet its own objects and time
   * the conflict path. A conditional PUT is the same request. A body of ranges goes on as ranges;
   * the array methods stay for an earlier build's jar, whose store has only those.
   */
  private record Unconditional(ObjectStore target) implements ObjectStore {
    @Override
    public PutResult put(String key, ObjectBody body, String contentType, Deadline deadline)
        throws UploadException {
      return target.put(key, body, contentType, deadline);
    }

    @Override
    public PutResult put(String key, byte[] body, String contentType, Deadline deadline)
        throws UploadException {
      return target.put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key,
        byte[] body,
        String contentType,
        Map<String, String> metadata,
        Deadline deadline)
        throws UploadException {
      return target.put(key, body, contentType, deadline);
    }

    @Override
    public PutResult putIfAbsent(
        String key,
        ObjectBody body,
        String contentType,
        Map<String, String> metadata,
        Deadline deadline)
        throws UploadException {
      return target.put(key, body, contentType, deadline);
    }

    @Override
    public Optional<Map<String, String>> metadata(String key, Deadline deadline) {
      return Optional.empty();
    }
  }
}
