package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Holes;
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
  void aWritePastTheEndLeavesTheChunksBetweenAsHoles() throws IOException {
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
    // chunk 0 zero-filled to its end, chunks 1 and 2 holes (never stored), chunk 3 the write
    List<long[]> chunks = storedChunks(f);
    assertEquals(2, chunks.size());
    assertEquals(0, chunks.get(0)[0]);
    assertEquals(SMALL, chunks.get(0)[1]);
    assertEquals(3, chunks.get(1)[0]);
    assertEquals(10 + 500, chunks.get(1)[1]);
    FileStatus now = client.namespace().getStatus("/w-gap");
    assertEquals("1..2", now.holes().toString());
    assertEquals(now.length() - 2L * SMALL, now.storedBytes());
    // lease recovery's prefix counts the holes as present
    assertEquals(now.length(), client.lengthProbe().length(now));
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
  void aHugeTruncateUpStoresNothingAndReadsAsZeros() throws IOException {
    byte[] start = random(3 * SMALL + 11, 22);
    FileStatus f = create("/w-sparse", start, SMALL_CHUNKS);
    long huge = 1L << 40; // 1 TiB: 2^24 chunks of 64 KiB, the most this layout holds
    client.truncate("/w-sparse", huge);
    FileStatus now = client.namespace().getStatus("/w-sparse");
    assertEquals(huge, now.length());
    assertEquals("4..16777215", now.holes().toString());
    assertEquals(4, storedChunks(f).size(), "only the old last chunk's tail was stored");
    assertEquals(SMALL, storedChunks(f).get(3)[1]);
    assertEquals(4L * SMALL, now.storedBytes());
    try (PfsInputStream in = client.open("/w-sparse")) {
      byte[] back = new byte[2 * SMALL];
      in.readFully(3L * SMALL, ByteBuffer.wrap(back)); // the old tail and a hole
      byte[] expected = new byte[2 * SMALL];
      System.arraycopy(start, 3 * SMALL, expected, 0, 11);
      assertArrayEquals(expected, back);
      in.readFully(huge - 100, ByteBuffer.wrap(back, 0, 100));
      assertArrayEquals(new byte[100], Arrays.copyOf(back, 100));
    }
    assertEquals(huge, client.lengthProbe().length(now));
    // a write in the middle stores one chunk; the rest stays holes
    try (PfsFileWriter w = client.openWriter("/w-sparse")) {
      w.write(huge / 2 + 5, start, 0, 100);
    }
    now = client.namespace().getStatus("/w-sparse");
    assertEquals("4..8388607, 8388609..16777215", now.holes().toString());
    assertEquals(5, storedChunks(f).size());
    try (PfsInputStream in = client.open("/w-sparse")) {
      byte[] back = new byte[110];
      in.readFully(huge / 2, ByteBuffer.wrap(back));
      byte[] expected = new byte[110];
      System.arraycopy(start, 0, expected, 5, 100);
      assertArrayEquals(expected, back);
    }
    client.truncate("/w-sparse", 2L * SMALL + 1); // back down: the holes and the chunk go
    now = client.namespace().getStatus("/w-sparse");
    assertTrue(now.holes().isEmpty(), now.holes().toString());
    assertEquals(3, storedChunks(f).size());
    assertArrayEquals(Arrays.copyOf(start, 2 * SMALL + 1), read("/w-sparse"));
  }

  @Test
  void leaseRecoveryKeepsTheHolesAndDeletesWhatADeadWriterStoredInThem() throws IOException {
    byte[] start = random(SMALL, 24);
    FileStatus f = create("/w-dead", start, SMALL_CHUNKS);
    client.truncate("/w-dead", 10L * SMALL); // chunks 1..9 holes
    ClientConfig small = cluster.clientConfig().writeBufferBytes(2L * SMALL).build();
    try (ParityClient b = ParityClient.connect(small, Caller.of("root"))) {
      PfsFileWriter w = b.openWriter("/w-dead");
      byte[] x = random(SMALL, 25);
      for (int c = 3; c <= 6; c++) {
        w.write((long) c * SMALL, x, 0, SMALL); // chunks 3 and 4 evicted: stored, uncommitted
      }
      w.read(3L * SMALL, ByteBuffer.allocate(1)); // waits for chunk 3's store
      assertTrue(storedChunks(f).stream().anyMatch(c -> c[0] == 3));
      // b dies: its client goes without closing the writer
    }
    assertTrue(client.recoverLease("/w-dead"));
    FileStatus now = client.namespace().getStatus("/w-dead");
    assertEquals(10L * SMALL, now.length());
    assertEquals("1..9", now.holes().toString());
    assertEquals(1, storedChunks(f).size(), "what the dead writer stored in the holes is gone");
    assertArrayEquals(Arrays.copyOf(start, 10 * SMALL), read("/w-dead"));
  }

  @Test
  void anAppendToAFileThatEndsInAHoleStoresThatGroup() throws IOException {
    for (Layout layout : List.of(SMALL_CHUNKS, SMALL_CHUNKS.withAcross(Across.ec(2, 1)))) {
      String path = "/w-append-" + layout.across();
      byte[] start = random(1000, 26);
      FileStatus f = create(path, start, layout);
      long end = 5L * SMALL + 100;
      client.truncate(path, end);
      assertTrue(client.namespace().getStatus(path).holes().contains(
          ChunkMap.of(layout).group(5)), path);
      byte[] more = random(SMALL, 27);
      try (PfsOutputStream out = client.append(path)) {
        out.write(more);
      }
      FileStatus now = client.namespace().getStatus(path);
      assertTrue(!now.holes().contains(ChunkMap.of(layout).group(5))
          && !now.holes().contains(ChunkMap.of(layout).group(6)), now.holes().toString());
      byte[] model = new byte[(int) end + more.length];
      System.arraycopy(start, 0, model, 0, start.length);
      System.arraycopy(more, 0, model, (int) end, more.length);
      assertArrayEquals(model, read(path), path);
      assertEquals(now.length(), client.lengthProbe().length(now), path);
      assertTrue(storedChunks(f).stream().noneMatch(c -> c[0] == 2), path + ": chunk 2 stored");
    }
  }

  static int holeRanges(String path) throws IOException {
    return client.namespace().getStatus(path).holes().ranges().size();
  }

  @Test
  void aChunkLostOutsideTheHolesStillReadsAsLostNotAsZeros() throws IOException {
    byte[] start = random(2 * SMALL, 23);
    FileStatus f = create("/w-lost", start, SMALL_CHUNKS);
    client.truncate("/w-lost", 6L * SMALL); // chunks 2..5 holes
    FileStatus now = client.namespace().getStatus("/w-lost");
    assertEquals("2..5", now.holes().toString());
    // chunk 1 is not a hole: a target that no longer has it is data lost, never zeros
    String t = f.layout().targets().get(1 % f.layout().stripeCount());
    client.chunks().delete(t, f.id(), 1, now.generation());
    try (PfsInputStream in = client.open("/w-lost")) {
      byte[] back = new byte[SMALL];
      in.readFully(4L * SMALL, ByteBuffer.wrap(back)); // a hole still reads
      assertArrayEquals(new byte[SMALL], back);
      ClientException e = assertThrows(ClientException.class,
          () -> in.readFully(SMALL, ByteBuffer.wrap(back)));
      assertEquals(ClientStatus.DATA_LOST, e.status());
    }
  }

  @Test
  void pastTheMostHoleRangesAnExtensionStoresZerosAndIsRefusedWhenTheyCannotFit()
      throws IOException {
    byte[] start = random(3 * SMALL + 11, 21);
    FileStatus f = create("/w-huge", start, SMALL_CHUNKS);
    List<Long> written = new ArrayList<>();
    try (PfsFileWriter w = client.openWriter("/w-huge")) {
      // Past the layout's last chunk index (2^24 chunks of 64 KiB = 1 TiB).
      assertThrows(FileTooLargeException.class, () -> w.truncate(999_999_999_999_999L));
      // holes 4..399, then a byte in every other one: 4, 6, .. 398 holes of one chunk each
      long end = 400L * SMALL;
      w.truncate(end);
      for (long c = 5; c < 400 && holeRanges("/w-huge") < Holes.MAX_RANGES; c += 2) {
        written.add(c);
        w.write(c * SMALL, new byte[] {1}, 0, 1);
        w.flush();
      }
      w.write(end - 1, new byte[] {2}, 0, 1); // the last chunk stored: no hole at the end
      w.flush();
      assertEquals(Holes.MAX_RANGES, holeRanges("/w-huge"));
      int storedBefore = storedChunks(f).size();
      // up to the layout's most (1 TiB) of zeros, which cannot be holes now: refused before a
      // byte is stored, as more than one extension stores at once (it would run long)
      FileTooLargeException e = assertThrows(FileTooLargeException.class,
          () -> w.truncate(ChunkMap.of(SMALL_CHUNKS).maxLength()));
      assertTrue(e.getMessage().contains("its hole record is full"), e.getMessage());
      assertEquals(end, w.length());
      assertEquals(storedBefore, storedChunks(f).size(), "nothing stored for the refusal");
      // a small extension is stored as zeros, and the writer is not poisoned by the refusal
      w.truncate(end + 2L * SMALL);
      w.flush();
      assertEquals(storedBefore + 2, storedChunks(f).size());
    }
    byte[] model = new byte[402 * SMALL];
    System.arraycopy(start, 0, model, 0, start.length);
    for (long c : written) {
      model[(int) (c * SMALL)] = 1;
    }
    model[400 * SMALL - 1] = 2;
    assertArrayEquals(model, read("/w-huge"));
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
    randomOperations(SMALL_CHUNKS, 3);
  }

  /** The same with ec:2+1 (holes are whole groups) and mirror:2 (holes have no copies). */
  @Test
  void randomOperationsMatchAModelAcrossNodes() throws IOException {
    randomOperations(SMALL_CHUNKS.withAcross(Across.ec(2, 1)), 2);
    randomOperations(SMALL_CHUNKS.withAcross(Across.mirror(2)), 2);
  }

  private void randomOperations(Layout layout, int seeds) throws IOException {
    ClientConfig small = cluster.clientConfig().writeBufferBytes(2L * SMALL).build();
    for (long seed = 1; seed <= seeds; seed++) {
      Random r = new Random(seed);
      String path = "/w-random-" + layout.across() + "-" + seed;
      byte[] model = random(r.nextInt(4 * SMALL), seed * 31);
      int len = model.length;
      model = Arrays.copyOf(model, 12 * SMALL);
      try (ParityClient c = ParityClient.connect(small, Caller.of("root"))) {
        try (PfsOutputStream out = c.create(path,
            CreateOptions.file().withLayout(layout))) {
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
        FileStatus f = c.namespace().getStatus(path);
        assertEquals(f.length(), c.lengthProbe().length(f), "seed " + seed);
        // nothing is stored for a hole, and every group outside the holes is
        for (long[] chunk : storedChunks(f)) {
          long g = ChunkMap.of(layout).isParity((int) chunk[0])
              ? (chunk[0] - ChunkMap.PARITY_BASE) / Math.max(1, layout.across().parity())
              : ChunkMap.of(layout).group(chunk[0]);
          assertTrue(!f.holes().contains(g), "chunk " + chunk[0] + " stored in a hole " + f);
        }
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
    assertEquals("6", now.holes().toString()); // chunk 6 was never written
    assertEquals(now.length(), client.lengthProbe().length(now));
    assertTrue(storedChunks(f).stream().allMatch(c -> c[0] <= 6));
  }
}
