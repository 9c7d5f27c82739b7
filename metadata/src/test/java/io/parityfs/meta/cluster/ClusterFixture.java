package io.parityfs.meta.cluster;

import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.ZkFixture;
import io.parityfs.testkit.Eventually;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** {@link ZkFixture} with what the cluster-manager tests add. */
abstract class ClusterFixture extends ZkFixture {
  static Namespace newNamespace(NamespaceConfig config) throws NamespaceException {
    return Namespace.open(client, config);
  }

  static void await(String what, long timeoutMillis, BooleanSupplier condition)
      throws InterruptedException {
    Eventually.until(what, Duration.ofMillis(timeoutMillis), condition);
  }

  /**
   * What a crash between a recursive delete's detach and its purge leaves (docs/metadata.md's
   * layout, written raw): the entry gone, the container marked, a trash marker.
   */
  static void detachWithoutPurge(Namespace ns, String name) throws Exception {
    String root = ns.config().root();
    long id = ns.getStatus("/" + name).id();
    String rootContainer = root + "/dirs/01/0000000001";
    String entry = null;
    for (String b : client.getChildren().forPath(rootContainer)) {
      if (client.getChildren().forPath(rootContainer + "/" + b).contains(name)) {
        entry = rootContainer + "/" + b + "/" + name;
      }
    }
    String hex = String.format("%010x", id);
    client.transaction().forOperations(
        client.transactionOp().delete().forPath(entry),
        client.transactionOp().setData().withVersion(0)
            .forPath(root + "/dirs/" + hex.substring(8).toUpperCase() + "/" + hex,
                "{}".getBytes(StandardCharsets.UTF_8)),
        client.transactionOp().create().forPath(root + "/trash/" + hex));
    // this client's entry cache learns of the raw write through its watch
    await("the detach seen", 10_000, () -> {
      try {
        return !ns.exists("/" + name);
      } catch (NamespaceException e) {
        throw new IllegalStateException(e);
      }
    });
  }
}
