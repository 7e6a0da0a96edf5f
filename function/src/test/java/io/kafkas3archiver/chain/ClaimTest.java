package io.kafkas3archiver.chain;

import static org.assertj.core.api.Assertions.assertThat;

import io.kafkas3archiver.chain.Claim.Gap;
import io.kafkas3archiver.chain.Claim.Segment;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClaimTest {
  private static final ZoneId UTC = ZoneId.of("UTC");
  private static final long H1 = 1_784_000_000L - 1_784_000_000L % 3_600;
  private static final long H2 = H1 + 3_600;

  /** Offsets 10..30: folder H1 up to 17, H2 after; 13, 14 and 20 missing, 24..26 missing. */
  private static final Claim GAPPED =
      new Claim(
          10,
          30,
          2,
          List.of(new Segment(10, 17, H1), new Segment(18, 30, H2)),
          List.of(new Gap(13, 14), new Gap(20, 20), new Gap(24, 26)));

  @Test
  void shouldReadBackTheClaimItWrites() {
    Map<String, String> metadata = GAPPED.toMetadata();

    assertThat(metadata)
        .containsEntry(Claim.OFFSETS, "10-30")
        .containsEntry(Claim.ERROR_ROWS, "2")
        .containsEntry(Claim.SEGMENTS, "10-17@" + H1 + ",18-30@" + H2)
        .containsEntry(Claim.GAPS, "3+2,5,3+3");
    assertThat(Claim.fromMetadata(metadata)).contains(GAPPED);
  }

  @Test
  void shouldWriteARepeatedGapOnce() {
    List<Gap> markers = new ArrayList<>();
    for (long o = 109; o < 1_000; o += 10) {
      markers.add(new Gap(o, o));
    }
    markers.add(new Gap(1_005, 1_006));
    Claim claim = new Claim(100, 1_010, 0, List.of(new Segment(100, 1_010, H1)), markers);

    assertThat(claim.toMetadata()).containsEntry(Claim.GAPS, "9*90,5+2");
    assertThat(Claim.fromMetadata(claim.toMetadata())).contains(claim);
  }

  @Test
  void shouldReadTheOlderFormWhoseSegmentsEndAtEveryMissingOffset() {
    // Written before kafka-gaps: offsets 13, 14 and 20 missing, so segments split there.
    Map<String, String> old =
        Map.of(
            "Kafka-Offsets", "10-22",
            "kafka-error-rows", "0",
            "kafka-segments", "10-12@" + H1 + ",15-17@" + H1 + ",18-19@" + H2 + ",21-22@" + H2);

    Claim claim = Claim.fromMetadata(old).orElseThrow();

    assertThat(claim.gaps()).isEmpty();
    assertThat(pointer(claim, 13)).isEqualTo("15@" + H1);
    assertThat(pointer(claim, 16)).isEqualTo("16@" + H1);
    assertThat(pointer(claim, 20)).isEqualTo("21@" + H2);
    assertThat(claim.pointerAt(23, UTC)).isEmpty();
  }

  @Test
  void shouldPointAtTheFirstHeldOffsetAtOrAfterTheRestart() {
    assertThat(pointer(GAPPED, 12)).as("before a gap").isEqualTo("12@" + H1);
    assertThat(pointer(GAPPED, 13)).as("at a gap's start").isEqualTo("15@" + H1);
    assertThat(pointer(GAPPED, 14)).as("inside a gap").isEqualTo("15@" + H1);
    assertThat(pointer(GAPPED, 15)).as("just after a gap").isEqualTo("15@" + H1);
    assertThat(pointer(GAPPED, 20)).as("a gap inside the second folder").isEqualTo("21@" + H2);
    assertThat(pointer(GAPPED, 25)).as("a gap of three").isEqualTo("27@" + H2);
    assertThat(pointer(GAPPED, 30)).as("the last offset").isEqualTo("30@" + H2);
    assertThat(GAPPED.pointerAt(31, UTC)).as("past the claim").isEmpty();
    assertThat(GAPPED.pointerAt(10, UTC)).as("at its own start").isEmpty();
  }

  @Test
  void shouldPointAcrossAGapIntoTheNextFolder() {
    Claim claim =
        new Claim(
            10,
            20,
            0,
            List.of(new Segment(10, 12, H1), new Segment(15, 20, H2)),
            List.of(new Gap(13, 14)));

    assertThat(pointer(claim, 13)).isEqualTo("15@" + H2);
  }

  @Test
  void shouldGiveThePointerTheRestOfTheClaim() {
    Claim rest = GAPPED.pointerAt(14, UTC).orElseThrow().claim();

    assertThat(rest)
        .isEqualTo(
            new Claim(
                15,
                30,
                0,
                List.of(new Segment(15, 17, H1), new Segment(18, 30, H2)),
                List.of(new Gap(20, 20), new Gap(24, 26))));
    assertThat(rest.toMetadata()).containsEntry(Claim.GAPS, "5,3+3");
    assertThat(Claim.fromMetadata(rest.toMetadata())).contains(rest);
  }

  @Test
  void shouldRefuseGapsThatDoNotFitTheRange() {
    Map<String, String> metadata = new HashMap<>(GAPPED.toMetadata());
    metadata.put(Claim.GAPS, "3+50");

    assertThat(Claim.fromMetadata(metadata)).isEmpty();
  }

  @Test
  void shouldCutWhereTheClaimWouldOutgrowTheMetadataLimit() {
    long seed = Long.getLong("claim.seed", System.nanoTime());
    System.out.printf("ClaimTest: seed=%d (rerun with -Dclaim.seed=%d)%n", seed, seed);
    Random rnd = new Random(seed);
    // 2,000 compaction holes, each after 1 to 99 held offsets (no two entries alike in a row).
    List<Gap> gaps = new ArrayList<>();
    long offset = 1_000_000;
    long previous = -1;
    for (int i = 0; i < 2_000; i++) {
      long held = 1 + rnd.nextInt(99);
      if (held == previous) {
        held = held % 99 + 1;
      }
      previous = held;
      offset += held;
      gaps.add(new Gap(offset, offset));
      offset++;
    }
    Claim whole =
        new Claim(1_000_000, offset, 0, List.of(new Segment(1_000_000, offset, H1)), gaps);

    Claim fitted = whole.fitted();

    System.out.printf(
        "ClaimTest: %d of %d gaps fit, %d bytes%n",
        fitted.gaps().size(), gaps.size(), fitted.metadataBytes());
    assertThat(whole.metadataBytes()).isGreaterThan(Claim.METADATA_BYTES);
    assertThat(fitted.first()).isEqualTo(whole.first());
    assertThat(fitted.gaps())
        .hasSizeGreaterThanOrEqualTo(583)
        .isEqualTo(gaps.subList(0, fitted.gaps().size()));
    assertThat(fitted.last()).isEqualTo(gaps.get(fitted.gaps().size()).from() - 1);
    assertThat(
            fitted.withErrorRows(Integer.MAX_VALUE).withDataRows(Integer.MAX_VALUE).metadataBytes())
        .isLessThanOrEqualTo(Claim.BUDGET);
    Claim oneMore = whole.through(gaps.get(fitted.gaps().size() + 1).from() - 1);
    assertThat(
            oneMore
                .withErrorRows(Integer.MAX_VALUE)
                .withDataRows(Integer.MAX_VALUE)
                .metadataBytes())
        .as("the next run would not have fit")
        .isGreaterThan(Claim.BUDGET);
  }

  @Test
  void shouldFitEveryPointerCutFromAFittedClaim() {
    long seed = Long.getLong("claim.seed", System.nanoTime());
    System.out.printf("ClaimTest: seed=%d (rerun with -Dclaim.seed=%d)%n", seed, seed);
    Random rnd = new Random(seed);
    for (int round = 0; round < 5; round++) {
      // From a 1-digit first offset to 18-digit ones, so a pointer's offsets grow the most, with
      // repeated entries that a pointer splits.
      long offset = 1;
      List<Gap> gaps = new ArrayList<>();
      List<Segment> segments = new ArrayList<>();
      long segmentFrom = offset;
      long folder = H1;
      for (int i = 0; i < 600; i++) {
        long held = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(5) : 9;
        long length = rnd.nextInt(50) == 0 ? (long) Math.pow(10, 1 + rnd.nextInt(16)) : 1;
        long gapFrom = offset + held;
        if (rnd.nextInt(40) == 0) {
          segments.add(new Segment(segmentFrom, gapFrom - 1, folder));
          folder += 3_600;
          segmentFrom = gapFrom + length;
        }
        gaps.add(new Gap(gapFrom, gapFrom + length - 1));
        offset = gapFrom + length;
      }
      long last = offset + 1;
      segments.add(new Segment(segmentFrom, last, folder));
      Claim fitted = new Claim(1, last, 0, segments, gaps).fitted().withErrorRows(rnd.nextInt());

      assertThat(Claim.fromMetadata(fitted.toMetadata())).contains(fitted);
      for (Gap g : fitted.gaps()) {
        for (long cut : new long[] {g.from(), g.to() + 1}) {
          var pointer = fitted.pointerAt(cut, UTC);
          if (pointer.isPresent()) {
            assertThat(pointer.get().claim().metadataBytes())
                .as("seed=%d: the pointer at %d", seed, cut)
                .isLessThanOrEqualTo(Claim.METADATA_BYTES - Claim.CHECKSUM_ROOM);
            assertThat(Claim.fromMetadata(pointer.get().claim().toMetadata()))
                .contains(pointer.get().claim());
          }
        }
      }
    }
  }

  @Test
  void shouldFitAPointerWhoseOffsetsHaveMoreDigitsThanTheClaimItIsCutFrom() {
    // Held from 1 to 10^17 - 1, then a gap after every 10 to 98 held offsets: cut at the limit, and
    // a pointer at 10^17 - 1 writes 16 more digits in its first offset and in its segment.
    long big = 100_000_000_000_000_000L;
    List<Gap> gaps = new ArrayList<>();
    long offset = big;
    for (int i = 0; i < 1_000; i++) {
      gaps.add(new Gap(offset, offset));
      offset += 11 + i % 88;
    }
    Claim fitted =
        new Claim(1, offset, 0, List.of(new Segment(1, offset, H1)), gaps)
            .fitted()
            .withErrorRows(0);

    Claim pointer = fitted.pointerAt(big - 1, UTC).orElseThrow().claim();

    assertThat(pointer.first()).isEqualTo(big - 1);
    assertThat(pointer.metadataBytes() - fitted.metadataBytes()).isGreaterThanOrEqualTo(16);
    assertThat(pointer.metadataBytes())
        .isLessThanOrEqualTo(Claim.METADATA_BYTES - Claim.CHECKSUM_ROOM);
  }

  private static String pointer(Claim claim, long cut) {
    var p = claim.pointerAt(cut, UTC).orElseThrow();
    assertThat(p.folder().toEpochSecond())
        .isEqualTo(p.claim().segments().get(0).folderEpochSecond());
    return p.claim().first() + "@" + p.folder().toEpochSecond();
  }
}
