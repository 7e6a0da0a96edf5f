package io.kafkas3archiver.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.ArchiverHandler;
import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.remote.Deadline;
import io.kafkas3archiver.testing.LocalContext;
import io.kafkas3archiver.upload.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A batch whose only records cannot be decoded and carry no offset has no offsets to name its error
 * object by. Two different such batches must still not share a key, or the second would overwrite
 * the first's error rows.
 */
class ErrorObjectCollisionTest {

  private static String event(String badValue) {
    return "{\"eventSource\":\"aws:kafka\",\"records\":{\"t-0\":[{\"topic\":\"t\",\"partition\":0,"
        + "\"value\":\""
        + badValue
        + "\"}]}}";
  }

  @Test
  void shouldGiveDifferentOffsetlessRejectsDifferentErrorObjects() throws Exception {
    Map<String, byte[]> objects = new TreeMap<>();
    ObjectStore store =
        new ObjectStore() {
          @Override
          public PutResult put(String key, byte[] body, String contentType, Deadline deadline) {
            objects.put(key, body);
            return new PutResult(1, 0);
          }
        };
    PrintStream stdout = System.out;
    try {
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
      ArchiverHandler handler =
          new ArchiverHandler(
              ArchiverConfig.fromEnv(
                  Map.of("BUCKET_NAME", "unit-bucket", "AWS_REGION", "us-east-1")),
              store,
              Clock.systemUTC());
      for (String bad : new String[] {"first!!", "second!!", "first!!"}) {
        handler.handleRequest(
            new ByteArrayInputStream(event(bad).getBytes(StandardCharsets.UTF_8)),
            new ByteArrayOutputStream(),
            new LocalContext(30_000));
      }
    } finally {
      System.setOut(stdout);
    }

    // Two distinct batches, two error objects; the repeated batch overwrites its own (idempotent).
    assertThat(objects).hasSize(2);
    assertThat(objects.keySet()).allSatisfy(k -> assertThat(k).contains("/_errors/t/"));
    assertThat(objects.values())
        .anySatisfy(b -> assertThat(new String(b, StandardCharsets.UTF_8)).contains("first!!"))
        .anySatisfy(b -> assertThat(new String(b, StandardCharsets.UTF_8)).contains("second!!"));
  }
}
