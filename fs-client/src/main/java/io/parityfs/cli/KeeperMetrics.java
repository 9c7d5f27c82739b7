package io.parityfs.cli;

import io.parityfs.keeper.AcrossKeeper;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.util.function.ToDoubleFunction;

/**
 * The keeper's {@code /metrics} ({@code parityfs keeper --metrics-port}, Prometheus text
 * format): whether it leads, its rounds and failed rounds, and the totals of what it caught up
 * and moved, read from {@link AcrossKeeper#status()} at each scrape (docs/across-nodes.md §5).
 */
final class KeeperMetrics implements Closeable {
  private final HTTPServer server;

  private KeeperMetrics(HTTPServer server) {
    this.server = server;
  }

  /** Serves the metrics of {@code keeper} on {@code host:port} (0: a free port). */
  static KeeperMetrics start(String host, int port, AcrossKeeper keeper) throws IOException {
    PrometheusRegistry registry = new PrometheusRegistry();
    gauge(registry, "parityfs_keeper_leading", "1 while this keeper is the elected one",
        keeper, s -> s.leading() ? 1 : 0);
    gauge(registry, "parityfs_keeper_files_left", "files the last round left on bad or"
        + " draining targets", keeper, s -> s.total().filesLeft());
    counter(registry, "parityfs_keeper_rounds", "rounds run", keeper, s -> s.rounds());
    counter(registry, "parityfs_keeper_round_failures", "rounds that failed", keeper,
        s -> s.failures());
    counter(registry, "parityfs_keeper_files_caught_up", "files whose repair records shrank",
        keeper, s -> s.total().filesCaughtUp());
    counter(registry, "parityfs_keeper_members_caught_up", "members stored again on returned"
        + " targets", keeper, s -> s.total().membersCaughtUp());
    counter(registry, "parityfs_keeper_files_moved", "files moved off bad or draining targets",
        keeper, s -> s.total().filesMoved());
    counter(registry, "parityfs_keeper_moved_bytes", "bytes written by those moves", keeper,
        s -> s.total().bytesMoved());
    counter(registry, "parityfs_keeper_lost_handed_off", "members a node's scrub found"
        + " unrecoverable, added to their files' repair records for catch-up", keeper,
        s -> s.total().lostHandedOff());
    gauge(registry, "parityfs_keeper_files_not_caught_up", "files whose catch-up failed in the"
        + " last round (logged; retried each round)", keeper, s -> s.total().filesNotCaughtUp());
    GaugeWithCallback.builder().name("parityfs_keeper_groups").help("groups of the files across"
        + " nodes by state, at the keeper's last check (parityfs fsck's states)")
        .labelNames("state")
        .callback(cb -> keeper.status().groups().forEach((st, n) -> cb.call(n,
            st.name().toLowerCase(java.util.Locale.ROOT))))
        .register(registry);
    return new KeeperMetrics(HTTPServer.builder().hostname(host).port(port).registry(registry)
        .buildAndStart());
  }

  private static void gauge(PrometheusRegistry r, String name, String help, AcrossKeeper k,
      ToDoubleFunction<AcrossKeeper.Status> value) {
    GaugeWithCallback.builder().name(name).help(help)
        .callback(cb -> cb.call(value.applyAsDouble(k.status()))).register(r);
  }

  private static void counter(PrometheusRegistry r, String name, String help, AcrossKeeper k,
      ToDoubleFunction<AcrossKeeper.Status> value) {
    CounterWithCallback.builder().name(name).help(help)
        .callback(cb -> cb.call(value.applyAsDouble(k.status()))).register(r);
  }

  /** The port bound. */
  int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.close();
  }
}
