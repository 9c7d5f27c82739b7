package io.parityfs.node.metrics;

import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsContext;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.function.Supplier;

/**
 * The node's HTTP endpoint: {@code /metrics} (Prometheus text format, from {@link
 * NodeMetrics#registry()}) and {@code /health} (200 or 503 with a short text body, from the
 * health supplier); any other path is 404. Runs on the JDK HTTP server, through
 * prometheus-metrics-exporter-httpserver. With {@link MetricsAccess#tls} it serves HTTPS with
 * the node's key and certificate; with {@link MetricsAccess#basicAuth} every request needs
 * those credentials (401 otherwise, compared in constant time).
 */
public final class MetricsEndpoint implements Closeable {
  private final HTTPServer server;

  private MetricsEndpoint(HTTPServer server) {
    this.server = server;
  }

  /** Starts a plain HTTP endpoint on {@code host:port} (0: a free port). */
  public static MetricsEndpoint start(String host, int port, NodeMetrics metrics,
      Supplier<Health> health) throws IOException {
    return start(host, port, metrics, health, MetricsAccess.OPEN, TlsConfig.OFF);
  }

  /**
   * Starts the endpoint on {@code host:port} (0: a free port), protected as {@code access}
   * says; {@code tls} holds the node's key and certificate when {@code access.tls()}.
   */
  public static MetricsEndpoint start(String host, int port, NodeMetrics metrics,
      Supplier<Health> health, MetricsAccess access, TlsConfig tls) throws IOException {
    HTTPServer.Builder b = HTTPServer.builder().hostname(host).port(port)
        .registry(metrics.registry()).registerHealthHandler(false)
        .defaultHandler(exchange -> handle(exchange, health));
    if (access.tls()) {
      b.httpsConfigurator(new HttpsConfigurator(TlsContext.httpsServerContext(tls)));
    }
    if (!access.basicAuth().isEmpty()) {
      b.authenticator(new Basic(access.basicAuth()));
    }
    return new MetricsEndpoint(b.buildAndStart());
  }

  /** HTTP basic authentication with one {@code user:password}, compared in constant time. */
  private static final class Basic extends BasicAuthenticator {
    private final byte[] expected;

    Basic(String userAndPassword) {
      super("parityfs-metrics", StandardCharsets.UTF_8);
      this.expected = userAndPassword.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean checkCredentials(String user, String password) {
      return MessageDigest.isEqual(expected, (user + ":" + password)
          .getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The port bound. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.close();
  }

  private static void handle(HttpExchange exchange, Supplier<Health> health) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      int code;
      String body;
      if (path.equals("/health")) {
        Health h;
        try {
          h = health.get();
        } catch (RuntimeException e) {
          h = new Health(false, "health check failed: " + e);
        }
        code = h.healthy() ? 200 : 503;
        body = (h.healthy() ? "OK\n" : "UNHEALTHY\n") + h.text();
      } else {
        code = 404;
        body = "not found: " + path + " (try /metrics or /health)\n";
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(code, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }
}
