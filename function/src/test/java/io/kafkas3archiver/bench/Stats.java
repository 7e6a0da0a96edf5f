package io.kafkas3archiver.bench;

import java.util.Arrays;

/** Medians of samples: the one statistic the benchmark reports, robust on a noisy machine. */
final class Stats {
  private Stats() {}

  static double median(double[] samples) {
    double[] s = samples.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  static double median(long[] samples) {
    return median(Arrays.stream(samples).asDoubleStream().toArray());
  }
}
