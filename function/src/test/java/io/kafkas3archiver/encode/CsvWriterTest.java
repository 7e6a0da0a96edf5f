package io.kafkas3archiver.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.junit.jupiter.api.Test;

/**
 * {@link CsvWriter} writes the bytes that commons-csv wrote for the csv objects before (RFC 4180,
 * {@code "\r\n"}, through a UTF-8 writer): every quoting rule, nulls and empty cells in every
 * position, surrogate pairs and lone surrogates, and cells that cross its buffer.
 */
class CsvWriterTest {
  /** The format the csv encoder printed with. */
  private static final CSVFormat COMMONS_CSV =
      CSVFormat.RFC4180.builder().setRecordSeparator("\r\n").get();

  /** The characters that decide quoting and encoding, and some that do not. */
  private static final char[] ALPHABET = {
    'a', 'Z', '0', '9', ' ', '\t', '\n', '\r', '"', ',', '#', '!', '$', '%', '\'', ';', '\u0000',
    '\u0001', '\u001f', '\u007f', '\u0080', 'é', 'ü', '\u07ff', '\u0800', '日', '\ufeff', '\uffff',
    '\ud83d', '\ude00', '\ud800', '\udfff'
  };

  @Test
  void shouldWriteTheBytesCommonsCsvWroteForRandomCells() throws IOException {
    SplittableRandom r = new SplittableRandom(29);
    List<List<Object>> records = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      List<Object> record = new ArrayList<>();
      int cells = r.nextInt(6);
      for (int c = 0; c < cells; c++) {
        record.add(randomCell(r));
      }
      records.add(record);
    }

    assertThat(ours(records)).isEqualTo(commonsCsv(records));
    assertThat(oursFromBytes(records)).isEqualTo(commonsCsv(records));
  }

  @Test
  void shouldQuoteAsCommonsCsvDidAtEachRule() throws IOException {
    List<List<Object>> records = new ArrayList<>();
    for (String s :
        List.of(
            "",
            " ",
            "a",
            "#",
            "\"",
            "$",
            "a b",
            " a",
            "a ",
            "a\t",
            "a,b",
            "a\"b",
            "a\nb",
            "a\rb",
            "\ud83d\ude00",
            "\ud83d",
            "x\ude00",
            "\ud83d\"",
            "\"\ud83d")) {
      records.add(List.of(s));
      records.add(new ArrayList<>(java.util.Arrays.asList(null, s)));
      records.add(List.of(s, s));
    }
    records.add(new ArrayList<>(java.util.Arrays.asList((Object) null)));
    records.add(List.of());
    records.add(List.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 7, Integer.MIN_VALUE));

    assertThat(new String(ours(records), StandardCharsets.UTF_8))
        .isEqualTo(new String(commonsCsv(records), StandardCharsets.UTF_8));
    assertThat(ours(records)).isEqualTo(commonsCsv(records));
    assertThat(oursFromBytes(records)).isEqualTo(commonsCsv(records));
  }

  @Test
  void shouldWriteCellsLongerThanItsBuffer() throws IOException {
    SplittableRandom r = new SplittableRandom(7);
    List<List<Object>> records = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      StringBuilder s = new StringBuilder();
      int n = 30_000 + r.nextInt(70_000);
      for (int k = 0; k < n; k++) {
        s.append(ALPHABET[r.nextInt(ALPHABET.length)]);
      }
      records.add(List.of(s.toString(), "x", s.toString().replace('"', 'q')));
    }

    assertThat(ours(records)).isEqualTo(commonsCsv(records));
    assertThat(oursFromBytes(records)).isEqualTo(commonsCsv(records));
  }

  private static Object randomCell(SplittableRandom r) {
    return switch (r.nextInt(10)) {
      case 0 -> null;
      case 1 -> "";
      case 2 -> r.nextLong() >> r.nextInt(64);
      default -> {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(r.nextInt(8) == 0 ? 300 : 8);
        for (int k = 0; k < n; k++) {
          s.append(r.nextInt(3) == 0 ? ALPHABET[r.nextInt(ALPHABET.length)] : 'a');
        }
        yield s.toString();
      }
    };
  }

  private static byte[] ours(List<List<Object>> records) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CsvWriter csv = new CsvWriter(out);
    for (List<Object> record : records) {
      for (Object cell : record) {
        if (cell instanceof Number n) {
          csv.cell(n.longValue());
        } else {
          csv.cell((String) cell);
        }
      }
      csv.endRecord();
    }
    csv.flush();
    return out.toByteArray();
  }

  /**
   * The same records with every text cell that UTF-8 can hold given as its bytes, at an offset in a
   * larger array (as a field's bytes sit inside the record's value).
   */
  private static byte[] oursFromBytes(List<List<Object>> records) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CsvWriter csv = new CsvWriter(out);
    for (List<Object> record : records) {
      for (Object cell : record) {
        if (cell instanceof Number n) {
          csv.cell(n.longValue());
        } else if (cell instanceof String text && !hasLoneSurrogate(text)) {
          byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
          byte[] inside = new byte[utf8.length + 5];
          inside[0] = '"';
          inside[inside.length - 1] = ',';
          System.arraycopy(utf8, 0, inside, 3, utf8.length);
          csv.cell(inside, 3, utf8.length);
        } else {
          csv.cell((String) cell);
        }
      }
      csv.endRecord();
    }
    csv.flush();
    return out.toByteArray();
  }

  private static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  private static byte[] commonsCsv(List<List<Object>> records) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BufferedWriter writer =
        new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 64 * 1024);
    CSVPrinter printer = new CSVPrinter(writer, COMMONS_CSV);
    for (List<Object> record : records) {
      printer.printRecord(record);
    }
    printer.flush();
    return out.toByteArray();
  }
}
