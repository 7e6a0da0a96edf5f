package io.kafkas3archiver.decode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Jackson's UTF-8 parser, plus one thing it lacks: a record's base64 key, value or header is
 * decoded straight from the event's bytes into the record's array. Jackson would first turn the
 * string into characters, and that pass was about a quarter of the event's decoding (JFR, Lambda's
 * flags).
 *
 * <p>Only the usual form is decoded here: the standard alphabet, padded to a multiple of four,
 * {@code =} only at the end, no escapes. The first byte outside that form ends the attempt: it is
 * left unread, so Jackson's own string skipping carries on from it, and the caller decodes the
 * record by the general path ({@link java.util.Base64#getDecoder()} on the text), which decides.
 * The accepted inputs and the decoded bytes are therefore the JDK's.
 */
final class EventParser extends UTF8StreamJsonParser {
  /**
   * Base64's standard alphabet by byte: its six bits shifted to each place of a quantum, or the
   * sign bit for a byte outside the alphabet. A quantum is four loads and three ORs, and its sign
   * says whether all four bytes were valid.
   */
  private static final int[] FIRST = new int[256];

  private static final int[] SECOND = new int[256];
  private static final int[] THIRD = new int[256];
  private static final int[] FOURTH = new int[256];

  static {
    Arrays.fill(FOURTH, Integer.MIN_VALUE);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      FOURTH[alphabet.charAt(i)] = i;
    }
    for (int b = 0; b < 256; b++) {
      int v = FOURTH[b];
      FIRST[b] = v < 0 ? v : v << 18;
      SECOND[b] = v < 0 ? v : v << 12;
      THIRD[b] = v < 0 ? v : v << 6;
    }
  }

  /** Whole quanta are decoded here, then copied once into an array of the exact size. */
  private byte[] decoded = new byte[3 * 1024];

  private EventParser(
      IOContext context,
      int features,
      InputStream in,
      ObjectCodec codec,
      ByteQuadsCanonicalizer names,
      byte[] buffer,
      int start,
      int end) {
    // A skipped byte order mark counts as processed, so offsets are the input's own.
    super(context, features, in, codec, names, buffer, start, end, start, true);
  }

  /**
   * The current string token decoded as base64, read straight from the input; the token is then
   * consumed (its text is not kept). Null when the string is not of the usual form: the parser then
   * stands on a string it can still skip with {@link #nextToken()}.
   */
  byte[] base64Value() throws IOException {
    if (currentToken() != JsonToken.VALUE_STRING || !_tokenIncomplete) {
      return null;
    }
    byte[] in = _inputBuffer;
    int[] first = FIRST;
    int[] second = SECOND;
    int[] third = THIRD;
    int[] fourth = FOURTH;
    int o = 0;
    while (true) {
      // Whole quanta within the buffer, four alphabet bytes at a time.
      int ptr = _inputPtr;
      int end = _inputEnd;
      // Room for the whole quanta here and for the one quantum read byte by byte below.
      int room = o + (end - ptr) / 4 * 3 + 3;
      if (room > decoded.length) {
        decoded = Arrays.copyOf(decoded, Math.max(room, decoded.length * 2));
      }
      byte[] out = decoded;
      while (ptr + 4 <= end) {
        int bits =
            first[in[ptr] & 0xFF]
                | second[in[ptr + 1] & 0xFF]
                | third[in[ptr + 2] & 0xFF]
                | fourth[in[ptr + 3] & 0xFF];
        if (bits < 0) {
          break;
        }
        out[o] = (byte) (bits >> 16);
        out[o + 1] = (byte) (bits >> 8);
        out[o + 2] = (byte) bits;
        o += 3;
        ptr += 4;
      }
      _inputPtr = ptr;
      // One quantum byte by byte: it crosses the buffer's end, or it ends the string.
      int bits = 0;
      int n = 0;
      while (n < 4) {
        if (_inputPtr >= _inputEnd && !_loadMore()) {
          return null; // the input ends inside the string: Jackson's skipping reports it
        }
        int v = fourth[_inputBuffer[_inputPtr] & 0xFF];
        if (v < 0) {
          break;
        }
        bits = bits << 6 | v;
        _inputPtr++;
        n++;
      }
      in = _inputBuffer;
      if (n == 4) {
        out[o] = (byte) (bits >> 16);
        out[o + 1] = (byte) (bits >> 8);
        out[o + 2] = (byte) bits;
        o += 3;
        continue;
      }
      // A byte outside the alphabet, unread: the closing quote, padding, or not the usual form.
      if (n == 2 || n == 3) {
        for (int pad = n; pad < 4; pad++) {
          if (!next('=')) {
            return null;
          }
        }
      } else if (n != 0) {
        return null;
      }
      if (!next('"')) {
        return null;
      }
      _tokenIncomplete = false;
      _textBuffer.resetWithEmpty();
      if (n > 0) {
        bits <<= 6 * (4 - n);
        out[o++] = (byte) (bits >> 16);
        if (n == 3) {
          out[o++] = (byte) (bits >> 8);
        }
      }
      return Arrays.copyOf(out, o);
    }
  }

  /** Reads the byte when it is the one expected; otherwise leaves it unread. */
  private boolean next(char expected) throws IOException {
    if (_inputPtr >= _inputEnd && !_loadMore()) {
      return false;
    }
    if (_inputBuffer[_inputPtr] != expected) {
      return false;
    }
    _inputPtr++;
    return true;
  }

  /**
   * Makes {@link EventParser}s. An event is UTF-8 JSON (Lambda's invoke API and the event source
   * mapping send nothing else); a UTF-8 byte order mark is skipped, and an event in UTF-16 or
   * UTF-32 is refused by name instead of as an illegal character.
   */
  static final class Factory extends JsonFactory {
    @Override
    protected JsonParser _createParser(InputStream in, IOContext context) throws IOException {
      byte[] buffer = context.allocReadIOBuffer();
      int end = 0;
      while (end < 4) {
        int n = in.read(buffer, end, buffer.length - end);
        if (n < 0) {
          break;
        }
        end += n;
      }
      int start = 0;
      if (end >= 3 && (buffer[0] & 0xFF) == 0xEF && (buffer[1] & 0xFF) == 0xBB) {
        start = (buffer[2] & 0xFF) == 0xBF ? 3 : 0;
      } else if (end >= 2
          && (buffer[0] == 0
              || buffer[1] == 0
              || (buffer[0] & 0xFF) >= 0xFE && (buffer[1] & 0xFF) >= 0xFE)) {
        throw new BadEventException(
            "the event is not UTF-8 (it begins as UTF-16 or UTF-32 text does); Lambda events"
                + " are UTF-8 JSON: save the event file as UTF-8");
      }
      return new EventParser(
          context,
          _parserFeatures,
          in,
          _objectCodec,
          _byteSymbolCanonicalizer.makeChild(_factoryFeatures),
          buffer,
          start,
          end);
    }
  }
}
