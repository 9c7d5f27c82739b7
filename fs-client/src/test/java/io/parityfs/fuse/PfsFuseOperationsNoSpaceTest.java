package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.testing.FullTargetCluster;
import io.parityfs.testkit.SystemDeps;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storage node that runs out of space answers NO_SPACE; the mount's caller gets ENOSPC for it
 * (not EIO), from the write that finds the stream failed or from the flush that stores the
 * last chunks. A real full target ({@link FullTargetCluster}: tmpfs drives), the real operations.
 */
class PfsFuseOperationsNoSpaceTest {
  @TempDir
  static Path dir;
  static String missing;
  static FullTargetCluster full;
  static ParityClient client;
  static PfsFuseOperations ops;

  @BeforeAll
  static void start() throws Exception {
    missing = FullTargetCluster.missing(dir);
    if (missing == null) {
      full = FullTargetCluster.start(dir.resolve("cluster"));
      client = full.cluster().client(new Caller("root", List.of("root"), 0));
      ops = new PfsFuseOperations(client, IdentityMap.system());
    }
  }

  @BeforeEach
  void skipWithoutTmpfs() {
    SystemDeps.skipIf(missing);
  }

  @AfterAll
  static void stop() throws Exception {
    if (ops != null) {
      ops.close();
    }
    if (client != null) {
      client.close();
    }
    if (full != null) {
      full.close();
    }
  }

  @Test
  void aFullTargetIsEnospc() {
    long[] fh = new long[1];
    assertEquals(0, ops.create(Requester.MOUNT, "/big", 0644, 0, fh));
    byte[] piece = new byte[1 << 20];
    int result = 0;
    for (long off = 0; off < FullTargetCluster.TOO_MUCH && result >= 0; off += piece.length) {
      result = ops.write("/big", fh[0], off, ByteBuffer.wrap(piece));
      assertTrue(result < 0 || result == piece.length, "write returned " + result);
    }
    if (result >= 0) {
      result = ops.flush("/big", fh[0]);
    }
    assertEquals(-Errno.ENOSPC, result, "the first failure of write or flush");
    ops.release("/big", fh[0]);
  }
}
