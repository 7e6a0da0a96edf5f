package io.kafkas3archiver.redrive;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Where the mapping's on-failure records are: an SQS queue (also an SNS topic's, through a queue
 * subscribed to it), an S3 bucket, or files saved from any of them. A record is handed out, and
 * marked done once every offset it names is archived: an SQS message is then deleted (until then it
 * stays in the queue, and comes back after its visibility timeout); S3 objects and files are left
 * where they are, since a second redrive of them writes nothing (the claim chain).
 */
public sealed interface FailureSource {
  /** One on-failure record and where it came from. */
  record Item(String name, byte[] body, String receipt) {}

  /** The records available now, at most {@code max}. */
  List<Item> take(int max);

  /** Called once every offset of {@code item} is archived. */
  default void done(Item item) {}

  /** Called when {@code item} was not redriven (a failure, a dry run): it is to come again. */
  default void release(Item item) {}

  /** Where the records are, for messages. */
  String describe();

  /** An SQS queue: messages are received (hidden for {@code visibilitySeconds}) and deleted. */
  record SqsQueue(SqsClient sqs, String queueUrl, int visibilitySeconds, boolean keep)
      implements FailureSource {
    @Override
    public List<Item> take(int max) {
      List<Item> items = new ArrayList<>();
      try {
        while (items.size() < max) {
          List<Message> messages =
              sqs.receiveMessage(
                      b ->
                          b.queueUrl(queueUrl)
                              .maxNumberOfMessages(Math.min(10, max - items.size()))
                              .waitTimeSeconds(1)
                              .visibilityTimeout(visibilitySeconds))
                  .messages();
          if (messages.isEmpty()) {
            break;
          }
          for (Message m : messages) {
            items.add(
                new Item(
                    "SQS message " + m.messageId(),
                    m.body().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    m.receiptHandle()));
          }
        }
      } catch (SdkException e) {
        throw new RedriveException(
            "could not receive from "
                + queueUrl
                + " ("
                + e.getMessage()
                + "): check the URL and sqs:ReceiveMessage on the queue (and kms:Decrypt on its"
                + " key, for a queue encrypted with a customer managed key)",
            e);
      }
      return items;
    }

    @Override
    public void done(Item item) {
      if (keep) {
        return;
      }
      try {
        sqs.deleteMessage(b -> b.queueUrl(queueUrl).receiptHandle(item.receipt()));
      } catch (SdkException e) {
        throw new RedriveException(
            item.name()
                + " was redriven but could not be deleted from "
                + queueUrl
                + " ("
                + e.getMessage()
                + "); check sqs:DeleteMessage. It will come back after its visibility timeout,"
                + " and a second redrive of it writes nothing",
            e);
      }
    }

    @Override
    public void release(Item item) {
      try {
        sqs.changeMessageVisibility(
            b -> b.queueUrl(queueUrl).receiptHandle(item.receipt()).visibilityTimeout(0));
      } catch (SdkException e) {
        // It comes back after its visibility timeout all the same.
      }
    }

    @Override
    public String describe() {
      return queueUrl;
    }
  }

  /** Objects under {@code s3://bucket/prefix} (the mapping writes {@code aws/lambda/...}). */
  record S3Records(S3Client s3, String bucket, String prefix) implements FailureSource {
    @Override
    public List<Item> take(int max) {
      List<Item> items = new ArrayList<>();
      try {
        for (S3Object o :
            s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
          if (items.size() >= max) {
            break;
          }
          byte[] body = s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArrayUnsafe();
          items.add(new Item("s3://" + bucket + "/" + o.key(), body, o.key()));
        }
      } catch (SdkException e) {
        throw new RedriveException(
            "could not read the on-failure records under "
                + describe()
                + " ("
                + e.getMessage()
                + "): check the bucket, s3:ListBucket on it and s3:GetObject on its objects",
            e);
      }
      return items;
    }

    @Override
    public String describe() {
      return "s3://" + bucket + "/" + prefix;
    }
  }

  /** Records saved as files, one record per file (an SNS e-mail, a message copied by hand). */
  record RecordFiles(List<Path> files) implements FailureSource {
    @Override
    public List<Item> take(int max) {
      List<Item> items = new ArrayList<>();
      for (Path f : files.subList(0, Math.min(max, files.size()))) {
        try {
          items.add(new Item(f.toString(), Files.readAllBytes(f), f.toString()));
        } catch (IOException e) {
          throw new RedriveException("could not read " + f + ": " + e.getMessage(), e);
        }
      }
      return items;
    }

    @Override
    public String describe() {
      return files.size() == 1 ? files.get(0).toString() : files.size() + " files";
    }
  }
}
