package io.parityfs.node.metrics;

/**
 * The node's health as the {@code /health} endpoint reports it.
 *
 * @param healthy true: HTTP 200; false: 503
 * @param text a short text body, one line per reason or target
 */
public record Health(boolean healthy, String text) {}
