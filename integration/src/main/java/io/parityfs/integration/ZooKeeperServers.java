package io.parityfs.integration;

import io.parityfs.integration.LocalCluster.ProcessState;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;

/**
 * The ZooKeeper servers of a {@link LocalCluster} as processes: starting them (a standalone
 * {@code ZooKeeperServerMain}, or a {@code QuorumPeerMain} per server of an ensemble, each on
 * its {@code zoo.cfg}), waiting until they serve, and asking them with the four-letter words
 * their {@code zoo.cfg} allows ({@code ruok}, {@code srvr}). Starts run under the caller's
 * {@link ProcessSupervisor#lock}; no state of its own.
 */
final class ZooKeeperServers {
  private static final String ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain";
  private static final String QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

  private final ClusterLayout layout;
  private final ProcessSupervisor processes;

  ZooKeeperServers(ClusterLayout layout, ProcessSupervisor processes) {
    this.layout = layout;
    this.processes = processes;
  }

  private ProcessState process(int s) {
    return processes.state(layout.zooKeeperName(layout.checkServer(s)));
  }

  /**
   * Starts the servers that are not running and waits until they serve (an ensemble: until
   * every server is a leader or a follower), or the deadline ({@link System#nanoTime}).
   */
  void start(long deadlineNanos, Consumer<String> progress) throws IOException {
    int servers = layout.shape().zooKeeperServers();
    if (servers > 1) {
      for (int s = 1; s <= servers; s++) {
        if (!process(s).running()) {
          spawn(s, progress);
        }
      }
      for (int s = 1; s <= servers; s++) {
        awaitServing(s, deadlineNanos);
      }
      return;
    }
    int port = layout.shape().zooKeeperPort();
    String name = layout.zooKeeperName(1);
    if (!process(1).running()) {
      if (!ClusterLayout.free(port)) {
        throw new IOException("port " + port + " on 127.0.0.1 is taken by another process; stop"
            + " it (a ZooKeeper of another cluster?) or create this cluster elsewhere");
      }
      progress.accept("starting ZooKeeper on " + layout.connectString());
      processes.spawn(name, processes.javaCommand(name, "512m",
          List.of("-Dzookeeper.admin.enableServer=false"),
          List.of(ZOOKEEPER_MAIN, layout.zooKeeperConfig(1).toString())));
    }
    while (true) {
      if (answers(port)) {
        return;
      }
      ProcessState p = process(1);
      if (!p.running()) {
        throw new IOException("ZooKeeper exited at start" + LocalCluster.tail(p.log()));
      }
      if (System.nanoTime() > deadlineNanos) {
        throw new IOException("ZooKeeper does not answer on " + layout.connectString()
            + LocalCluster.tail(p.log()));
      }
      ProcessSupervisor.sleep(100);
    }
  }

  /** Starts server {@code s} of the ensemble (QuorumPeerMain on its zoo.cfg). */
  void spawn(int s, Consumer<String> progress) throws IOException {
    int port = layout.zooKeeperClientPort(s);
    if (!ClusterLayout.free(port)) {
      throw new IOException("port " + port + " on 127.0.0.1 is taken by another process");
    }
    progress.accept("starting ZooKeeper server " + s + " on 127.0.0.1:" + port);
    String name = layout.zooKeeperName(s);
    processes.spawn(name, processes.javaCommand(name, "512m",
        List.of("-Dzookeeper.admin.enableServer=false"),
        List.of(QUORUM_MAIN, layout.zooKeeperConfig(s).toString())));
  }

  /** Waits until server {@code s} of the ensemble is a leader or a follower. */
  void awaitServing(int s, long deadlineNanos) throws IOException {
    while (true) {
      String mode = mode(layout.zooKeeperClientPort(s));
      if (mode.equals("leader") || mode.equals("follower")) {
        return;
      }
      ProcessState p = process(s);
      if (!p.running()) {
        throw new IOException(p.name() + " exited at start" + LocalCluster.tail(p.log()));
      }
      if (System.nanoTime() > deadlineNanos) {
        throw new IOException(p.name() + " does not serve on 127.0.0.1:"
            + layout.zooKeeperClientPort(s) + " (mode: " + mode + ")"
            + LocalCluster.tail(p.log()));
      }
      ProcessSupervisor.sleep(100);
    }
  }

  /** {@link LocalCluster#zooKeeperLeader}. */
  Optional<Integer> leader() {
    for (int s = 1; s <= layout.shape().zooKeeperServers(); s++) {
      String mode = mode(layout.zooKeeperClientPort(s));
      if (mode.equals("leader") || mode.equals("standalone")) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * The {@code Mode:} that the server on {@code port} reports to {@code srvr} (leader, follower,
   * standalone), or {@code none} when it does not answer or does not serve.
   */
  String mode(int port) {
    try {
      String answer = ask(port, "srvr");
      for (String line : answer.split("\n")) {
        if (line.startsWith("Mode: ")) {
          return line.substring(6).trim();
        }
      }
      return "none";
    } catch (IOException e) {
      return "none";
    }
  }

  /** Whether the server on {@code port} answers ZooKeeper's {@code ruok} with {@code imok}. */
  private boolean answers(int port) {
    try {
      return ask(port, "ruok").equals("imok");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The answer of the server on {@code port} to four-letter word {@code word}: over a plain
   * socket, or over TLS with the admin certificate when the cluster's ZooKeeper listens for
   * TLS only (a TLS socket cannot half-close: the server closes after its answer).
   */
  private String ask(int port, String word) throws IOException {
    try (Socket s = layout.zooKeeperSockets().createSocket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      s.setSoTimeout(2000);
      s.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      if (!(s instanceof SSLSocket)) {
        s.shutdownOutput();
      }
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
