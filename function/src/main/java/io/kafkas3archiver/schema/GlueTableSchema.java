package io.kafkas3archiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * {@code PARQUET_SCHEMA=glue:<database>.<table>}: the table's columns ({@code GetTable}, its
 * storage descriptor's columns; partition keys are folders, not file columns) are the declared
 * schema, as Firehose's record format conversion reads its table. Each call of {@link #get} reads
 * the table; the caller keeps the answer ({@link SchemaSource#declaring}), so the table is read
 * once per execution environment, on the first batch after the SnapStart restore.
 */
public final class GlueTableSchema implements Supplier<DeclaredSchema> {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final DeclaredSchemaRef.GlueTable table;
  private final URI endpoint;
  private final String region;
  private final AwsCredentialsProvider credentials;

  /** {@code endpoint} is Glue's, e.g. {@code https://glue.us-east-1.amazonaws.com}. */
  public GlueTableSchema(
      DeclaredSchemaRef.GlueTable table,
      URI endpoint,
      String region,
      AwsCredentialsProvider credentials) {
    this.table = table;
    this.endpoint = endpoint;
    this.region = region;
    this.credentials = credentials;
  }

  @Override
  public DeclaredSchema get() {
    String body;
    try {
      body =
          MAPPER.writeValueAsString(
              Map.of("DatabaseName", table.database(), "Name", table.table()));
    } catch (IOException e) {
      throw new IllegalStateException("writing a small map cannot fail", e);
    }
    HttpResponse<String> response;
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(GlueCalls.TIMEOUT).build()) {
      response =
          http.send(
              GlueCalls.signed(endpoint, region, credentials, "GetTable", body),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException | RuntimeException e) {
      // RuntimeException: the credentials could not be resolved, or the request not signed.
      throw unreachable(e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable("interrupted", e);
    }
    JsonNode answer = GlueCalls.answer(response);
    int status = response.statusCode();
    if (status == 200 && answer.path("Table").isObject()) {
      return columns(answer.get("Table"));
    }
    String type = GlueCalls.errorType(answer);
    if (type.equals("EntityNotFoundException")) {
      throw new DeclaredSchemaException(
          table.describe()
              + " does not exist in the Glue Data Catalog of "
              + region
              + " (EntityNotFoundException); create it, or set PARQUET_SCHEMA=glue:<database>.<table>"
              + " to a table that exists; the batch fails and the event source mapping retries it",
          false,
          null);
    }
    if (type.equals("AccessDeniedException") || status == 403) {
      throw new DeclaredSchemaException(
          "the function may not read "
              + table.describe()
              + " ("
              + (type.isEmpty() ? "HTTP " + status : type)
              + "); grant the execution role glue:GetTable on arn:aws:glue:"
              + region
              + ":<account>:catalog, database/"
              + table.database()
              + " and table/"
              + table.database()
              + "/"
              + table.table()
              + "; the batch fails and the event source mapping retries it",
          false,
          null);
    }
    if (status >= 500 || status == 429 || type.contains("Throttling")) {
      throw unreachable("HTTP " + status + " " + type, null);
    }
    throw new DeclaredSchemaException(
        "Glue refused GetTable for "
            + table.describe()
            + " (HTTP "
            + status
            + (type.isEmpty() ? "" : " " + type)
            + "); check PARQUET_SCHEMA=glue:<database>.<table>",
        false,
        null);
  }

  private DeclaredSchema columns(JsonNode t) {
    List<FieldType.Column> columns = new ArrayList<>();
    for (JsonNode c : t.path("StorageDescriptor").path("Columns")) {
      String name = c.path("Name").asText("");
      String type = c.path("Type").asText("");
      try {
        columns.add(new FieldType.Column(name, name, DeclaredTypes.parse(type)));
      } catch (IllegalArgumentException e) {
        throw new DeclaredSchemaException(
            table.describe()
                + " has column '"
                + name
                + "' of a type the archiver cannot write ("
                + e.getMessage()
                + "); legal: "
                + DeclaredTypes.LEGAL
                + "; change the column's type in the table",
            false,
            e);
      }
    }
    try {
      return new DeclaredSchema(table.describe(), columns);
    } catch (IllegalArgumentException e) {
      throw new DeclaredSchemaException(
          table.describe()
              + " cannot be the files' schema ("
              + e.getMessage()
              + "); give the table its columns in its storage descriptor",
          false,
          e);
    }
  }

  private DeclaredSchemaException unreachable(String why, Throwable cause) {
    return new DeclaredSchemaException(
        "could not read "
            + table.describe()
            + " from Glue ("
            + why
            + "); the batch fails and the event source mapping retries it. Check that the function"
            + " can reach Glue (a VPC needs a NAT gateway or a Glue interface endpoint)",
        true,
        cause);
  }
}
