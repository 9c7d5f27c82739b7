package io.parityfs.meta;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the namespace does while its ZooKeeper connection is not healthy, fed by Curator's
 * connection-state events:
 *
 * <ul>
 *   <li><b>SUSPENDED</b> (connection lost, session maybe still alive): an operation waits up to
 *       {@code suspendedWaitMillis} for RECONNECTED, then fails with UNAVAILABLE naming the
 *       wait. An operation already in flight is retried by Curator's retry policy.
 *   <li><b>LOST</b> (the session expired, or Curator gave it up after the session timeout): the
 *       server has removed the session's ephemeral znodes, so every lease this client held is
 *       released (its writers fail with LEASE_EXPIRED at their next commit, since the new
 *       session's id is not the lease's). Operations fail at once with UNAVAILABLE ("session
 *       lost") until Curator has connected a new session.
 *   <li><b>CONNECTED / RECONNECTED</b>: operations proceed.
 * </ul>
 *
 * Thread-safe.
 */
final class ConnectionGate implements ConnectionStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGate.class);

  private final long waitMillis;
  private final CuratorFramework client;
  private ConnectionState state = ConnectionState.CONNECTED;

  ConnectionGate(CuratorFramework client, long waitMillis) {
    this.client = client;
    this.waitMillis = waitMillis;
  }

  void register() {
    client.getConnectionStateListenable().addListener(this);
  }

  void unregister() {
    client.getConnectionStateListenable().removeListener(this);
  }

  @Override
  public void stateChanged(CuratorFramework client, ConnectionState newState) {
    synchronized (this) {
      state = newState;
      notifyAll();
    }
    switch (newState) {
      case SUSPENDED -> LOG.warn(
          "ZooKeeper connection suspended: operations wait up to {} ms", waitMillis);
      case LOST -> LOG.warn("ZooKeeper session lost: this client's leases are released");
      case RECONNECTED -> LOG.info("ZooKeeper connection restored");
      default -> { }
    }
  }

  /**
   * Returns when the connection is usable; UNAVAILABLE after the bounded wait or when LOST.
   * The client's own view of its connection decides (events can arrive late or out of order
   * under load); the last event only says why it is down: LOST fails at once, anything else
   * waits.
   */
  void await(String path) throws NamespaceException {
    long deadline = System.nanoTime() + waitMillis * 1_000_000L;
    synchronized (this) {
      while (true) {
        if (client.getZookeeperClient().isConnected()) {
          return;
        }
        if (state == ConnectionState.LOST) {
          throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path,
              "ZooKeeper session lost; this client's leases were released; retry once "
                  + "reconnected");
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path,
              "ZooKeeper connection suspended for more than " + waitMillis + " ms");
        }
        try {
          wait(Math.max(1, Math.min(50, left / 1_000_000L))); // events may not come: poll too
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new NamespaceException(NamespaceStatus.UNAVAILABLE, path,
              "interrupted while waiting for ZooKeeper");
        }
      }
    }
  }
}
