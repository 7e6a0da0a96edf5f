package io.kafkas3archiver.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A small HTTP/1.1 forwarding proxy on 127.0.0.1 that injects faults, scripted per request: "the
 * next 3 PUTs answer 500", "delay every PUT by 10 s", "reset the connection after 1,000 bytes of
 * the request body", "send half the response, then close". The function's S3 client points at it
 * via {@code AWS_ENDPOINT_URL_S3}; the real S3-compatible server sits behind it.
 *
 * <p>One request per connection in both directions ({@code Connection: close}), so a fault never
 * leaks into the next request. It answers {@code Expect: 100-continue} itself (the SDK sends it on
 * PutObject) and does not forward that header; {@code expect} and {@code connection} are not part
 * of the SigV4 signature, so the server still accepts the signature.
 */
public final class FaultProxy implements Closeable {

  /** What to do to one request. */
  public sealed interface Fault {}

  /** Answer with this status and S3 error code, without forwarding the request. */
  public record Status(int code, String errorCode) implements Fault {}

  /** Wait, then forward (or, with {@code forward=false}, close without an answer). */
  public record Delay(long millis, boolean forward) implements Fault {}

  /** Read this many bytes of the request body, then reset the connection (TCP RST). */
  public record ResetAfterRequestBytes(int bytes) implements Fault {}

  /** Forward, then relay only this fraction of the server's response bytes and close. */
  public record TruncateResponse(double fraction) implements Fault {}

  /** Forward the body with one byte flipped: a corruption in transit the TCP checksum missed. */
  public record CorruptRequestBody() implements Fault {}

  /**
   * Forward only the first {@code keep} body bytes with a Content-Length rewritten to match: a
   * broken middlebox that truncates a body and "fixes" the framing. Only an end-to-end integrity
   * check can catch this.
   */
  public record TruncateRequestBody(int keep) implements Fault {}

  /**
   * One request seen (its head lines as received), the fault applied to it (null: forwarded
   * untouched) and the status relayed (-1: none).
   */
  public record Exchange(
      String method, String target, List<String> headers, Fault fault, int status) {
    /** The value of a request header, case-insensitively, or null. */
    public String header(String name) {
      for (String line : headers) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }
  }

  /** What a rule sees of a request. */
  public record Request(String method, String target) {
    public boolean isPut() {
      return method.equals("PUT");
    }
  }

  private record Rule(Predicate<Request> when, Fault fault, AtomicInteger remaining) {}

  private final URI upstream;
  private final ServerSocket server;
  private final ExecutorService workers = Executors.newCachedThreadPool(daemon());
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final List<Exchange> log = new CopyOnWriteArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean closed;

  private FaultProxy(URI upstream) throws IOException {
    this.upstream = upstream;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts a proxy on 127.0.0.1 in front of {@code upstream} (an http:// endpoint). */
  public static FaultProxy in(URI upstream) {
    try {
      return new FaultProxy(upstream);
    } catch (IOException e) {
      throw new IllegalStateException("could not start the fault proxy", e);
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** The next {@code times} requests that match get {@code fault}. */
  public FaultProxy next(int times, Predicate<Request> when, Fault fault) {
    rules.add(new Rule(when, fault, new AtomicInteger(times)));
    return this;
  }

  /** The next {@code times} PUTs get {@code fault}. */
  public FaultProxy nextPuts(int times, Fault fault) {
    return next(times, Request::isPut, fault);
  }

  /** Every matching request gets {@code fault}, until {@link #reset()}. */
  public FaultProxy always(Predicate<Request> when, Fault fault) {
    return next(Integer.MAX_VALUE, when, fault);
  }

  /** Drops every rule and the log. */
  public void reset() {
    rules.clear();
    log.clear();
  }

  public List<Exchange> exchanges() {
    return List.copyOf(log);
  }

  public long puts() {
    return log.stream().filter(e -> e.method().equals("PUT")).count();
  }

  /** Waits until no request is being handled (e.g. a delayed forward still on its way). */
  public void awaitIdle(long timeoutMillis) throws InterruptedException {
    long until = System.currentTimeMillis() + timeoutMillis;
    while (inFlight.get() > 0 && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    workers.shutdownNow();
    try {
      workers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Fault take(Request request) {
    for (Rule rule : rules) {
      if (rule.when().test(request)) {
        int left = rule.remaining().getAndUpdate(n -> n > 0 ? n - 1 : n);
        if (left > 0) {
          return rule.fault();
        }
      }
    }
    return null;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        inFlight.incrementAndGet();
        workers.execute(
            () -> {
              try (client) {
                client.setSoTimeout(30_000);
                handle(client);
              } catch (IOException | RuntimeException e) {
                // The client went away or a fault closed the socket: nothing to answer.
              } finally {
                inFlight.decrementAndGet();
              }
            });
      } catch (IOException e) {
        if (!closed) {
          sleepQuietly(10);
        }
      }
    }
  }

  private void handle(Socket client) throws IOException {
    InputStream in = client.getInputStream();
    OutputStream out = client.getOutputStream();
    byte[] head = readHead(in);
    if (head == null) {
      return;
    }
    List<String> lines =
        new ArrayList<>(List.of(new String(head, StandardCharsets.ISO_8859_1).split("\r\n")));
    String[] requestLine = lines.get(0).split(" ");
    Request request = new Request(requestLine[0], requestLine[1]);
    List<String> headers = List.copyOf(lines.subList(1, lines.size()));
    long length = 0;
    boolean expectContinue = false;
    List<String> forwardHeaders = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "expect" -> expectContinue = value.equalsIgnoreCase("100-continue");
        case "transfer-encoding" ->
            throw new IOException("chunked request bodies are not supported by the fault proxy");
        case "connection", "keep-alive", "proxy-connection" -> {}
        default -> forwardHeaders.add(line);
      }
    }
    Fault fault = take(request);
    if (fault instanceof Status s) {
      // Answer before reading the body: allowed with Expect: 100-continue, and what S3 does.
      if (!expectContinue) {
        in.readNBytes((int) length);
      }
      byte[] body = errorXml(s.errorCode());
      writeResponse(out, s.code(), reason(s.code()), "application/xml", body);
      log.add(new Exchange(request.method(), request.target(), headers, fault, s.code()));
      return;
    }
    if (expectContinue) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    }
    if (fault instanceof ResetAfterRequestBytes r) {
      in.readNBytes((int) Math.min(r.bytes(), length));
      log.add(new Exchange(request.method(), request.target(), headers, fault, -1));
      client.setSoLinger(true, 0);
      return;
    }
    byte[] body = in.readNBytes((int) length);
    if (body.length != length) {
      return;
    }
    if (fault instanceof Delay d) {
      sleepQuietly(d.millis());
      if (!d.forward()) {
        log.add(new Exchange(request.method(), request.target(), headers, fault, -1));
        return;
      }
    }
    if (fault instanceof CorruptRequestBody && body.length > 0) {
      body = body.clone();
      body[body.length / 2] ^= 0x20;
    }
    if (fault instanceof TruncateRequestBody t) {
      body = java.util.Arrays.copyOf(body, Math.min(t.keep(), body.length));
    }
    byte[] response = forward(lines.get(0), forwardHeaders, body);
    int status = statusOf(response);
    log.add(new Exchange(request.method(), request.target(), headers, fault, status));
    if (fault instanceof TruncateResponse t) {
      out.write(response, 0, (int) (response.length * t.fraction()));
      out.flush();
      client.setSoLinger(true, 0);
      return;
    }
    out.write(response);
    out.flush();
  }

  /** Sends the request upstream on a fresh connection and returns the whole raw response. */
  private byte[] forward(String requestLine, List<String> headers, byte[] body) throws IOException {
    try (Socket up = new Socket()) {
      up.connect(new InetSocketAddress(upstream.getHost(), upstream.getPort()), 3_000);
      up.setSoTimeout(30_000);
      StringBuilder head = new StringBuilder(requestLine).append("\r\n");
      for (String h : headers) {
        head.append(h).append("\r\n");
      }
      head.append("Content-Length: ").append(body.length).append("\r\n");
      head.append("Connection: close\r\n\r\n");
      OutputStream upOut = up.getOutputStream();
      upOut.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      upOut.write(body);
      upOut.flush();
      byte[] raw = up.getInputStream().readAllBytes();
      return withConnectionClose(raw);
    }
  }

  /** Rewrites the response head so the client does not reuse this connection. */
  private static byte[] withConnectionClose(byte[] raw) {
    int end = indexOfHeadEnd(raw);
    if (end < 0) {
      return raw;
    }
    String head = new String(raw, 0, end, StandardCharsets.ISO_8859_1);
    StringBuilder rewritten = new StringBuilder();
    for (String line : head.split("\r\n")) {
      String lower = line.toLowerCase(Locale.ROOT);
      if (lower.startsWith("connection:") || lower.startsWith("keep-alive:")) {
        continue;
      }
      rewritten.append(line).append("\r\n");
    }
    rewritten.append("Connection: close\r\n\r\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length + 32);
    out.writeBytes(rewritten.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.write(raw, end + 4, raw.length - end - 4);
    return out.toByteArray();
  }

  private static int statusOf(byte[] response) {
    String first =
        new String(response, 0, Math.min(response.length, 64), StandardCharsets.US_ASCII);
    String[] parts = first.split(" ");
    try {
      return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static int indexOfHeadEnd(byte[] raw) {
    for (int i = 0; i + 3 < raw.length; i++) {
      if (raw[i] == '\r' && raw[i + 1] == '\n' && raw[i + 2] == '\r' && raw[i + 3] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Reads the request head up to the blank line; null when the client closed first. */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream(1024);
    int last4 = 0;
    while (head.size() < 64 * 1024) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      last4 = (last4 << 8) | b;
      if (last4 == 0x0d0a0d0a) {
        byte[] bytes = head.toByteArray();
        return java.util.Arrays.copyOf(bytes, bytes.length - 4);
      }
    }
    throw new IOException("request head too long");
  }

  private static void writeResponse(
      OutputStream out, int code, String reason, String contentType, byte[] body)
      throws IOException {
    String head =
        "HTTP/1.1 "
            + code
            + " "
            + reason
            + "\r\nContent-Type: "
            + contentType
            + "\r\nContent-Length: "
            + body.length
            + "\r\nx-amz-request-id: fault-proxy\r\nConnection: close\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static byte[] errorXml(String code) {
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
            + code
            + "</Code><Message>injected by the fault proxy</Message><RequestId>fault-proxy"
            + "</RequestId></Error>")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static String reason(int code) {
    return switch (code) {
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      case 400 -> "Bad Request";
      case 403 -> "Forbidden";
      default -> "Error";
    };
  }

  private static java.util.concurrent.ThreadFactory daemon() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "fault-proxy-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
