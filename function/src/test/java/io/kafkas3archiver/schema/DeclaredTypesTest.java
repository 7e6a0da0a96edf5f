package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.schema.FieldType.Scalar;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Hive type strings of docs/object-layout.md's "Declared types" table, aliases included. */
class DeclaredTypesTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "boolean|BOOLEAN",
        "tinyint|INT32",
        "smallint|INT32",
        "int|INT32",
        "INTEGER|INT32",
        "bigint|INT64",
        "float|FLOAT",
        "double|DOUBLE",
        "string|STRING",
        "varchar(64)|STRING",
        "char(2)|STRING",
        "binary|BINARY",
        "date|DATE",
        "timestamp|TIMESTAMP_MILLIS",
        "timestamp(3)|TIMESTAMP_MILLIS",
        "timestamp(6)|TIMESTAMP_MICROS"
      })
  void shouldMapEachScalarNameAndAlias(String type, Scalar expected) {
    assertThat(DeclaredTypes.parse(type)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "decimal|10|0",
        "decimal(12)|12|0",
        "decimal(12,2)|12|2",
        "DECIMAL( 38 , 9 )|38|9",
        "number|38|9"
      })
  void shouldMapDecimals(String type, int precision, int scale) {
    assertThat(DeclaredTypes.parse(type)).isEqualTo(new FieldType.Decimal(precision, scale));
  }

  @org.junit.jupiter.api.Test
  void shouldMapNestedTypes() {
    assertThat(DeclaredTypes.parse("struct<a:int, b:struct<c:array<string>>>"))
        .isEqualTo(
            new FieldType.Struct(
                List.of(
                    new FieldType.Column("a", "a", Scalar.INT32),
                    new FieldType.Column(
                        "b",
                        "b",
                        new FieldType.Struct(
                            List.of(
                                new FieldType.Column(
                                    "c", "c", new FieldType.Array(Scalar.STRING))))))));
    assertThat(DeclaredTypes.parse("array<struct<x:int>>"))
        .isEqualTo(
            new FieldType.Array(
                new FieldType.Struct(List.of(new FieldType.Column("x", "x", Scalar.INT32)))));
    assertThat(DeclaredTypes.parse("map<string,array<int>>"))
        .isEqualTo(new FieldType.MapOf(new FieldType.Array(Scalar.INT32)));
    assertThat(DeclaredTypes.parse("json")).isEqualTo(new FieldType.Json());
  }

  @org.junit.jupiter.api.Test
  void shouldRejectWhatItCannotWrite() {
    assertThatThrownBy(() -> DeclaredTypes.parse("timestamp(9)"))
        .hasMessageContaining("use timestamp(3) or timestamp(6)");
    assertThatThrownBy(() -> DeclaredTypes.parse("decimal(0,0)"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> DeclaredTypes.parse("decimal(5,6)"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> DeclaredTypes.parse("uniontype<int,string>"))
        .hasMessageContaining("unknown type 'uniontype'");
    assertThatThrownBy(() -> DeclaredTypes.parse("int extra")).hasMessageContaining("extra text");
    assertThatThrownBy(() -> DeclaredTypes.parse("struct<:int>"))
        .hasMessageContaining("without a name");
  }
}
