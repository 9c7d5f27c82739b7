package io.parityfs.client;

import io.parityfs.meta.Caller;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.ChunkStat;
import io.parityfs.node.protocol.TargetId;
import io.parityfs.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live cluster of three RAID-6 4+2 nodes per test class, a root client, and the layout the
 * data-path tests stripe their files with: 1 MiB chunks over all three targets. A test may stop
 * the node of a target ({@link #stopNodeOf}); it is started again after the test.
 */
abstract class StripedClusterTest {
  static final int CHUNK = 1 << 20;
  static final Layout STRIPED = new Layout(CHUNK, 3, List.of(), "raid6:4+2");

  @TempDir
  static Path dir;
  static MiniCluster cluster;
  static ParityClient client;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = MiniCluster.start(dir, 3, "raid6:4+2", 6);
    client = cluster.client(Caller.of("root"));
  }

  /** The node a test stopped, -1 for none. */
  private int stopped = -1;

  /** Every test leaves the three nodes running. */
  @AfterEach
  void restartStopped() throws Exception {
    if (stopped >= 0) {
      restart();
    }
  }

  /** Stops the node serving {@code targetId} (one at a time). */
  void stopNodeOf(String targetId) throws IOException {
    stopped = nodeOf(targetId);
    cluster.stopNode(stopped);
  }

  /** The index in the cluster of the node serving {@code targetId}. */
  static int nodeOf(String targetId) throws IOException {
    String nodeId = client.registry().target(targetId).orElseThrow().nodeId();
    for (int i = 0; i < cluster.nodes().size(); i++) {
      if (cluster.nodes().get(i).nodeId().equals(nodeId)) {
        return i;
      }
    }
    throw new IllegalStateException("no node " + nodeId + " serves target " + targetId);
  }

  /** Starts the stopped node again and waits until the three targets are online. */
  void restart() throws Exception {
    cluster.restartNode(stopped);
    stopped = -1;
    cluster.awaitTargets(3);
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The target of member {@code member} of ec group {@code group} of {@code f}. */
  static String memberTarget(FileStatus f, long group, int member) {
    ChunkMap map = ChunkMap.of(f.layout());
    return f.layout().targets().get(map.memberPosition(group, member));
  }

  /** The stat of a member, read from its target directly. */
  static ChunkStat memberStat(FileStatus f, long group, int member) throws IOException {
    String target = memberTarget(f, group, member);
    TargetInfo t = client.registry().target(target).orElseThrow();
    return client.nodes().stat(t.socketAddress(), TargetId.of(target),
        new ChunkId(f.id(), ChunkMap.of(f.layout()).memberIndex(group, member)));
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static byte[] readAll(PfsInputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[64 << 10];
    int n;
    while ((n = in.read(buf, 0, buf.length)) > 0) {
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }
}
