package io.kafkas3archiver.encode;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet {@link OutputFile} over an output stream, so the writer needs no file system (and so no
 * Hadoop). Closing it flushes but leaves the stream open: the caller owns it.
 */
final class StreamOutputFile implements OutputFile {
  private final OutputStream out;

  StreamOutputFile(OutputStream out) {
    this.out = out;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) {
    return new Position(out);
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) {
    return new Position(out);
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return "stream";
  }

  /** Parquet's position is the count of bytes written so far. */
  private static final class Position extends PositionOutputStream {
    private final CountingOutputStream out;

    Position(OutputStream out) {
      this.out = new CountingOutputStream(out);
    }

    @Override
    public long getPos() {
      return out.count();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
