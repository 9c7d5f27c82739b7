package io.parityfs.node.metrics;

import java.util.Objects;

/**
 * How the node's metrics and health endpoint is protected (docs/security.md, "Transport"):
 * HTTPS with the node's own key and certificate ({@code metrics.tls}), and HTTP basic
 * authentication with one {@code user:password} ({@code metrics.basicAuthFile}). Both off:
 * plain HTTP to whoever reaches {@code metrics.host}. {@link #toString} never shows the password.
 *
 * @param tls serve HTTPS (TLS 1.3 and 1.2) with the node's certificate
 * @param basicAuth {@code user:password} required of every request, or "" for none
 */
public record MetricsAccess(boolean tls, String basicAuth) {
  /** Plain HTTP, no authentication. */
  public static final MetricsAccess OPEN = new MetricsAccess(false, "");

  public MetricsAccess {
    Objects.requireNonNull(basicAuth, "basicAuth");
    if (!basicAuth.isEmpty() && basicAuth.indexOf(':') < 1) {
      throw new IllegalArgumentException("basic authentication must be user:password");
    }
  }

  /** The user of the basic authentication, or "". */
  public String user() {
    return basicAuth.isEmpty() ? "" : basicAuth.substring(0, basicAuth.indexOf(':'));
  }

  @Override
  public String toString() {
    return (tls ? "https" : "http") + (basicAuth.isEmpty() ? "" : ", basic auth as " + user());
  }
}
