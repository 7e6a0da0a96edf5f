package io.kafkas3archiver.chain;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.config.ArchiverConfig;
import io.kafkas3archiver.decode.Invocation.KafkaBatch;
import io.kafkas3archiver.decode.KafkaRecord;
import io.kafkas3archiver.group.Grouper;
import io.kafkas3archiver.group.ObjectGroup;
import io.kafkas3archiver.group.PartitionTime;
import io.kafkas3archiver.testing.MemoryStore;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClaimBuilderTest {
  private static final long BEFORE_EDGE = 1783958399000L;
  private static final long AFTER_EDGE = 1783958401000L;
  private static final Clock LATER =
      Clock.fixed(Instant.ofEpochMilli(AFTER_EDGE + 7_200_000L), ZoneId.of("UTC"));

  private static KafkaRecord record(long offset, long ts) {
    return new KafkaRecord(
        "orders", 0, offset, ts, "CREATE_TIME", null, "{}".getBytes(), List.of());
  }

  private static ChainWriter writer(PartitionTime time) {
    ArchiverConfig config =
        ArchiverConfig.fromEnv(
            Map.of(
                "BUCKET_NAME", "claims",
                "AWS_REGION", "us-east-1",
                "PARTITION_TIME", time.name().toLowerCase()));
    return new ChainWriter(config, (g, d) -> null, new MemoryStore());
  }

  private static List<ObjectGroup> groups(PartitionTime time, List<KafkaRecord> records) {
    return new Grouper(time, ZoneId.of("UTC"), LATER)
        .group(new KafkaBatch("aws:kafka", records, List.of()));
  }

  @Test
  void shouldDescribeWhereARestartInsideAGroupWouldNameItsObject() {
    var records =
        List.of(
            record(10, BEFORE_EDGE),
            record(11, AFTER_EDGE),
            record(12, AFTER_EDGE),
            record(14, AFTER_EDGE));

    Claim claim = writer(PartitionTime.BATCH).claim(groups(PartitionTime.BATCH, records).get(0));

    assertThat(claim.segments())
        .extracting(s -> s.from() + "-" + s.to() + "@" + s.folderEpochSecond())
        .containsExactly(
            "10-10@" + (BEFORE_EDGE / 3_600_000L * 3_600L),
            "11-14@" + (AFTER_EDGE / 3_600_000L * 3_600L));
    assertThat(claim.gaps()).containsExactly(new Claim.Gap(13, 13));
    assertThat(claim.pointerAt(13, ZoneId.of("UTC")).orElseThrow().claim().first()).isEqualTo(14);
  }

  @Test
  void shouldKeepAPartitionWithATransactionMarkerEveryTenOffsetsInOneObject() {
    List<KafkaRecord> records = new ArrayList<>();
    long offset = 0;
    while (records.size() < 2_000) {
      if (offset % 10 != 9) { // offset 9, 19, ...: a commit marker, never delivered
        records.add(record(offset, BEFORE_EDGE - 3_000_000L + records.size()));
      }
      offset++;
    }
    var groups = groups(PartitionTime.BATCH, records);

    Claim claim = writer(PartitionTime.BATCH).claim(groups.get(0));

    assertThat(groups).hasSize(1);
    assertThat(claim.last()).isEqualTo(offset - 1);
    assertThat(claim.segments()).hasSize(1);
    assertThat(claim.gaps()).hasSize(222);
    assertThat(claim.toMetadata()).containsEntry(Claim.GAPS, "9*222");
  }

  @Test
  void shouldListTheOffsetsMissingBetweenTheGroupsRecordsAsGaps() {
    var records =
        List.of(
            record(3, AFTER_EDGE),
            record(7, AFTER_EDGE),
            record(4, AFTER_EDGE),
            record(12, AFTER_EDGE));

    Claim claim = writer(PartitionTime.RECORD).claim(groups(PartitionTime.RECORD, records).get(0));

    assertThat(claim.first()).isEqualTo(3);
    assertThat(claim.last()).isEqualTo(12);
    assertThat(claim.gaps()).containsExactly(new Claim.Gap(5, 6), new Claim.Gap(8, 11));
  }

  /**
   * The builder keeps the claim's size as it grows; it must be the size the claim's metadata really
   * has, and it stops exactly where one more record would not fit.
   */
  @Test
  void shouldKnowTheClaimsExactSizeAtEveryStepAndStopWhereTheNextRecordWouldNotFit() {
    long seed = new Random().nextLong();
    System.out.println("ClaimBuilderTest seed " + seed);
    Random rnd = new Random(seed);
    for (int round = 0; round < 200; round++) {
      long first = rnd.nextInt(3) == 0 ? rnd.nextLong(1L << 50) : rnd.nextInt(1_000);
      ClaimBuilder builder = new ClaimBuilder(first);
      long offset = first;
      long[] folders = {1_783_954_800L, 1_783_958_400L, 1_783_962_000L};
      int folder = 0;
      boolean stopped = false;
      for (int i = 0; i < 5_000 && !stopped; i++) {
        int kind = rnd.nextInt(10);
        offset += kind < 6 ? 1 : kind < 8 ? 2 + rnd.nextInt(3) : 1 + rnd.nextInt(2_000);
        if (rnd.nextInt(8) == 0) {
          folder = rnd.nextInt(folders.length);
        }
        Claim before = builder.claim();
        boolean added = builder.add(offset, folders[folder]);
        Claim now = builder.claim();
        assertThat(builder.bytes())
            .as("seed %d round %d step %d", seed, round, i)
            .isEqualTo(
                now.withErrorRows(Integer.MAX_VALUE)
                    .withDataRows(Integer.MAX_VALUE)
                    .metadataBytes());
        assertThat(Claim.fromMetadata(now.toMetadata())).contains(now);
        if (!added) {
          assertThat(now).isEqualTo(before);
          stopped = true;
          assertThat(builder.bytes()).isLessThanOrEqualTo(Claim.BUDGET);
        }
      }
    }
  }

  @Test
  void digitsIsTheLengthOfTheDecimalTextAtEveryPowerOfTenAndAtTheEdges() {
    List<Long> values = new ArrayList<>(List.of(0L, Long.MAX_VALUE, Long.MIN_VALUE));
    for (long power = 1; power > 0 && power <= Long.MAX_VALUE / 10; power *= 10) {
      values.addAll(List.of(power - 1, power, power + 1, 10 * power - 1, -power, -power + 1));
    }
    Random random = new Random(29);
    for (int i = 0; i < 10_000; i++) {
      values.add(random.nextLong() >>> random.nextInt(64));
    }
    for (long v : values) {
      assertThat(ClaimBuilder.digits(v)).as("%d", v).isEqualTo(Long.toString(v).length());
    }
  }
}
