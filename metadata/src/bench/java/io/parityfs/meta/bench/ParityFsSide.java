package io.parityfs.meta.bench;

import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.DirectoryPage;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * ParityFS's namespace on one embedded ZooKeeper server in this JVM, data and transaction log on
 * disk with fsync on (ZooKeeper's default {@code forceSync=yes}), reached over loopback by
 * {@code sessions} Curator clients, each with its own {@link Namespace} (and entry cache);
 * benchmark thread {@code t} uses client {@code t % sessions}.
 */
final class ParityFsSide implements MetadataSide {
  private final ZooKeeperServerEmbedded server;
  private final String connect;
  private final NamespaceConfig config;
  private final List<CuratorFramework> clients = new ArrayList<>();
  private final List<Namespace> namespaces = new ArrayList<>();
  private CuratorFramework listClient;
  private Namespace lister;

  ParityFsSide(Path dir, int sessions, int entryCacheSize) throws Exception {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.setProperty("clientPort", "0".equals(System.getProperty("bench.zk.port", "0"))
        ? Integer.toString(freePort()) : System.getProperty("bench.zk.port"));
    p.setProperty("dataDir", dir.resolve("data").toAbsolutePath().toString());
    p.setProperty("tickTime", "2000");
    p.setProperty("maxClientCnxns", "0");
    p.setProperty("forceSync", "yes");
    p.setProperty("admin.enableServer", "false");
    p.setProperty("4lw.commands.whitelist", "*");
    server = ZooKeeperServerEmbedded.builder().baseDir(dir).configuration(p)
        .exitHandler(ExitHandler.LOG_ONLY).build();
    server.start(30_000);
    connect = server.getConnectionString();
    config = NamespaceConfig.builder().root("/bench").entryCacheSize(entryCacheSize)
        .ifMissing(NamespaceConfig.IfMissing.FORMAT).build();
    for (int i = 0; i < sessions; i++) {
      CuratorFramework c = newClient();
      clients.add(c);
      namespaces.add(Namespace.open(c, config));
    }
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private CuratorFramework newClient() throws InterruptedException {
    CuratorFramework c = CuratorFrameworkFactory.builder().connectString(connect)
        .sessionTimeoutMs(60_000).connectionTimeoutMs(15_000)
        .retryPolicy(new ExponentialBackoffRetry(100, 10)).build();
    c.start();
    if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper at " + connect);
    }
    return c;
  }

  private Namespace ns(int client) {
    return namespaces.get(client % namespaces.size());
  }

  @Override
  public String name() {
    return "parityfs";
  }

  @Override
  public String describe() {
    return "ZooKeeper " + org.apache.zookeeper.Version.getFullVersion().split(",")[0]
        + " (ZooKeeperServerEmbedded, one server, forceSync=yes, data on disk) via Curator "
        + CuratorFramework.class.getPackage().getImplementationVersion() + ", "
        + namespaces.size() + " session(s), each its own Namespace and lookup cache of "
        + config.entryCacheSize() + " records; benchmark thread T uses session T mod "
        + namespaces.size();
  }

  @Override
  public void mkdirs(int client, String path) throws IOException {
    ns(client).mkdirs(path);
  }

  @Override
  public void createFile(int client, String path) throws IOException {
    Namespace ns = ns(client);
    FileStatus made = ns.create(path, CreateOptions.file());
    closeNewFile(ns, made);
  }

  /**
   * What a writer does when it closes a file it wrote nothing to: commit length 0 and give up
   * its lease (HDFS: {@code complete}).
   */
  private static void closeNewFile(Namespace ns, FileStatus made) throws IOException {
    ns.complete(made.path(), made.id(), made.version(), 0);
  }

  @Override
  public void stat(int client, String path) throws IOException {
    ns(client).getStatus(path);
  }

  @Override
  public void rename(int client, String src, String dst) throws IOException {
    ns(client).rename(src, dst);
  }

  /** Batched {@code multi}s of the records create + complete leave ({@link DirectoryFiller}). */
  @Override
  public void fill(String dir, int count) throws Exception {
    io.parityfs.meta.DirectoryFiller.fill(namespaces.get(0), clients.get(0), dir, "e", count,
        1L << 36);
  }

  @Override
  public long listAll(String dir, boolean fresh) throws IOException {
    if (fresh || lister == null) {
      closeLister();
      try {
        listClient = newClient();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      lister = Namespace.open(listClient, config);
    }
    long n = 0;
    String after = null;
    do {
      DirectoryPage page = lister.list(dir, after, 1000);
      n += page.entries().size();
      after = page.next();
    } while (after != null);
    return n;
  }

  private void closeLister() {
    if (lister != null) {
      lister.close();
      listClient.close();
      lister = null;
    }
  }

  @Override
  public void close() {
    closeLister();
    for (Namespace n : namespaces) {
      n.close();
    }
    for (CuratorFramework c : clients) {
      c.close();
    }
    server.close();
  }
}
