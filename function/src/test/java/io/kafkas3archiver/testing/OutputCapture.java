package io.kafkas3archiver.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Captures everything a test run prints or logs, to check that no secret ever appears: stdout and
 * stderr (the handler's JSON log lines go to stdout), every SLF4J event of the SDK and of this
 * project at DEBUG with its stack trace, and the full text (causes and suppressed included) of each
 * exception handed to {@link #exception(Throwable)}. Output still reaches the console.
 */
public final class OutputCapture implements AutoCloseable {
  private static final String[] LOGGERS = {"software.amazon.awssdk", "io.kafkas3archiver"};

  /**
   * The SDK's SigV4 signers log the canonical request at DEBUG, and a session token is one of its
   * headers. That is the SDK's behaviour, not ours; it is kept apart (see {@link #sdkSignerDebug})
   * so the tests can show it is the only place a token shows up, and README warns against enabling
   * DEBUG for these loggers.
   */
  private static final String[] SIGNER_LOGGERS = {
    "software.amazon.awssdk.http.auth.aws.internal.signer", "software.amazon.awssdk.auth.signer"
  };

  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final List<String> texts = new ArrayList<>();
  private final List<String> signerTexts = new ArrayList<>();
  private final List<String> sdkDebugTexts = new ArrayList<>();
  private final PrintStream originalOut = System.out;
  private final PrintStream originalErr = System.err;
  private final List<Level> originalLevels = new ArrayList<>();
  private final AppenderBase<ILoggingEvent> appender =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          String text = event.getFormattedMessage();
          if (event.getThrowableProxy() != null) {
            text += "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy());
          }
          boolean signer = false;
          for (String name : SIGNER_LOGGERS) {
            signer |= event.getLoggerName().startsWith(name);
          }
          boolean sdkDebug =
              event.getLoggerName().startsWith(LOGGERS[0])
                  && !event.getLevel().isGreaterOrEqual(Level.INFO);
          synchronized (texts) {
            (signer ? signerTexts : sdkDebug ? sdkDebugTexts : texts).add(text);
          }
        }
      };

  private OutputCapture() {}

  public static OutputCapture start() {
    OutputCapture c = new OutputCapture();
    System.setOut(new PrintStream(new Tee(c.originalOut, c.printed), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new Tee(c.originalErr, c.printed), true, StandardCharsets.UTF_8));
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    c.appender.setContext(context);
    c.appender.start();
    for (String name : LOGGERS) {
      Logger logger = context.getLogger(name);
      c.originalLevels.add(logger.getLevel());
      logger.setLevel(Level.DEBUG);
      logger.setAdditive(false);
      logger.addAppender(c.appender);
    }
    return c;
  }

  /** Records an exception's whole text: message, stack, causes, suppressed. */
  public void exception(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    synchronized (texts) {
      texts.add(w.toString());
    }
  }

  /** Records any other text a user would see (a response body, a report). */
  public void text(String s) {
    synchronized (texts) {
      texts.add(s);
    }
  }

  /** The SDK signers' DEBUG lines, kept apart from {@link #all()}. */
  public String sdkSignerDebug() {
    synchronized (texts) {
      return String.join("\n", signerTexts);
    }
  }

  /**
   * Fails if {@code secret} occurs in {@code text}, without printing the secret: the message shows
   * the label and the surrounding text with the secret masked.
   */
  public static void assertAbsent(String text, String label, String secret) {
    int at = text.indexOf(secret);
    if (at >= 0) {
      String context =
          text.substring(Math.max(0, at - 300), Math.min(text.length(), at + secret.length() + 100))
              .replace(secret, "****");
      throw new AssertionError("secret '" + label + "' was printed; context:\n" + context);
    }
  }

  /** Everything captured so far (but the signers' DEBUG lines). */
  public String all() {
    synchronized (texts) {
      return withoutSdkDebug() + "\n" + String.join("\n", sdkDebugTexts);
    }
  }

  /**
   * Everything but the SDK's own DEBUG lines, which quote each request's path (an object key) and
   * each failure. Those exist only with an SLF4J binding and DEBUG enabled for the SDK: the shipped
   * jars carry no binding ({@code ShadedJarIT}, {@code IcebergJarIT}), so they never reach a log.
   */
  public String withoutSdkDebug() {
    synchronized (texts) {
      return printed.toString(StandardCharsets.UTF_8) + "\n" + String.join("\n", texts);
    }
  }

  @Override
  public void close() {
    System.setOut(originalOut);
    System.setErr(originalErr);
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    for (int i = 0; i < LOGGERS.length; i++) {
      Logger logger = context.getLogger(LOGGERS[i]);
      logger.detachAppender(appender);
      logger.setLevel(originalLevels.get(i));
      logger.setAdditive(true);
    }
    appender.stop();
  }

  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final ByteArrayOutputStream b;

    Tee(OutputStream a, ByteArrayOutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) {
      synchronized (b) {
        b.write(c);
      }
      try {
        a.write(c);
      } catch (java.io.IOException ignored) {
        // the console is best effort
      }
    }

    @Override
    public void write(byte[] buf, int off, int len) {
      synchronized (b) {
        b.write(buf, off, len);
      }
      try {
        a.write(buf, off, len);
      } catch (java.io.IOException ignored) {
        // the console is best effort
      }
    }
  }
}
