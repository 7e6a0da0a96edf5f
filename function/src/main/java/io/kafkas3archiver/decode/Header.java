package io.kafkas3archiver.decode;

/** One Kafka record header. The value may be null. */
public record Header(String name, byte[] value) {}
