package io.parityfs.node.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.parityfs.node.tls.CertificateAuthority;
import io.parityfs.node.tls.TlsConfig;
import io.parityfs.node.tls.TlsRole;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics and health endpoint protected (issue 18, docs/security.md): HTTPS with the node's
 * certificate of the cluster CA, and HTTP basic authentication, as a Prometheus scrape with
 * {@code tls_config.ca_file} and {@code basic_auth} would meet them; plain HTTP stays open.
 */
class MetricsEndpointTest {
  @TempDir Path dir;

  private static HttpResponse<String> get(HttpClient c, String url, String auth)
      throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (auth != null) {
      r.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
          auth.getBytes(StandardCharsets.UTF_8)));
    }
    return c.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void httpsWithBasicAuthServesOnlyTheRightCredentials() throws Exception {
    CertificateAuthority ca = CertificateAuthority.init(dir, "metrics");
    ca.issue(TlsRole.NODE, "node1", Duration.ofDays(1), List.of("127.0.0.1"), dir);
    NodeMetrics metrics = new NodeMetrics();
    metrics.refused("connections");
    try (MetricsEndpoint e = MetricsEndpoint.start("127.0.0.1", 0, metrics,
        () -> new Health(true, "fine\n"), new MetricsAccess(true, "prometheus:scrape-secret"),
        TlsConfig.inDirectory(dir, "node1"))) {
      SSLContext trust = ((JdkSslContext) SslContextBuilder.forClient()
          .sslProvider(SslProvider.JDK).trustManager(dir.resolve("ca.crt").toFile()).build())
          .context();
      HttpClient https = HttpClient.newBuilder().sslContext(trust).build();
      String base = "https://127.0.0.1:" + e.port();
      assertEquals(401, get(https, base + "/metrics", null).statusCode());
      assertEquals(401, get(https, base + "/metrics", "prometheus:guess").statusCode());
      assertEquals(401, get(https, base + "/health", "other:scrape-secret").statusCode());
      HttpResponse<String> ok = get(https, base + "/metrics", "prometheus:scrape-secret");
      assertEquals(200, ok.statusCode());
      assertTrue(ok.body().contains("parityfs_node_refused_total{reason=\"connections\"} 1.0"),
          ok.body());
      assertEquals(200, get(https, base + "/health", "prometheus:scrape-secret").statusCode());
      // plain HTTP to the HTTPS port gets no metrics
      HttpClient http = HttpClient.newHttpClient();
      assertThrows(IOException.class,
          () -> get(http, "http://127.0.0.1:" + e.port() + "/metrics", "prometheus:scrape-secret"));
      // a client that does not trust the cluster CA refuses the endpoint
      assertThrows(IOException.class, () -> get(HttpClient.newHttpClient(), base + "/metrics",
          "prometheus:scrape-secret"));
    }
  }

  @Test
  void withoutProtectionItIsPlainHttp() throws Exception {
    try (MetricsEndpoint e = MetricsEndpoint.start("127.0.0.1", 0, new NodeMetrics(),
        () -> new Health(false, "a target is FAILED\n"))) {
      HttpResponse<String> h = get(HttpClient.newHttpClient(), "http://127.0.0.1:" + e.port()
          + "/health", null);
      assertEquals(503, h.statusCode());
      assertTrue(h.body().startsWith("UNHEALTHY"), h.body());
    }
  }

  @Test
  void basicAuthMustBeUserAndPassword() {
    assertThrows(IllegalArgumentException.class, () -> new MetricsAccess(false, "nopassword"));
    assertEquals("https, basic auth as prometheus",
        new MetricsAccess(true, "prometheus:secret").toString(), "no password shown");
  }
}
