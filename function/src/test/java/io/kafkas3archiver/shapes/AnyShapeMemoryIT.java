package io.kafkas3archiver.shapes;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.testing.Formats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every hostile shape ({@link HostileShapes}) in every accepted format and codec, in one forked JVM
 * with the heap of a 256 MB function (-Xmx200m): none runs out of memory, every case accounts for
 * every record, and the output stays proportional to the input. One JVM runs all cases, and the
 * wait for it is bounded: its output goes to a file, so waitFor's timeout can fire.
 */
class AnyShapeMemoryIT {
  private static final long TIMEOUT_SECONDS = 900;
  private static final List<String> METADATA_SHAPES = List.of("per-record-keys");
  private static final Pattern CASE =
      Pattern.compile(
          "case (\\S+) (\\S+) metadata=(\\w+) records=(\\d+) nulls=(\\d+) in=(\\d+) written=(\\d+)"
              + " errored=(\\d+) tombstones=(\\d+) failed=(\\d+) valueBytes=(\\d+) rawBytes=(\\d+)"
              + " storedBytes=(\\d+) peakHeapMb=([\\d.]+) ms=(\\d+)");

  @TempDir Path temp;

  @Test
  void shouldArchiveEveryHostileShapeInEveryFormatAndCodecInTheHeapOfA256MbFunction()
      throws Exception {
    long seed = Long.getLong("shapes.seed", System.nanoTime());
    System.out.println("hostile shapes seed " + seed + " (rerun with -Dshapes.seed=" + seed + ")");
    Path log = temp.resolve("probe.log");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx200m",
                "-XX:+ExitOnOutOfMemoryError",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                HostileShapesProbe.class.getName(),
                Long.toString(seed),
                String.join(",", METADATA_SHAPES))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    process.getOutputStream().close();
    boolean finished = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    String tail = output.length() > 4000 ? output.substring(output.length() - 4000) : output;

    assertThat(finished).as("finished within %d s:%n%s", TIMEOUT_SECONDS, tail).isTrue();
    assertThat(process.exitValue()).as(tail).isZero();
    assertThat(output).as(tail).contains("done maxHeapMb");

    List<Matcher> cases = new ArrayList<>();
    Map<String, Integer> perShape = new HashMap<>();
    for (String line : output.lines().filter(l -> l.startsWith("case ")).toList()) {
      Matcher m = CASE.matcher(line);
      assertThat(m.matches()).as(line).isTrue();
      cases.add(m);
      perShape.merge(m.group(1), 1, Integer::sum);
    }
    int variants = Formats.variants().size();
    assertThat(cases).hasSize((HostileShapes.all().size() + METADATA_SHAPES.size()) * variants);
    for (HostileShapes.Shape shape : HostileShapes.all()) {
      assertThat(perShape.get(shape.name()))
          .as(shape.name())
          .isEqualTo(METADATA_SHAPES.contains(shape.name()) ? 2 * variants : variants);
    }
    for (Matcher m : cases) {
      String line = m.group();
      long records = Long.parseLong(m.group(4));
      long nulls = Long.parseLong(m.group(5));
      long in = Long.parseLong(m.group(6));
      long written = Long.parseLong(m.group(7));
      long errored = Long.parseLong(m.group(8));
      long tombstones = Long.parseLong(m.group(9));
      long valueBytes = Long.parseLong(m.group(11));
      long rawBytes = Long.parseLong(m.group(12));
      boolean metadata = Boolean.parseBoolean(m.group(3));
      assertThat(in).as(line).isEqualTo(records);
      assertThat(written + errored + tombstones)
          .as("in = written + errored + tombstones: " + line)
          .isEqualTo(in);
      assertThat(Long.parseLong(m.group(10))).as(line).isZero();
      assertThat(tombstones).as(line).isEqualTo(metadata ? 0 : nulls);
      assertThat(written).as("most records are rows: " + line).isGreaterThan(records * 9 / 10);
      assertThat(rawBytes)
          .as("output proportional to input: " + line)
          .isLessThanOrEqualTo(3 * valueBytes + 2 * records * 200 + 1_000_000);
    }
    Matcher worstHeap =
        cases.stream().max(Comparator.comparingDouble(m -> Double.parseDouble(m.group(14)))).get();
    Matcher worstTime =
        cases.stream().max(Comparator.comparingLong(m -> Long.parseLong(m.group(15)))).get();
    System.out.println("hostile shapes: " + cases.size() + " cases passed in -Xmx200m");
    System.out.println("worst peak heap: " + worstHeap.group());
    System.out.println("slowest: " + worstTime.group());
  }
}
