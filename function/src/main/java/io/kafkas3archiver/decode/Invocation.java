package io.kafkas3archiver.decode;

import java.util.List;

/**
 * What one invocation asks for: archive a Kafka batch, run the preflight check, or maintain the
 * tables (OUTPUT_FORMAT=iceberg).
 */
public sealed interface Invocation {

  /**
   * A Kafka event source mapping batch. {@code rejected} holds records that could not be decoded
   * (e.g. invalid base64); together with {@code records} they are every record of the event.
   */
  record KafkaBatch(String eventSource, List<KafkaRecord> records, List<RejectedRecord> rejected)
      implements Invocation {
    public KafkaBatch {
      records = List.copyOf(records);
      rejected = List.copyOf(rejected);
    }

    public int recordCount() {
      return records.size() + rejected.size();
    }
  }

  /** {@code {"action": "preflight"}}: check credentials, bucket and region without archiving. */
  record PreflightRequest() implements Invocation {}

  /**
   * {@code {"action": "maintain"}}: compact the tables' small files and expire old snapshots
   * (OUTPUT_FORMAT=iceberg; scheduled by the infrastructure).
   */
  record MaintainRequest() implements Invocation {}
}
