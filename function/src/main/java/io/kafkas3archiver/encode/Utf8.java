package io.kafkas3archiver.encode;

/**
 * Strict UTF-8 validation (no overlongs, no surrogates, nothing above U+10FFFF), without copying.
 */
final class Utf8 {
  private Utf8() {}

  static boolean isValid(byte[] bytes) {
    int i = 0;
    int n = bytes.length;
    while (i < n) {
      int b = bytes[i];
      if (b >= 0) {
        i++;
        continue;
      }
      b &= 0xff;
      if (b >= 0xc2 && b <= 0xdf) {
        if (i + 1 >= n || !cont(bytes[i + 1])) {
          return false;
        }
        i += 2;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (i + 2 >= n || !cont(bytes[i + 1]) || !cont(bytes[i + 2])) {
          return false;
        }
        int b1 = bytes[i + 1] & 0xff;
        if ((b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 >= 0xa0)) {
          return false;
        }
        i += 3;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (i + 3 >= n || !cont(bytes[i + 1]) || !cont(bytes[i + 2]) || !cont(bytes[i + 3])) {
          return false;
        }
        int b1 = bytes[i + 1] & 0xff;
        if ((b == 0xf0 && b1 < 0x90) || (b == 0xf4 && b1 >= 0x90)) {
          return false;
        }
        i += 4;
      } else {
        return false;
      }
    }
    return true;
  }

  private static boolean cont(byte b) {
    return (b & 0xc0) == 0x80;
  }
}
