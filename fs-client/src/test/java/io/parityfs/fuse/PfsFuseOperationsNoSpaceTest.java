package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.testing.FullTargetCluster;
import io.parityfs.testkit.SystemDeps;
import java.io.IOException;
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

  /**
   * A write past what the target holds fails with ENOSPC; on the last close the writer deletes
   * what it stored past the committed length and closes the file there, so the space comes
   * back at once (before, the chunks and the lease stayed until the mount's session ended:
   * issue 39 item 2, "the space did not come back until the cluster was deleted").
   */
  @Test
  void aFailedExtensionGivesItsSpaceBackAndClosesTheFile() throws Exception {
    long[] fh = new long[1];
    assertEquals(0, ops.create(Requester.MOUNT, "/giveback", 0644, 0, fh));
    byte[] piece = new byte[1 << 20];
    java.util.Arrays.fill(piece, (byte) 7);
    assertEquals(piece.length, ops.write("/giveback", fh[0], 0, ByteBuffer.wrap(piece)));
    assertEquals(0, ops.flush("/giveback", fh[0]), "1 MiB committed");
    long before = full.freeBytes();
    int result = 0;
    for (long off = piece.length; off < FullTargetCluster.TOO_MUCH && result >= 0;
        off += piece.length) {
      result = ops.write("/giveback", fh[0], off, ByteBuffer.wrap(piece));
    }
    if (result >= 0) {
      result = ops.flush("/giveback", fh[0]);
    }
    assertEquals(-Errno.ENOSPC, result);
    assertTrue(full.freeBytes() < before - (2 << 20), "the writes filled the drives");
    ops.release("/giveback", fh[0]);
    // What stays until garbage collection: a deletion's tombstone per object and drive, 63
    // bytes (a 4 KiB page of tmpfs; at most 32 objects of this test and 32 of
    // aFullTargetIsEnospc's, on 3 drives) where the drive holds the version's manifest, and the
    // shard itself, renamed, where it does not: a commit that met ENOSPC on one drive's
    // manifest is durable on the others' (ObjectDelete). How many such shards a run leaves
    // depends on which writes met the full drive, so they are counted, and then collected.
    long shardTombstones = tombstoneBytesOverAPage();
    assertTrue(full.freeBytes() >= before - (1 << 20) - shardTombstones, "the space is back but"
        + " for " + shardTombstones + " bytes of shards renamed into tombstones: " + before
        + " bytes free before, " + full.freeBytes() + " after");
    for (var node : full.cluster().nodes()) {
      node.target(full.target()).get().array().store().collectGarbageOnline();
    }
    assertEquals(0, tombstoneBytesOverAPage(), "garbage collection takes every tombstone");
    assertTrue(full.freeBytes() >= before - (1 << 20), "after garbage collection: " + before
        + " bytes free before, " + full.freeBytes() + " after");
    io.parityfs.meta.FileStatus st = client.namespace().getStatus("/giveback");
    assertEquals(piece.length, st.length(), "closed at the committed length");
    assertTrue(!st.isOpenForWrite(), "the lease is released");
    byte[] back;
    try (io.parityfs.client.PfsInputStream in = client.open("/giveback")) {
      back = in.readAllBytes();
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(piece, back);
  }

  /**
   * Issue 39 item 2, on tmpfs drives of a few tens of MiB: {@code truncate -s 50G} and {@code dd
   * seek=} a 4 KiB write at 50 GiB store holes, not zeros: the free space hardly moves, the file
   * reads as zeros with the written bytes where they were written, its block count is what is
   * stored, and truncating it back down gives everything back.
   */
  @Test
  void aTruncateUpAndAWriteFarPastTheEndStoreHolesNotZeros() throws Exception {
    long size = 50L << 30;
    long before = full.freeBytes();
    long[] fh = new long[1];
    assertEquals(0, ops.create(Requester.MOUNT, "/sparse", 0644, 0, fh));
    assertEquals(0, ops.ftruncate(Requester.MOUNT, "/sparse", fh[0], size));
    byte[] block = new byte[4096];
    java.util.Arrays.fill(block, (byte) 'x');
    assertEquals(block.length, ops.write("/sparse", fh[0], size, ByteBuffer.wrap(block)));
    assertEquals(0, ops.flush("/sparse", fh[0]));
    ops.release("/sparse", fh[0]);
    FileAttributes[] attr = new FileAttributes[1];
    assertEquals(0, ops.getattr(Requester.MOUNT, "/sparse", attr));
    assertEquals(size + block.length, attr[0].size());
    assertTrue(attr[0].blocks() * 512 <= (1 << 20), "blocks " + attr[0].blocks()
        + ": one 1 MiB chunk at most is stored");
    assertTrue(full.freeBytes() >= before - (4 << 20), "free " + before + " before, "
        + full.freeBytes() + " after: holes take no space");
    assertEquals(0, ops.open(Requester.MOUNT, "/sparse", 0, fh));
    ByteBuffer back = ByteBuffer.allocate(8192);
    assertEquals(8192, ops.read("/sparse", fh[0], size - 4096, back));
    byte[] expected = new byte[8192];
    System.arraycopy(block, 0, expected, 4096, 4096);
    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, back.array());
    back.clear();
    assertEquals(8192, ops.read("/sparse", fh[0], 12345L << 20, back));
    org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[8192], back.array());
    ops.release("/sparse", fh[0]);
    // a truncate up of a closed file (truncate -s) is as cheap, and back down is too
    assertEquals(0, ops.truncate(Requester.MOUNT, "/sparse", 2 * size));
    assertEquals(0, ops.truncate(Requester.MOUNT, "/sparse", 0));
    assertEquals(0, client.namespace().getStatus("/sparse").length());
    assertTrue(full.freeBytes() >= before - (1 << 20), "the space is back");
  }

  /** Bytes in tombstone files larger than a page (shards renamed into tombstones). */
  private static long tombstoneBytesOverAPage() throws IOException {
    try (var files = java.nio.file.Files.walk(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".deleted"))
          .mapToLong(f -> {
            try {
              long n = java.nio.file.Files.size(f);
              return n > 4096 ? n : 0;
            } catch (IOException e) {
              return 0; // collected meanwhile
            }
          }).sum();
    }
  }
}
