package io.kafkas3archiver.esm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka cluster (KRaft, broker and controller in one process) inside the JVM,
 * listening on 127.0.0.1 only. Its storage is formatted with Kafka's own {@code StorageTool}, then
 * {@code KafkaRaftServer} starts on it. Kafka's {@code KafkaClusterTestKit} is not used: it binds
 * every interface.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final String HOST = "127.0.0.1";
  private static final int START_ATTEMPTS = 3;

  private final KafkaRaftServer server;
  private final Path dataDir;
  private final boolean deleteOnClose;
  private final String bootstrapServers;

  private EmbeddedKafka(
      KafkaRaftServer server, Path dataDir, boolean deleteOnClose, String bootstrapServers) {
    this.server = server;
    this.dataDir = dataDir;
    this.deleteOnClose = deleteOnClose;
    this.bootstrapServers = bootstrapServers;
  }

  /** Starts a broker on a fresh temporary folder, deleted again on close. */
  public static EmbeddedKafka start() {
    try {
      return start(Files.createTempDirectory("embedded-kafka-"), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts a broker whose log lives in {@code dataDir}. The two ports are picked free just before
   * start; if another process takes one in between, the start is tried again (at most 3 times).
   */
  public static EmbeddedKafka start(Path dataDir, boolean deleteOnClose) {
    RuntimeException last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      Path logDir = dataDir.resolve("attempt-" + attempt);
      try {
        return startOnce(logDir, dataDir, deleteOnClose);
      } catch (RuntimeException e) {
        last = e;
      }
    }
    throw new IllegalStateException("could not start the embedded Kafka broker", last);
  }

  private static EmbeddedKafka startOnce(Path logDir, Path dataDir, boolean deleteOnClose) {
    int brokerPort = freePort();
    int controllerPort = freePort();
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
    props.put(
        "listeners",
        "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("log.dirs", logDir.toAbsolutePath().toString());
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("num.partitions", "1");
    // A consumer group forms at once instead of waiting 3 s for more members.
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("auto.create.topics.enable", "false");
    try {
      Files.createDirectories(logDir);
      Path config = logDir.resolve("server.properties");
      try (var out = Files.newOutputStream(config)) {
        props.store(out, "embedded KRaft broker, 127.0.0.1 only");
      }
      ByteArrayOutputStream toolOutput = new ByteArrayOutputStream();
      int rc =
          StorageTool.execute(
              new String[] {
                "format",
                "--cluster-id",
                Uuid.randomUuid().toString(),
                "--config",
                config.toString(),
                "--ignore-formatted"
              },
              new PrintStream(toolOutput, true, StandardCharsets.UTF_8));
      if (rc != 0) {
        throw new IllegalStateException(
            "StorageTool format failed: " + toolOutput.toString(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
    String bootstrap = HOST + ":" + brokerPort;
    try {
      server.startup();
      awaitReady(bootstrap, Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      shutdownQuietly(server);
      throw e;
    }
    return new EmbeddedKafka(server, dataDir, deleteOnClose, bootstrap);
  }

  /** Ready when the broker answers a metadata request (bounded in time). */
  private static void awaitReady(String bootstrap, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    try (Admin admin = admin(bootstrap)) {
      while (true) {
        try {
          admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
          return;
        } catch (Exception e) {
          if (System.nanoTime() > until) {
            throw new IllegalStateException(
                "the embedded broker at " + bootstrap + " did not answer within " + timeout, e);
          }
        }
      }
    }
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            5_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            10_000));
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Creates a topic and waits (at most 30 s) until the broker leads every partition of it. */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, java.util.Map.of());
  }

  /** As above, with topic settings ({@code max.message.bytes}, {@code message.timestamp.type}). */
  public void createTopic(String name, int partitions, java.util.Map<String, String> configs) {
    try (Admin admin = admin(bootstrapServers)) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get(30, TimeUnit.SECONDS);
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!hasLeaders(admin, name, partitions)) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException("topic " + name + " has no leader after 30 s");
        }
        Thread.sleep(20);
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not create topic " + name, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("could not create topic " + name + " within 30 s", e);
    }
  }

  private static boolean hasLeaders(Admin admin, String topic, int partitions)
      throws InterruptedException {
    try {
      TopicDescription d =
          admin
              .describeTopics(List.of(topic))
              .topicNameValues()
              .get(topic)
              .get(5, TimeUnit.SECONDS);
      return d.partitions().size() == partitions
          && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  @Override
  public void close() {
    shutdownQuietly(server);
    if (deleteOnClose) {
      deleteRecursively(dataDir);
    }
  }

  private static void shutdownQuietly(KafkaRaftServer server) {
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      // Shutting down a half-started server can fail; there is nothing left to release.
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temp folder left behind is not worth failing a test for.
    }
  }
}
