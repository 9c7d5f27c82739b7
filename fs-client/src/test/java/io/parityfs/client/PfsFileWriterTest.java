package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.chunks.StoredChunk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random-access writing ({@link PfsFileWriter}) on a live three-node cluster: overwrite, writes
 * past the end, truncate down and up, reads that see unflushed writes, what is committed when,
 * the chunks left on the targets, and a randomized comparison with an in-memory model with a
 * buffer budget small enough that chunks are evicted and reloaded all the time.
 */
class PfsFileWriterTest extends StripedClusterTest {
  /** Small chunks: many chunks per test file. */
  static final int SMALL = 64 << 10;
  static final Layout SMALL_CHUNKS = new Layout(SMALL, 3, List.of(), "raid6:4+2");

  static FileStatus create(String path, byte[] content, Layout layout) throws IOException {
    try (PfsOutputStream out = client.create(path, CreateOptions.file().withLayout(layout))) {
      out.write(content);
      return out.file();
    }
  }

  static byte[] read(String path) throws IOException {
    try (PfsInputStream in = client.open(path)) {
      return readAll(in);
    }
  }

  /** The chunks the targets hold for {@code file}, as (index, length), by index. */
  static List<long[]> storedChunks(FileStatus file) throws IOException {
    List<long[]> out = new ArrayList<>();
    for (String t : file.layout().targets()) {
      for (StoredChunk c : client.chunks().list(t, file.id(), 0, 1000).chunks()) {
        out.add(new long[] {c.index(), c.length()});
      }
    }
    out.sort((a, b) -> Long.compare(a[0], b[0]));
    return out;
  }

  @Test
  void overwritesInTheMiddleAcrossChunks() throws IOException {
    byte[] model = random(5 * SMALL + 123, 1);
    create("/w-over", model, SMALL_CHUNKS);
    byte[] patch = random(2 * SMALL + 7, 2);
    try (PfsFileWriter w = client.openWriter("/w-over")) {
      w.write(SMALL - 3, patch, 0, patch.length);
      assertEquals(model.length, w.length());
    }
    System.arraycopy(patch, 0, model, SMALL - 3, patch.length);
    assertArrayEquals(model, read("/w-over"));
  }

  @Test
  void aWritePastTheEndFillsTheGapWithStoredZeros() throws IOException {
    byte[] start = random(1000, 3);
    FileStatus f = create("/w-gap", start, SMALL_CHUNKS);
    byte[] tail = random(500, 4);
    long at = 3L * SMALL + 10;
    try (PfsFileWriter w = client.openWriter("/w-gap")) {
      w.write(at, tail, 0, tail.length);
    }
    byte[] model = new byte[(int) at + tail.length];
    System.arraycopy(start, 0, model, 0, start.length);
    System.arraycopy(tail, 0, model, (int) at, tail.length);
    assertArrayEquals(model, read("/w-gap"));
    // no hole: every chunk up to the end is stored, full but the last
    List<long[]> chunks = storedChunks(f);
    assertEquals(4, chunks.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(i, chunks.get(i)[0]);
      assertEquals(SMALL, chunks.get(i)[1]);
    }
    assertEquals(10 + 500, chunks.get(3)[1]);
  }

  @Test
  void truncateDownCommitsAtOnceAndLeavesNoChunkPastTheEnd() throws IOException {
    byte[] model = random(6 * SMALL, 5);
    FileStatus f = create("/w-trunc", model, SMALL_CHUNKS);
    try (PfsFileWriter w = client.openWriter("/w-trunc")) {
      w.truncate(2L * SMALL + 100);
      // committed at once: a reader sees the shorter file while the writer still holds it
      assertEquals(2L * SMALL + 100, client.namespace().getStatus("/w-trunc").length());
      List<long[]> chunks = storedChunks(f);
      assertEquals(3, chunks.size(), "chunks past the new end are deleted");
      assertEquals(100, chunks.get(2)[1]);
      // what lease recovery would take as the file's length cannot bring the bytes back
      assertEquals(2L * SMALL + 100, client.lengthProbe().length(f));
    }
    assertArrayEquals(Arrays.copyOf(model, 2 * SMALL + 100), read("/w-trunc"));

    client.truncate("/w-trunc", SMALL); // on a chunk boundary
    assertArrayEquals(Arrays.copyOf(model, SMALL), read("/w-trunc"));
    assertEquals(1, storedChunks(f).size());
    assertEquals(SMALL, client.lengthProbe().length(f));

    client.truncate("/w-trunc", 0);
    assertEquals(0, read("/w-trunc").length);
    assertEquals(0, storedChunks(f).size());
  }

  @Test
  void truncateUpAddsZeros() throws IOException {
    byte[] start = random(777, 6);
    create("/w-up", start, SMALL_CHUNKS);
    client.truncate("/w-up", 2L * SMALL + 5);
    assertArrayEquals(Arrays.copyOf(start, 2 * SMALL + 5), read("/w-up"));
  }

  @Test
  void anExtensionItsTargetsCannotHoldIsRefusedBeforeAnythingIsStored() throws IOException {
    byte[] start = random(3 * SMALL + 11, 21);
    FileStatus f = create("/w-huge", start, SMALL_CHUNKS);
    List<long[]> before = storedChunks(f);
    try (PfsFileWriter w = client.openWriter("/w-huge")) {
      // Past the layout's last chunk index (2^31 chunks of 64 KiB = 128 TiB).
      assertThrows(FileTooLargeException.class, () -> w.truncate(999_999_999_999_999L));
      // Below it, but 10 TiB of zeros: more than any target's free space.
      FileTooLargeException e =
          assertThrows(FileTooLargeException.class, () -> w.truncate(10L << 40));
      assertTrue(e.getMessage().contains("not sparse"), e.getMessage());
      byte[] b = {1};
      assertThrows(FileTooLargeException.class, () -> w.write(5L << 40, b, 0, 1));
      assertEquals(start.length, w.length());
      // A small extension still works, and the writer is not poisoned by the refusals.
      w.truncate(start.length + 2L * SMALL);
    }
    assertEquals(before.size() + 2, storedChunks(f).size());
    assertArrayEquals(Arrays.copyOf(start, start.length + 2 * SMALL), read("/w-huge"));
  }

  @Test
  void truncatedBytesDoNotComeBackWhenTheFileGrowsAgain() throws IOException {
    byte[] model = random(3 * SMALL, 7);
    create("/w-regrow", model, SMALL_CHUNKS);
    try (PfsFileWriter w = client.openWriter("/w-regrow")) {
      w.truncate(100);
      w.truncate(3L * SMALL); // the old bytes must not reappear: zeros
      byte[] back = new byte[3 * SMALL];
      assertEquals(back.length, w.read(0, ByteBuffer.wrap(back)));
      assertArrayEquals(Arrays.copyOf(Arrays.copyOf(model, 100), 3 * SMALL), back);
    }
    assertArrayEquals(Arrays.copyOf(Arrays.copyOf(model, 100), 3 * SMALL), read("/w-regrow"));
  }

  @Test
  void readsSeeUnflushedWritesAndReadersSeeThemAfterFlush() throws IOException {
    byte[] model = random(2 * SMALL, 8);
    create("/w-ryw", model, SMALL_CHUNKS);
    try (PfsFileWriter w = client.openWriter("/w-ryw")) {
      byte[] patch = random(300, 9);
      w.write(SMALL - 100, patch, 0, patch.length);
      w.write(2L * SMALL, patch, 0, patch.length); // appended
      System.arraycopy(patch, 0, model, SMALL - 100, patch.length);
      byte[] expected = Arrays.copyOf(model, 2 * SMALL + patch.length);
      System.arraycopy(patch, 0, expected, 2 * SMALL, patch.length);

      byte[] back = new byte[expected.length + 50];
      assertEquals(expected.length, w.read(0, ByteBuffer.wrap(back)));
      assertArrayEquals(expected, Arrays.copyOf(back, expected.length));
      assertEquals(-1, w.read(expected.length, ByteBuffer.allocate(1)));
      // not committed yet: another reader sees the old length
      assertEquals(2L * SMALL, client.namespace().getStatus("/w-ryw").length());

      w.flush();
      assertEquals(expected.length, client.namespace().getStatus("/w-ryw").length());
      assertArrayEquals(expected, read("/w-ryw"));
    }
  }

  @Test
  void aSecondWriterIsRefusedWhileTheLeaseIsHeld() throws IOException {
    create("/w-lease", random(10, 10), SMALL_CHUNKS);
    try (PfsFileWriter w = client.openWriter("/w-lease")) {
      try (ParityClient other = cluster.client(Caller.of("root"))) {
        NamespaceException e = assertThrows(NamespaceException.class,
            () -> other.openWriter("/w-lease"));
        assertEquals(NamespaceStatus.LEASE_CONFLICT, e.status());
      }
      w.write(0, new byte[] {1}, 0, 1);
    }
    assertEquals(1, read("/w-lease")[0]);
  }

  @Test
  void closedWriterRefusesWork() throws IOException {
    create("/w-closed", random(10, 11), SMALL_CHUNKS);
    PfsFileWriter w = client.openWriter("/w-closed");
    w.close();
    assertThrows(IOException.class, () -> w.write(0, new byte[1], 0, 1));
    assertThrows(IOException.class, () -> w.truncate(0));
  }

  /**
   * Random writes, truncates, reads and flushes against a byte-array model, with a 2-chunk
   * buffer budget (chunks evicted, stored in the background and reloaded constantly); every
   * read and the final file must equal the model.
   */
  @Test
  void randomOperationsMatchAModel() throws IOException {
    ClientConfig small = cluster.clientConfig().writeBufferBytes(2L * SMALL).build();
    for (long seed = 1; seed <= 3; seed++) {
      Random r = new Random(seed);
      String path = "/w-random-" + seed;
      byte[] model = random(r.nextInt(4 * SMALL), seed * 31);
      int len = model.length;
      model = Arrays.copyOf(model, 12 * SMALL);
      try (ParityClient c = ParityClient.connect(small, Caller.of("root"))) {
        try (PfsOutputStream out = c.create(path,
            CreateOptions.file().withLayout(SMALL_CHUNKS))) {
          out.write(model, 0, len);
        }
        try (PfsFileWriter w = c.openWriter(path)) {
          for (int op = 0; op < 120; op++) {
            int kind = r.nextInt(10);
            if (kind < 6) {
              int at = r.nextInt(Math.min(len + SMALL, 10 * SMALL));
              int n = 1 + r.nextInt(Math.min(2 * SMALL, model.length - at));
              byte[] data = random(n, r.nextLong());
              w.write(at, data, 0, n);
              if (at > len) {
                Arrays.fill(model, len, at, (byte) 0);
              }
              System.arraycopy(data, 0, model, at, n);
              len = Math.max(len, at + n);
            } else if (kind < 8) {
              int to = r.nextInt(10 * SMALL);
              w.truncate(to);
              if (to > len) {
                Arrays.fill(model, len, to, (byte) 0);
              }
              len = to;
            } else if (kind < 9) {
              int at = r.nextInt(len + 1);
              byte[] back = new byte[r.nextInt(3 * SMALL) + 1];
              int n = w.read(at, ByteBuffer.wrap(back));
              int expected = Math.min(back.length, len - at);
              assertEquals(expected == 0 ? -1 : expected, n, "read at " + at + " op " + op);
              if (n > 0) {
                assertArrayEquals(Arrays.copyOfRange(model, at, at + n),
                    Arrays.copyOf(back, n), "read at " + at + " op " + op);
              }
            } else {
              w.flush();
              assertEquals(len, c.namespace().getStatus(path).length());
            }
            assertEquals(len, w.length());
          }
        }
        assertArrayEquals(Arrays.copyOf(model, len), read(path), "seed " + seed);
      }
    }
  }

  @Test
  void theLengthProbeAgreesAfterRandomWork() throws IOException {
    // every chunk within the length is stored and full but the last: lease recovery's probe
    // gives exactly the committed length
    byte[] data = random(5 * SMALL + 17, 12);
    FileStatus f = create("/w-probe", data, SMALL_CHUNKS);
    try (PfsFileWriter w = client.openWriter("/w-probe")) {
      w.write(7L * SMALL + 3, data, 0, 10);
      w.truncate(6L * SMALL + 1);
      w.write(SMALL, data, 0, 5);
    }
    FileStatus now = client.namespace().getStatus("/w-probe");
    assertEquals(6L * SMALL + 1, now.length());
    assertEquals(now.length(), client.lengthProbe().length(f));
    assertTrue(storedChunks(f).stream().allMatch(c -> c[0] <= 6));
  }
}
