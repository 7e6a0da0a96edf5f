package io.kafkas3archiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kafkas3archiver.schema.FieldType.Column;
import io.kafkas3archiver.schema.FieldType.Scalar;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Avro and Protobuf schema readers on their own: what each construct becomes. */
class SchemaParsersTest {

  @Test
  void shouldReuseANamedAvroTypeByShortOrFullNameAndStopARecursiveRecordAtJsonText() {
    RegistrySchema s =
        AvroSchemas.parse(
            """
            {"type":"record","name":"Node","namespace":"x.y","fields":[
              {"name":"amount","type":{"type":"fixed","name":"Money","size":8,
                "logicalType":"decimal","precision":18,"scale":4}},
              {"name":"again","type":"x.y.Money"},
              {"name":"short","type":"Money"},
              {"name":"next","type":["null","Node"]},
              {"name":"micros","type":{"type":"long","logicalType":"timestamp-micros"}},
              {"name":"t","type":{"type":"int","logicalType":"time-millis"}},
              {"name":"odd","type":{"type":"string","logicalType":"not-a-known-one"}},
              {"name":"wide","type":{"type":"bytes","logicalType":"decimal","precision":40}}
            ]}
            """);

    assertThat(s.columns())
        .extracting(Column::name, Column::type)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("amount", new FieldType.Decimal(18, 4)),
            org.assertj.core.groups.Tuple.tuple("again", new FieldType.Decimal(18, 4)),
            org.assertj.core.groups.Tuple.tuple("short", new FieldType.Decimal(18, 4)),
            org.assertj.core.groups.Tuple.tuple("next", new FieldType.Json()),
            org.assertj.core.groups.Tuple.tuple("micros", Scalar.TIMESTAMP_MICROS),
            org.assertj.core.groups.Tuple.tuple("t", Scalar.TIME_MILLIS),
            org.assertj.core.groups.Tuple.tuple("odd", Scalar.STRING),
            org.assertj.core.groups.Tuple.tuple("wide", Scalar.STRING));
  }

  @Test
  void shouldSayWhatIsWrongWithABadAvroSchema() {
    assertThatThrownBy(
            () ->
                AvroSchemas.parse(
                    "{\"type\":\"record\",\"name\":\"R\","
                        + "\"fields\":[{\"name\":\"a\",\"type\":\"Missing\"}]}"))
        .hasMessageContaining("undefined type 'Missing'");
    assertThatThrownBy(() -> AvroSchemas.parse("{not json")).hasMessageContaining("not JSON");
    assertThat(AvroSchemas.parse("\"string\"").columns()).isEmpty();
  }

  @Test
  void shouldResolveProtobufNamesFromTheInnermostScopeAndNameJsonFieldsInCamelCase() {
    RegistrySchema s =
        ProtobufSchemas.parse(
            """
            syntax = "proto3";
            package shop;
            option java_package = "com.example";
            /* the first message is the record's */
            message Order {
              message Line { string sku = 1; reserved 2, 3; }
              Line first_line = 1;
              .shop.Tag tag = 2;
              other.Imported imported = 3;
              Order parent = 4;
              fixed32 count = 5;
              sint32 delta = 6;
            }
            message Tag { string label = 1; }
            service Orders { rpc Get (Order) returns (Order); }
            """);

    assertThat(s.columns())
        .extracting(Column::name, Column::jsonName)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("first_line", "firstLine"),
            org.assertj.core.groups.Tuple.tuple("tag", "tag"),
            org.assertj.core.groups.Tuple.tuple("imported", "imported"),
            org.assertj.core.groups.Tuple.tuple("parent", "parent"),
            org.assertj.core.groups.Tuple.tuple("count", "count"),
            org.assertj.core.groups.Tuple.tuple("delta", "delta"));
    assertThat(s.columns())
        .extracting(Column::type)
        .containsExactly(
            new FieldType.Struct(List.of(new Column("sku", "sku", Scalar.STRING))),
            new FieldType.Struct(List.of(new Column("label", "label", Scalar.STRING))),
            new FieldType.Json(),
            new FieldType.Json(),
            Scalar.INT64,
            Scalar.INT32);
  }

  @Test
  void shouldRefuseAProtoWithoutAMessage() {
    assertThatThrownBy(() -> ProtobufSchemas.parse("syntax = \"proto3\"; enum E { A = 0; }"))
        .hasMessageContaining("defines no message");
  }
}
