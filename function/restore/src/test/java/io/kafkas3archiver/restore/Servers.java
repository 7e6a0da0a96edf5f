package io.kafkas3archiver.restore;

import io.kafkas3archiver.esm.EmbeddedKafka;
import io.kafkas3archiver.testing.S3ProxyServer;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the restore module's integration tests run against, one per test class: a KRaft broker and
 * S3Proxy with the archive bucket, both on 127.0.0.1. The restore command takes its S3 credentials
 * from the SDK's default chain, as it would on a laptop: here S3Proxy's, as system properties.
 */
public final class Servers implements AutoCloseable {
  public final EmbeddedKafka kafka;
  public final S3ProxyServer s3;

  private Servers(EmbeddedKafka kafka, S3ProxyServer s3) {
    this.kafka = kafka;
    this.s3 = s3;
  }

  public static Servers start(String bucket) {
    EmbeddedKafka kafka = EmbeddedKafka.start();
    S3ProxyServer s3 = S3ProxyServer.inMemory();
    s3.createBucket(bucket);
    System.setProperty("aws.accessKeyId", S3ProxyServer.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
    return new Servers(kafka, s3);
  }

  /** A byte-array producer for the broker, with {@code extra} settings. */
  public KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
    Map<String, Object> p = new HashMap<>(extra);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(p);
  }

  @Override
  public void close() {
    s3.close();
    kafka.close();
  }
}
