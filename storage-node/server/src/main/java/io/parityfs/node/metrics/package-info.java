/**
 * Node metrics and health: the Prometheus registry with the request metrics the network layer
 * reports ({@link io.parityfs.node.metrics.NodeMetrics#observe}), and the HTTP endpoint serving
 * {@code /metrics} and {@code /health}.
 */
package io.parityfs.node.metrics;
