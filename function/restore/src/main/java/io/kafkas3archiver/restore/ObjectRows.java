package io.kafkas3archiver.restore;

import java.util.List;

/**
 * What one archive object holds: its records in file order, whether its rows carry Kafka metadata,
 * and what could not be turned back into a record (rows of another topic, error lines that kept
 * only the undecodable event JSON).
 */
public record ObjectRows(
    List<ArchivedRecord> records, boolean metadata, int otherTopicRows, int undecodableRows) {
  public ObjectRows {
    records = List.copyOf(records);
  }
}
