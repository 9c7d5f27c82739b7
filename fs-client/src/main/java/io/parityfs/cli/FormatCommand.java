package io.parityfs.cli;

import io.parityfs.client.ClientConfig;
import io.parityfs.client.ParityClient;
import io.parityfs.meta.NamespaceConfig;
import io.parityfs.meta.ZooKeeperSettings;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;

/**
 * {@code parityfs format}: creates the namespace in the cluster's ZooKeeper (under --chroot)
 * where there is none. No other command, mount or Hadoop client creates one, so that a
 * mistyped chroot or a ZooKeeper that lost its data is an error and not an empty file system.
 */
@Command(name = "format", description = {"Create the namespace (an empty file system) in the"
    + " cluster's ZooKeeper, under --chroot, where there is none; one that exists is left as"
    + " it is.",
    "Other commands, mounts and Hadoop clients never create one: they fail naming the"
        + " ZooKeeper ensemble, chroot and root instead. The new namespace's file ids start"
        + " past every id the registered storage targets hold chunks of."})
final class FormatCommand extends CliCommand {
  @Override
  void run(Session s) throws CliException, IOException {
    ZooKeeperSettings zk = s.zooKeeper();
    ClientConfig config = ClientConfig.builder(zk).build();
    boolean created;
    try {
      created = ParityClient.format(config);
    } catch (IOException e) {
      throw Session.connectFailure(zk, e);
    }
    NamespaceConfig ns = config.namespace();
    String chroot = zk.chroot().isEmpty() ? "none" : zk.chroot();
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("zookeeper", zk.connect());
      m.put("chroot", zk.chroot());
      m.put("root", ns.root());
      m.put("created", created);
      s.printJson(m);
      return;
    }
    s.out().println((created ? "formatted a new namespace at " : "a namespace exists at ")
        + ns.root() + " (ZooKeeper " + zk.connect() + ", chroot " + chroot + ")"
        + (created ? "" : "; left as it is"));
    s.out().flush();
  }
}
