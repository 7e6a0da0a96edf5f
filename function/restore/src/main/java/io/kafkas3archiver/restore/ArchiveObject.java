package io.kafkas3archiver.restore;

import io.kafkas3archiver.encode.Compression;
import io.kafkas3archiver.encode.Format;
import java.util.Locale;
import java.util.Optional;

/**
 * One object of the archive, with the format and codec its name says. Error objects are always
 * uncompressed NDJSON with their own line shape.
 */
public record ArchiveObject(String key, long size, Kind kind, Format format, Compression codec) {

  /** A data object, or an error object from {@code <KEY_PREFIX>/_errors/}. */
  public enum Kind {
    DATA,
    ERROR
  }

  /**
   * The object named {@code key}, or empty when the name ends in no extension the archiver writes
   * (the restore lists and skips such objects rather than guessing).
   */
  public static Optional<ArchiveObject> of(String key, long size, Kind kind) {
    String name = key.substring(key.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
    Compression codec = Compression.NONE;
    for (Compression c : Compression.values()) {
      if (c != Compression.NONE && name.endsWith("." + c.suffix().substring(1))) {
        codec = c;
        name = name.substring(0, name.length() - c.suffix().length());
        break;
      }
    }
    for (Format f : Format.values()) {
      if (name.endsWith("." + f.extension())) {
        if (f == Format.PARQUET && codec != Compression.NONE) {
          return Optional.empty();
        }
        return Optional.of(new ArchiveObject(key, size, kind, f, codec));
      }
    }
    return Optional.empty();
  }
}
