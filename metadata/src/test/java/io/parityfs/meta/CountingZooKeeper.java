package io.parityfs.meta;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;

/**
 * A ZooKeeper handle that counts the reads it sends to the server ({@code getData}, {@code
 * getChildren}, {@code exists}, synchronous and asynchronous), so a test can tell a cache hit
 * from a server read. All handles a {@link #newClient} client makes share one counter.
 */
final class CountingZooKeeper extends ZooKeeper {
  private final AtomicLong reads;

  private CountingZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly,
      AtomicLong reads) throws IOException {
    super(connect, timeout, watcher, readOnly);
    this.reads = reads;
  }

  /** A started, connected Curator client whose every ZooKeeper read adds 1 to {@code reads}. */
  static CuratorFramework newClient(String connectString, AtomicLong reads) throws Exception {
    ZookeeperFactory factory = new ZookeeperFactory() {
      @Override
      public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher,
          boolean readOnly) throws Exception {
        return new CountingZooKeeper(connect, timeout, watcher, readOnly, reads);
      }

      @Override
      public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher,
          boolean readOnly, ZKClientConfig config) throws Exception {
        return new CountingZooKeeper(connect, timeout, watcher, readOnly, reads);
      }
    };
    CuratorFramework c = CuratorFrameworkFactory.builder()
        .connectString(connectString)
        .sessionTimeoutMs(30_000)
        .connectionTimeoutMs(10_000)
        .retryPolicy(new ExponentialBackoffRetry(100, 10))
        .zookeeperFactory(factory)
        .build();
    c.start();
    if (!c.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper");
    }
    return c;
  }

  @Override
  public byte[] getData(String path, Watcher watcher, Stat stat)
      throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.getData(path, watcher, stat);
  }

  @Override
  public byte[] getData(String path, boolean watch, Stat stat)
      throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.getData(path, watch, stat);
  }

  @Override
  public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb, Object ctx) {
    reads.incrementAndGet();
    super.getData(path, watcher, cb, ctx);
  }

  @Override
  public void getData(String path, boolean watch, AsyncCallback.DataCallback cb, Object ctx) {
    reads.incrementAndGet();
    super.getData(path, watch, cb, ctx);
  }

  @Override
  public List<String> getChildren(String path, Watcher watcher, Stat stat)
      throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.getChildren(path, watcher, stat);
  }

  @Override
  public List<String> getChildren(String path, boolean watch, Stat stat)
      throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.getChildren(path, watch, stat);
  }

  @Override
  public List<String> getChildren(String path, Watcher watcher)
      throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.getChildren(path, watcher);
  }

  @Override
  public List<String> getChildren(String path, boolean watch)
      throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.getChildren(path, watch);
  }

  @Override
  public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb,
      Object ctx) {
    reads.incrementAndGet();
    super.getChildren(path, watcher, cb, ctx);
  }

  @Override
  public void getChildren(String path, boolean watch, AsyncCallback.Children2Callback cb,
      Object ctx) {
    reads.incrementAndGet();
    super.getChildren(path, watch, cb, ctx);
  }

  @Override
  public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.exists(path, watcher);
  }

  @Override
  public Stat exists(String path, boolean watch) throws KeeperException, InterruptedException {
    reads.incrementAndGet();
    return super.exists(path, watch);
  }

  @Override
  public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb, Object ctx) {
    reads.incrementAndGet();
    super.exists(path, watcher, cb, ctx);
  }

  @Override
  public void exists(String path, boolean watch, AsyncCallback.StatCallback cb, Object ctx) {
    reads.incrementAndGet();
    super.exists(path, watch, cb, ctx);
  }
}
