package io.kafkas3archiver.infra;

import io.kafkas3archiver.infra.ArchiverSettings.Iceberg;
import io.kafkas3archiver.infra.ArchiverSettings.IcebergCatalog.S3Tables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.s3tables.CfnNamespace;
import software.amazon.awscdk.services.s3tables.CfnTableBucket;
import software.constructs.Construct;

/**
 * {@code icebergCatalog=s3tables} (docs/iceberg.md): the table bucket (created, or an existing one)
 * and its namespace, the function's grants on them, and the ICEBERG_* variables that point the
 * function's REST catalog at S3 Tables' Iceberg endpoint. As with Glue, the table itself is created
 * by the function on its first batch.
 */
final class S3TablesCatalog {
  /** The SigV4 service name of S3 Tables' Iceberg REST endpoint. */
  static final String SIGNING_NAME = "s3tables";

  /**
   * On the table bucket ("Accessing tables using the Amazon S3 Tables Iceberg REST endpoint"): the
   * catalog's GET /v1/config is GetTableBucket; the first batch's createTable is CreateTable.
   */
  static final List<String> BUCKET_ACTIONS =
      List.of("s3tables:GetTableBucket", "s3tables:CreateTable");

  /**
   * On the bucket's tables: loadTable is GetTableMetadataLocation and GetTableData, a commit is
   * UpdateTableMetadataLocation, PutTableData and GetTableData, and S3FileIO reads and writes the
   * data and metadata files in the table's storage under GetTableData and PutTableData. Table ARNs
   * carry the table's id, not its name, so the grant names the bucket's tables, not one table.
   */
  static final List<String> TABLE_ACTIONS =
      List.of(
          "s3tables:GetTableMetadataLocation",
          "s3tables:UpdateTableMetadataLocation",
          "s3tables:GetTableData",
          "s3tables:PutTableData");

  private S3TablesCatalog() {}

  /** Creates what the stack owns (bucket, namespace) and returns the table bucket's ARN. */
  static String create(Construct scope, ArchiverSettings s, Iceberg i, S3Tables catalog) {
    String arn =
        catalog
            .existingBucketArn()
            .orElseGet(
                () -> {
                  CfnTableBucket bucket =
                      CfnTableBucket.Builder.create(scope, "IcebergTableBucket")
                          .tableBucketName(catalog.bucketName())
                          // S3 Tables deletes files no snapshot references any more; the function's
                          // own maintenance, which would do that, is not scheduled here.
                          .unreferencedFileRemoval(
                              CfnTableBucket.UnreferencedFileRemovalProperty.builder()
                                  .status("Enabled")
                                  .build())
                          .build();
                  // It holds the archive: deleting the stack must not delete it.
                  bucket.applyRemovalPolicy(RemovalPolicy.RETAIN);
                  return bucket.getAttrTableBucketArn();
                });
    if (i.createDatabase()) {
      CfnNamespace namespace =
          CfnNamespace.Builder.create(scope, "IcebergNamespace")
              .tableBucketArn(arn)
              .namespace(i.database())
              .build();
      namespace.applyRemovalPolicy(RemovalPolicy.RETAIN);
    }
    CfnOutput.Builder.create(scope, "IcebergTableBucketArn").value(arn).build();
    return arn;
  }

  static List<PolicyStatement> statements(String tableBucketArn) {
    return List.of(
        AccessPolicy.allow("IcebergS3TablesBucket", BUCKET_ACTIONS, List.of(tableBucketArn)),
        AccessPolicy.allow(
            "IcebergS3TablesTables", TABLE_ACTIONS, List.of(tableBucketArn + "/table/*")));
  }

  /** The REST catalog's settings; the signing region is the function's BUCKET_REGION. */
  static Map<String, String> environment(String tableBucketArn) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("ICEBERG_CATALOG", "rest");
    env.put(
        "ICEBERG_REST_URI", "https://s3tables." + Aws.REGION + "." + Aws.URL_SUFFIX + "/iceberg");
    env.put("ICEBERG_WAREHOUSE", tableBucketArn);
    env.put("ICEBERG_SIGNING_NAME", SIGNING_NAME);
    return env;
  }
}
