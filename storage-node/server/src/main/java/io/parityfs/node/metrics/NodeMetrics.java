package io.parityfs.node.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The node's Prometheus registry and the request metrics the network layer reports to:
 *
 * <pre>
 * parityfs_node_requests_total{op,status}          requests answered
 * parityfs_node_request_duration_seconds{op}       latency histogram (50 us .. ~6.5 s)
 * parityfs_node_received_bytes_total{op}           payload bytes received
 * parityfs_node_sent_bytes_total{op}               payload bytes sent
 * </pre>
 *
 * The node adds its target, drive, rebuild, scrub and codec gauges to the same {@link
 * #registry()} (see {@code docs/storage-node.md}). Thread-safe; {@link #observe} is cheap enough
 * for every request.
 */
public final class NodeMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter requests;
  private final Histogram latency;
  private final Counter received;
  private final Counter sent;
  private final Counter refused;

  public NodeMetrics() {
    requests = Counter.builder().name("parityfs_node_requests")
        .help("Requests answered, by operation and status").labelNames("op", "status")
        .register(registry);
    latency = Histogram.builder().name("parityfs_node_request_duration").unit(Unit.SECONDS)
        .help("Request latency, from the request's arrival to its answer, by operation")
        .labelNames("op").classicOnly().classicExponentialUpperBounds(0.00005, 2, 18)
        .register(registry);
    received = Counter.builder().name("parityfs_node_received").unit(Unit.BYTES)
        .help("Payload bytes received, by operation").labelNames("op").register(registry);
    sent = Counter.builder().name("parityfs_node_sent").unit(Unit.BYTES)
        .help("Payload bytes sent, by operation").labelNames("op").register(registry);
    refused = Counter.builder().name("parityfs_node_refused")
        .help("Connections and requests refused, by reason: TLS authentication (handshake,"
            + " no_role, permission) and the limits (connections, partial_budget)")
        .labelNames("reason").register(registry);
  }

  /** Counts a connection or request refused for {@code reason} (docs/security.md). */
  public void refused(String reason) {
    refused.labelValues(reason).inc();
  }

  /** The registry every node metric is registered with (and the HTTP endpoint serves). */
  public PrometheusRegistry registry() {
    return registry;
  }

  /**
   * Records one request.
   *
   * @param op the operation, e.g. {@code write}, {@code read}, {@code stat}
   * @param status its outcome: the wire status name ({@code OK}, {@code NOT_FOUND}, {@code BUSY},
   *     ... see {@code io.parityfs.node.protocol.Status})
   * @param nanos time from the request's arrival to its answer
   * @param bytesIn payload bytes received
   * @param bytesOut payload bytes sent
   */
  public void observe(String op, String status, long nanos, long bytesIn, long bytesOut) {
    requests.labelValues(op, status).inc();
    latency.labelValues(op).observe(nanos / 1e9);
    if (bytesIn > 0) {
      received.labelValues(op).inc(bytesIn);
    }
    if (bytesOut > 0) {
      sent.labelValues(op).inc(bytesOut);
    }
  }
}
