package io.parityfs.cli;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.targets.Reachability;
import io.parityfs.meta.targets.TargetInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Whether the storage nodes take this client's connection (TLS or plaintext, its certificate):
 * what a long-running client (the mount) checks before it serves anything, so that a client
 * the nodes refuse fails at once with the reason instead of failing every read and write.
 */
final class NodeReach {
  private static final long TIMEOUT_SECONDS = 15;

  private NodeReach() {}

  /**
   * Pings every node that serves an online target. Passes when one answers, or when no target
   * is online (nothing to ask: metadata still works, data waits for the nodes). Fails with
   * UNAVAILABLE, naming the nodes and why, when every one refused or could not be reached.
   *
   * @param tls whether the client speaks TLS (the hint in the failure depends on it)
   */
  static void check(ParityClient client, boolean tls) throws CliException {
    Map<String, InetSocketAddress> nodes = new LinkedHashMap<>();
    for (TargetInfo t : client.registry().targets()) {
      if (t.reachability() == Reachability.ONLINE && !nodes.containsKey(t.nodeId())) {
        try {
          nodes.put(t.nodeId(), t.socketAddress());
        } catch (IOException e) {
          // a node without a usable address cannot be checked; the others decide
        }
      }
    }
    if (nodes.isEmpty()) {
      return;
    }
    Map<String, CompletableFuture<Void>> pings = new LinkedHashMap<>();
    nodes.forEach((id, address) -> pings.put(id, client.nodes().pingAsync(address)));
    StringBuilder why = new StringBuilder();
    for (Map.Entry<String, CompletableFuture<Void>> p : pings.entrySet()) {
      try {
        p.getValue().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        why.append(why.length() == 0 ? "" : "; ").append("node ").append(p.getKey())
            .append(" at ").append(nodes.get(p.getKey())).append(": ")
            .append(String.valueOf(cause.getMessage()).replace('\n', ' '));
      } catch (TimeoutException e) {
        why.append(why.length() == 0 ? "" : "; ").append("node ").append(p.getKey())
            .append(": no answer in ").append(TIMEOUT_SECONDS).append(" s");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException(ExitStatus.FAILED, null, "interrupted");
      }
    }
    String hint = tls
        ? "check that this certificate is issued by the cluster's CA, is not revoked and has"
            + " the client or admin role (docs/security.md)"
        : "this client speaks plaintext: a secure cluster (the default of `parityfs local"
            + " start`) needs --tls-key, --tls-cert and --tls-ca, or PARITYFS_TLS_* as `parityfs"
            + " local env` prints them (docs/security.md)";
    throw new CliException(ExitStatus.UNAVAILABLE, null, "UNAVAILABLE: no storage node"
        + " accepted this client (" + why + "): " + hint);
  }
}
