package io.kafkas3archiver.decode;

/**
 * A topic and one of its partitions, and the {@code <topic>-<partition>} name the event source
 * mapping gives them: the keys of the event's {@code records} and the {@code topic-partition} of a
 * batch item failure. The one place that builds or splits that name.
 */
public record TopicPartition(String topic, int partition) {

  /** {@code <topic>-<partition>}, as the event source mapping writes it. */
  public String id() {
    return topic + "-" + partition;
  }

  @Override
  public String toString() {
    return id();
  }

  /**
   * The topic-partition a {@code <topic>-<partition>} name stands for (a {@code records} key, a
   * batch item failure, an on-failure record's {@code recordsInfo} key), or empty when the name
   * does not end in a partition number.
   */
  public static java.util.Optional<TopicPartition> parse(String id) {
    Integer partition = partitionOf(id);
    return partition == null || partition < 0
        ? java.util.Optional.empty()
        : java.util.Optional.of(new TopicPartition(topicOf(id), partition));
  }

  /** The topic of a {@code records} key: all before the last '-', or the whole key. */
  static String topicOf(String id) {
    int dash = id.lastIndexOf('-');
    return dash > 0 ? id.substring(0, dash) : id;
  }

  /** The partition of a {@code records} key, or null when the key does not end in one. */
  static Integer partitionOf(String id) {
    int dash = id.lastIndexOf('-');
    if (dash <= 0) {
      return null;
    }
    try {
      return Integer.valueOf(id.substring(dash + 1));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
