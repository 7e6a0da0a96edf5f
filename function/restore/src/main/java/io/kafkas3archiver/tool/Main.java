package io.kafkas3archiver.tool;

import io.kafkas3archiver.audit.AuditCommand;
import io.kafkas3archiver.redrive.RedriveCommand;
import io.kafkas3archiver.restore.RestoreCommand;
import java.util.Arrays;

/**
 * The restore jar's Main-Class: {@code java -jar kafka-s3-archiver-restore.jar [restore] ...}
 * restores an archived range into Kafka (the default command), {@code ... redrive ...} archives the
 * batches the event source mapping skipped, {@code ... audit ...} proves the archive complete. Each
 * command has its own {@code --help}.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    boolean named = args.length > 0 && !args[0].startsWith("-");
    String command = named ? args[0] : "restore";
    String[] rest = named ? Arrays.copyOfRange(args, 1, args.length) : args;
    switch (command) {
      case "restore" -> RestoreCommand.main(rest);
      case "redrive" -> RedriveCommand.main(rest);
      case "audit" -> AuditCommand.main(rest);
      default -> {
        System.err.println(
            "unknown command '"
                + command
                + "'; the commands are restore (the default), redrive and audit; each has --help");
        System.exit(2);
      }
    }
  }
}
