package io.parityfs.node.chunk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkStoreTest {
  private static final int CELL = 4096;
  private static final long MAX = 256 << 10;

  @TempDir Path dir;
  private ParityCodecFactory codecs;
  private RaidArray array;
  private ChunkStore store;
  private final Random random = new Random(42);

  @BeforeEach
  void open() throws IOException {
    List<Path> drives = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      drives.add(Files.createDirectory(dir.resolve("d" + i)));
    }
    codecs = ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
    ArrayConfig config = ArrayConfig.builder().geometry(CodecGeometry.parse("raid6:4+2"))
        .cellSize(CELL).maxObjectSize(MAX).build();
    array = RaidArray.create(config, drives, codecs, StoreOptions.DEFAULTS);
    store = new ChunkStore(array);
  }

  @AfterEach
  void close() throws IOException {
    array.close();
    codecs.close();
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private ChunkInfo write(ChunkId id, long offset, WriteMode mode, byte[] data) throws IOException {
    try (ChunkWriter w = store.openWrite(id, offset, mode)) {
      // in two pieces, to cross the writer's buffers unevenly
      int half = data.length / 3;
      w.write(ByteBuffer.wrap(data, 0, half));
      w.write(ByteBuffer.wrap(data, half, data.length - half));
      return w.commit();
    }
  }

  private byte[] readAll(ChunkId id) throws IOException {
    long length = store.stat(id).orElseThrow().length();
    ByteBuffer b = ByteBuffer.allocate((int) length);
    while (b.hasRemaining()) {
      assertTrue(store.read(id, b.position(), b) > 0);
    }
    return b.array();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = new byte[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  @Test
  void maxFileIdCoversEveryChunkAndFenceHeldAndIsFoundAgainWhenTheStoreReopens()
      throws IOException {
    assertEquals(0, store.maxFileId(), "a new target holds nothing");
    write(new ChunkId(7, 0), 0, WriteMode.CREATE, bytes(1000));
    assertEquals(7, store.maxFileId());
    store.raiseFence(30, 2); // lease recovery fences a file that has no chunk here
    write(new ChunkId(12, 1), 0, WriteMode.CREATE, bytes(1000));
    assertEquals(30, store.maxFileId());
    assertEquals(30, new ChunkStore(array).maxFileId(), "from the fence records, at a restart");
    long high = (1L << 39) + 5; // its object id has the top bit set
    write(new ChunkId(high, 3), 0, WriteMode.CREATE, bytes(1000));
    assertEquals(high, new ChunkStore(array).maxFileId(), "from the objects, at a restart");
  }

  @Test
  void aStreamedReadOfOneVersionIsRefusedOnceAWriteReplacedIt() throws IOException {
    ChunkId id = new ChunkId(9, 0);
    byte[] first = bytes(40_000);
    ChunkInfo v = write(id, 0, WriteMode.REPLACE, first);
    ByteBuffer b = ByteBuffer.allocate(10_000);
    assertEquals(10_000, store.read(id, v.version(), 0, b));
    assertArrayEquals(java.util.Arrays.copyOf(first, 10_000), b.array());
    write(id, 0, WriteMode.REPLACE, bytes(40_000)); // a write lands between two pieces
    ChunkStoreException e = assertThrows(ChunkStoreException.class,
        () -> store.read(id, v.version(), 10_000, ByteBuffer.allocate(10_000)));
    assertEquals(Status.CONFLICT, e.status());
  }

  @Test
  void chunkIdPacksFileAndIndexAndRefusesOutOfRange() {
    ChunkId id = new ChunkId(0x12_3456_789aL, 5);
    assertEquals(0x123456789a000005L, id.objectId());
    assertEquals(id, ChunkId.ofObjectId(id.objectId()));
    ChunkId top = new ChunkId(ChunkId.MAX_FILE_ID, ChunkId.MAX_CHUNK_INDEX);
    assertEquals(-1L, top.objectId());
    assertTrue(Long.compareUnsigned(top.objectId(), id.objectId()) > 0, "unsigned order");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ChunkId(1L << 40, 0));
    assertTrue(e.getMessage().contains(Long.toString(1L << 40)), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new ChunkId(-1, 0));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new ChunkId(1, 1 << 24));
    assertTrue(e.getMessage().contains(Integer.toString(1 << 24)), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new ChunkId(1, -1));
  }

  @Test
  void createThenReadRangesAndStat() throws IOException {
    ChunkId id = new ChunkId(7, 0);
    byte[] data = bytes(50_000); // several stripes, a partial last one
    ChunkInfo info = write(id, 0, WriteMode.CREATE, data);
    assertEquals(50_000, info.length());
    assertTrue(info.createdMillis() > 0);
    assertEquals(info, store.stat(id).orElseThrow());
    assertArrayEquals(data, readAll(id));
    for (int[] r : new int[][] {{0, 1}, {4095, 2}, {16_000, 20_000}, {49_999, 1}}) {
      ByteBuffer b = ByteBuffer.allocate(r[1]);
      assertEquals(r[1], store.read(id, r[0], b));
      byte[] expected = java.util.Arrays.copyOfRange(data, r[0], r[0] + r[1]);
      assertArrayEquals(expected, b.array(), "range " + r[0] + "+" + r[1]);
    }
    // a buffer larger than the rest reads up to the end; at the end, 0 bytes
    ByteBuffer tail = ByteBuffer.allocate(100);
    assertEquals(10, store.read(id, 49_990, tail));
    assertEquals(0, store.read(id, 50_000, ByteBuffer.allocate(10)));
    ChunkStoreException past = assertThrows(ChunkStoreException.class,
        () -> store.read(id, 50_001, ByteBuffer.allocate(1)));
    assertEquals(Status.INVALID_ARGUMENT, past.status());
  }

  @Test
  void createOfAnExistingChunkIsExistsAndKeepsTheOldContent() throws IOException {
    ChunkId id = new ChunkId(1, 1);
    byte[] data = bytes(9000);
    ChunkInfo first = write(id, 0, WriteMode.CREATE, data);
    ChunkStoreException e = assertThrows(ChunkStoreException.class,
        () -> store.openWrite(id, 0, WriteMode.CREATE));
    assertEquals(Status.ALREADY_EXISTS, e.status());
    assertEquals(first, store.stat(id).orElseThrow());
    assertArrayEquals(data, readAll(id));
    // the lock was released: a REPLACE goes through
    write(id, 0, WriteMode.REPLACE, bytes(10));
  }

  @Test
  void replaceTruncatesAndBumpsTheVersion() throws IOException {
    ChunkId id = new ChunkId(2, 3);
    ChunkInfo v1 = write(id, 0, WriteMode.REPLACE, bytes(40_000)); // REPLACE creates too
    byte[] shorter = bytes(1234);
    ChunkInfo v2 = write(id, 0, WriteMode.REPLACE, shorter);
    assertTrue(v2.version() > v1.version());
    assertEquals(1234, v2.length());
    assertArrayEquals(shorter, readAll(id));
    assertEquals(Status.INVALID_ARGUMENT, assertThrows(ChunkStoreException.class,
        () -> store.openWrite(id, 5, WriteMode.REPLACE)).status());
  }

  @Test
  void overwriteInsideAndPastTheEnd() throws IOException {
    ChunkId id = new ChunkId(3, 0);
    byte[] data = bytes(20_000);
    ChunkInfo v1 = write(id, 0, WriteMode.CREATE, data);
    byte[] patch = bytes(5000);
    ChunkInfo v2 = write(id, 7000, WriteMode.OVERWRITE, patch);
    System.arraycopy(patch, 0, data, 7000, patch.length);
    assertEquals(20_000, v2.length());
    assertTrue(v2.version() > v1.version());
    assertArrayEquals(data, readAll(id));
    byte[] past = bytes(6000); // from 18000 to 24000: grows the chunk
    ChunkInfo v3 = write(id, 18_000, WriteMode.OVERWRITE, past);
    byte[] expected = concat(java.util.Arrays.copyOf(data, 18_000), past);
    assertEquals(24_000, v3.length());
    assertArrayEquals(expected, readAll(id));
    assertEquals(Status.INVALID_ARGUMENT, assertThrows(ChunkStoreException.class,
        () -> store.openWrite(id, 24_001, WriteMode.OVERWRITE)).status());
    assertEquals(Status.INVALID_ARGUMENT, assertThrows(ChunkStoreException.class,
        () -> store.openWrite(id, -1, WriteMode.OVERWRITE)).status());
    assertEquals(Status.NOT_FOUND, assertThrows(ChunkStoreException.class,
        () -> store.openWrite(new ChunkId(3, 1), 0, WriteMode.OVERWRITE)).status());
  }

  @Test
  void appendAtTheEndOrAtTheExpectedLength() throws IOException {
    ChunkId id = new ChunkId(4, 9);
    byte[] a = bytes(5000);
    byte[] b = bytes(3000);
    byte[] c = bytes(4096);
    write(id, 0, WriteMode.CREATE, a);
    write(id, -1, WriteMode.APPEND, b);
    ChunkInfo info = write(id, 8000, WriteMode.APPEND, c);
    assertEquals(12_096, info.length());
    assertArrayEquals(concat(concat(a, b), c), readAll(id));
    ChunkStoreException stale = assertThrows(ChunkStoreException.class,
        () -> store.openWrite(id, 8000, WriteMode.APPEND)); // a retried append
    assertEquals(Status.CONFLICT, stale.status());
    assertTrue(stale.getMessage().contains("12096"), stale.getMessage());
    assertEquals(12_096, store.stat(id).orElseThrow().length(), "nothing appended twice");
    // a missing chunk: created by an append at -1 or 0, NOT_FOUND at any other offset
    assertEquals(Status.NOT_FOUND, assertThrows(ChunkStoreException.class,
        () -> store.openWrite(new ChunkId(4, 10), 5, WriteMode.APPEND)).status());
    assertTrue(store.stat(new ChunkId(4, 10)).isEmpty());
    write(new ChunkId(4, 10), -1, WriteMode.APPEND, b);
    write(new ChunkId(4, 11), 0, WriteMode.APPEND, c);
    assertArrayEquals(b, readAll(new ChunkId(4, 10)));
    assertArrayEquals(c, readAll(new ChunkId(4, 11)));

  }

  @Test
  void abortLeavesTheOldContentAndTooLargeIsInvalid() throws IOException {
    ChunkId id = new ChunkId(5, 0);
    byte[] data = bytes(3000);
    ChunkInfo v1 = write(id, 0, WriteMode.CREATE, data);
    try (ChunkWriter w = store.openWrite(id, 0, WriteMode.REPLACE)) {
      w.write(ByteBuffer.wrap(bytes(10_000)));
      w.abort();
    }
    assertEquals(v1, store.stat(id).orElseThrow());
    assertArrayEquals(data, readAll(id));
    try (ChunkWriter w = store.openWrite(id, 0, WriteMode.REPLACE)) {
      ChunkStoreException e = assertThrows(ChunkStoreException.class,
          () -> w.write(ByteBuffer.allocate((int) MAX + 1)));
      assertEquals(Status.INVALID_ARGUMENT, e.status());
      assertThrows(IllegalStateException.class, w::commit);
    }
    assertEquals(v1, store.stat(id).orElseThrow());
    assertEquals(MAX, store.maxChunkSize());
  }

  @Test
  void missingChunksAreNotFoundAndDeleteIsIdempotent() throws IOException {
    ChunkId id = new ChunkId(6, 2);
    assertTrue(store.stat(id).isEmpty());
    assertEquals(Status.NOT_FOUND, assertThrows(ChunkStoreException.class,
        () -> store.read(id, 0, ByteBuffer.allocate(1))).status());
    assertFalse(store.delete(id));
    write(id, 0, WriteMode.CREATE, bytes(100));
    assertTrue(store.delete(id));
    assertTrue(store.stat(id).isEmpty());
    assertEquals(Status.NOT_FOUND, assertThrows(ChunkStoreException.class,
        () -> store.read(id, 0, ByteBuffer.allocate(1))).status());
    assertFalse(store.delete(id));
    write(id, 0, WriteMode.CREATE, bytes(10)); // CREATE works again after a delete
  }

  @Test
  void listPagesInOrderPerFileAndOverall() throws IOException {
    List<ChunkId> all = new ArrayList<>();
    long bigFile = ChunkId.MAX_FILE_ID - 1; // object ids with the sign bit set sort last
    for (long file : new long[] {bigFile, 10, 11, 0x1_0000_0000L}) {
      for (int i = 0; i < 13; i++) {
        ChunkId id = new ChunkId(file, i * 1000 + (int) (file % 7));
        write(id, 0, WriteMode.CREATE, bytes(10 + i));
        all.add(id);
      }
    }
    store.delete(all.remove(5)); // deleted chunks are not listed
    all.sort((x, y) -> Long.compareUnsigned(x.objectId(), y.objectId()));
    List<ChunkId> listed = new ArrayList<>();
    ChunkId cursor = null;
    int pages = 0;
    do {
      ChunkPage page = store.list(OptionalLong.empty(), cursor, 7);
      assertTrue(page.chunks().size() <= 7);
      page.chunks().forEach(e -> listed.add(e.id()));
      cursor = page.next().orElse(null);
      pages++;
    } while (cursor != null);
    assertEquals(all, listed);
    assertEquals((all.size() + 6) / 7, pages, "no empty trailing page");
    List<ChunkId> ofFile = new ArrayList<>();
    cursor = null;
    do {
      ChunkPage page = store.list(OptionalLong.of(11), cursor, 5);
      for (ChunkEntry e : page.chunks()) {
        ofFile.add(e.id());
        assertEquals(store.stat(e.id()).orElseThrow(), e.info());
      }
      cursor = page.next().orElse(null);
    } while (cursor != null);
    assertEquals(all.stream().filter(c -> c.fileId() == 11).toList(), ofFile);
    assertTrue(store.list(OptionalLong.of(12), null, 5).chunks().isEmpty());
    assertThrows(IllegalArgumentException.class, () -> store.list(OptionalLong.empty(), null, 0));
    assertThrows(IllegalArgumentException.class,
        () -> store.list(OptionalLong.of(1L << 40), null, 1));
  }

  @Test
  void syncWaitsForCommitsInFlight() throws Exception {
    ChunkId id = new ChunkId(8, 0);
    ChunkWriter w = store.openWrite(id, 0, WriteMode.CREATE);
    w.write(ByteBuffer.wrap(bytes(100_000)));
    store.sync(); // nothing in flight: returns at once
    CountDownLatch committing = new CountDownLatch(1);
    AtomicBoolean committed = new AtomicBoolean();
    Thread t = new Thread(() -> {
      try {
        committing.countDown();
        w.commit();
        committed.set(true);
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    t.start();
    committing.await();
    t.join(); // the commit ran; a sync after it sees it durable
    store.sync();
    assertTrue(committed.get());
    assertEquals(100_000, store.stat(id).orElseThrow().length());
  }

  @Test
  void everyArrayErrorHasItsWireStatus() {
    for (ArrayError e : ArrayError.values()) {
      Status s = ChunkStoreException.statusOf(e); // a switch without default: compiler-checked
      assertTrue(s != Status.OK && s != Status.INTERNAL, e + " -> " + s);
    }
    assertEquals(Status.NOT_FOUND, ChunkStoreException.statusOf(ArrayError.OBJECT_NOT_FOUND));
    assertEquals(Status.NO_SPACE, ChunkStoreException.statusOf(ArrayError.NO_SPACE));
    assertEquals(Status.NOT_ENOUGH_DRIVES,
        ChunkStoreException.statusOf(ArrayError.NOT_ENOUGH_DRIVES));
    // a streamed read whose pinned version was replaced: "read again", as ReadStream documents
    assertEquals(Status.CONFLICT, ChunkStoreException.statusOf(ArrayError.VERSION_GONE));
    for (ArrayError e : List.of(ArrayError.OBJECT_LOST, ArrayError.CORRUPT_SHARD,
        ArrayError.CORRUPT_CELL, ArrayError.CORRUPT_MANIFEST)) {
      assertEquals(Status.OBJECT_LOST, ChunkStoreException.statusOf(e), e.name());
    }
    assertEquals(Status.DRIVE_IO, ChunkStoreException.statusOf(ArrayError.DRIVE_IO));
    assertEquals(Status.DRIVE_IO, ChunkStoreException.statusOf(ArrayError.IO_ERROR));
    // not a failed device: a drive offered that is not blank, foreign, in use, or newer data
    for (ArrayError e : List.of(ArrayError.NO_LABEL, ArrayError.CORRUPT_LABEL,
        ArrayError.UNSUPPORTED_VERSION, ArrayError.NOT_EMPTY, ArrayError.FOREIGN_DRIVE,
        ArrayError.STALE_DRIVE, ArrayError.DUPLICATE_SLOT, ArrayError.AMBIGUOUS_ARRAY,
        ArrayError.ARRAY_NOT_FOUND, ArrayError.INCONSISTENT_LABELS, ArrayError.DRIVE_IN_USE)) {
      assertEquals(Status.ILLEGAL_STATE, ChunkStoreException.statusOf(e), e.name());
    }
  }

  @Test
  void anArrayFailureOfAChunkCarriesItsWireStatus() {
    ChunkStoreException e = ChunkStore.translate(new ChunkId(1, 2),
        new ArrayException(ArrayError.NO_SPACE, null, "full"));
    assertEquals(Status.NO_SPACE, e.status());
    assertTrue(e.getMessage().startsWith("NO_SPACE: chunk "), e.getMessage());
    assertEquals(Status.INVALID_ARGUMENT, ChunkStore.translate(new ChunkId(1, 2),
        new IllegalArgumentException("x")).status());
    assertEquals(Status.DRIVE_IO, ChunkStore.translate(new ChunkId(1, 2),
        new IOException("x")).status());
  }
}
