package io.parityfs.cli;

import io.parityfs.meta.ZkAcls;
import io.parityfs.meta.ZooKeeperSettings;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.Command;

/**
 * {@code parityfs zk-acl}: makes every znode of the cluster creator-only for its digest identity
 * ({@link ZkAcls}), for a cluster whose digest was turned on after it made its first znodes.
 */
@Command(name = "zk-acl", description = {"Make every znode of the cluster (under --chroot)"
    + " readable and writable by the cluster's digest identity only (--digest-file): what a"
    + " cluster made before its digest was turned on still has open. Idempotent.",
    "Give every node and client the digest first: processes without it get NOAUTH"
        + " afterwards. Exit 7 when some znodes are another identity's (left as they are)."})
final class ZkAclCommand extends CliCommand {
  @Override
  void run(Session s) throws CliException, IOException {
    ZooKeeperSettings zk = s.zooKeeper();
    if (zk.digest().isEmpty()) {
      throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: zk-acl needs the"
          + " cluster's digest (--digest-file or PARITYFS_DIGEST_FILE): the ACLs it sets are"
          + " that identity's");
    }
    ZkAcls.Outcome o;
    try (CuratorFramework c = zk.newClient()) {
      c.start();
      if (!c.blockUntilConnected((int) zk.connectionTimeout().toMillis(),
          TimeUnit.MILLISECONDS)) {
        throw new CliException(ExitStatus.UNAVAILABLE, zk.connect(), "UNAVAILABLE: "
            + zk.unreachable());
      }
      o = ZkAcls.apply(c, zk, n -> {
        s.err().println("zk-acl: " + n + " znodes so far");
        s.err().flush();
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitStatus.UNAVAILABLE, zk.connect(), "UNAVAILABLE: interrupted");
    }
    String user = zk.digest().substring(0, zk.digest().indexOf(':'));
    if (s.json()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("user", user);
      m.put("znodes", o.znodes());
      m.put("set", o.set());
      m.put("refused", o.refused());
      m.put("firstRefused", o.firstRefused());
      s.printJson(m);
    } else {
      s.out().println("zk-acl: " + o.set() + " of " + o.znodes() + " znodes"
          + (zk.chroot().isEmpty() ? "" : " under " + zk.chroot()) + (zk.roles() == null
          ? " now creator-only for digest user " + user : " now by role: the registry read-only"
          + " for the client identity, the namespace both identities'"));
      s.out().flush();
    }
    if (o.refused() > 0) {
      throw new CliException(ExitStatus.CONFLICT, o.firstRefused(), "PERMISSION_DENIED: "
          + o.refused() + " znodes are another identity's and were left as they are (the first"
          + " named here)");
    }
  }
}
