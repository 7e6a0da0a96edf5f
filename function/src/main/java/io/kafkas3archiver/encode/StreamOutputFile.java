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

  private static final class Position extends PositionOutputStream {
    private final OutputStream out;
    private long pos;

    Position(OutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      pos++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      pos += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.flush();
    }
  }
}
