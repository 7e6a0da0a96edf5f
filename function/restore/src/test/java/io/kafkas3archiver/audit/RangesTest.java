package io.kafkas3archiver.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.chain.Claim;
import io.kafkas3archiver.restore.ArchiveObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RangesTest {
  @Test
  void shouldMergeAdjacentAndOverlappingRuns() {
    Ranges r = new Ranges();
    r.add(10, 19);
    r.add(20, 25);
    r.add(5, 8);
    r.add(7, 11);
    assertThat(r.list()).containsExactly(new Ranges.Range(5, 25));
    assertThat(r.size()).isEqualTo(21);
  }

  @Test
  void shouldSplitARunWhenTheMiddleIsRemoved() {
    Ranges r = Ranges.of(0, 99);
    r.remove(10, 19);
    r.remove(50, 50);
    assertThat(r.list())
        .containsExactly(
            new Ranges.Range(0, 9), new Ranges.Range(20, 49), new Ranges.Range(51, 99));
    assertThat(r.intersect(Ranges.of(5, 25)).list())
        .containsExactly(new Ranges.Range(5, 9), new Ranges.Range(20, 25));
    assertThat(r.clip(45, 60).list())
        .containsExactly(new Ranges.Range(45, 49), new Ranges.Range(51, 60));
    assertThat(r.containsAll(Ranges.of(20, 49))).isTrue();
    assertThat(r.containsAll(Ranges.of(20, 50))).isFalse();
  }

  @Test
  void shouldHoldAClaimsSegmentsMinusItsGaps() {
    Claim claim =
        new Claim(
            100,
            120,
            0,
            List.of(new Claim.Segment(100, 110, 0), new Claim.Segment(111, 120, 3600)),
            List.of(new Claim.Gap(105, 105), new Claim.Gap(115, 116)));
    AuditedObject o =
        new AuditedObject("k", ArchiveObject.Kind.DATA, "e", 1, Optional.of(claim), Map.of(), 0);
    assertThat(o.held().list())
        .containsExactly(
            new Ranges.Range(100, 104), new Ranges.Range(106, 114), new Ranges.Range(117, 120));
    assertThat(o.recordedGaps().list())
        .containsExactly(new Ranges.Range(105, 105), new Ranges.Range(115, 116));
  }

  @Test
  void shouldFindThePartitionFromTheDeterministicIdInTheKey() {
    UUID id = UUID.nameUUIDFromBytes("orders|7:1234|csv".getBytes(StandardCharsets.UTF_8));
    String key = "condense/orders/year=2026/month=12/day=04/hour=21/" + id + ".csv";
    assertThat(AuditedObject.partitionOf(key, "orders", 1234, 16)).isEqualTo(7);
    assertThat(AuditedObject.partitionOf(key, "orders", 1234, 7))
        .isEqualTo(AuditedObject.UNKNOWN_PARTITION);
    assertThat(AuditedObject.partitionOf(key, "orders", 1235, 16))
        .isEqualTo(AuditedObject.UNKNOWN_PARTITION);
  }
}
