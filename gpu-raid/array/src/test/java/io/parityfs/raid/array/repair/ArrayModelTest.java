package io.parityfs.raid.array.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.Fault.Op;
import io.parityfs.raid.array.drive.Fault;
import io.parityfs.raid.array.drive.FaultyDrive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.DrivePlacement;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.array.format.ShardFormat;
import io.parityfs.raid.array.object.ArrayFixtures;
import io.parityfs.raid.array.object.ManifestFile;
import io.parityfs.raid.array.object.ObjectFiles;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ObjectWriter;
import io.parityfs.raid.array.object.StoreOptions;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A randomized model test of the object store: random writes (whole and streamed, some aborted),
 * overwrites, appends, deletes, range reads, bit flips on disk (in shard cells, CRC table entries
 * and manifests), drive failures (vanished, failing every call, taken out by the admin), rebuilds
 * onto fresh drives, scrubs, garbage collections and restarts (with other I/O options), each
 * checked against an in-memory model of the committed objects. A run ends with every failed slot
 * rebuilt, a restart and a garbage collection; then every object reads back, every other id is
 * absent, a first scrub repairs what is left, a second is clean, and the drives hold exactly the
 * files of the latest versions, with no temp file. Every random choice comes from one seeded {@link Random}, so a failure replays with
 * its seed: {@code -Dparityfs.model.seeds=<seed>}; {@code -Dparityfs.model.ops=<n>} makes longer
 * runs (default {@value #DEFAULT_OPS} operations per run).
 *
 * <p>Within the protection's tolerance (failed slots plus corrupt cells of any one stripe at most
 * m; mirror: copies - 1) every operation must succeed and every read return the model's bytes.
 * Beyond it, a read returns the model's bytes or fails with OBJECT_LOST (never wrong bytes; or
 * OBJECT_NOT_FOUND once no live drive holds a manifest of the object), and a write succeeds (and
 * reads back) or is refused with NOT_ENOUGH_DRIVES or OBJECT_LOST, leaving the model as it was.
 *
 * <p>Two tests at the top pin what the model runs found (now fixed): a drive failing during a
 * delete or a garbage collection used to end the call with DRIVE_IO instead of being left out.
 */
class ArrayModelTest {
  private static final int CELL = 4096;
  /** The longest object a whole write makes. */
  private static final int MAX_WRITE = 200 << 10;
  /** The longest object an overwrite or append makes. */
  private static final int MAX_LENGTH = 256 << 10;
  private static final int IDS = 16;
  private static final int DEFAULT_OPS = 150;
  private static final int OPS = Integer.getInteger("parityfs.model.ops", DEFAULT_OPS);
  private static final List<Long> SEEDS = Arrays.stream(
      System.getProperty("parityfs.model.seeds", "11,23,37").split(","))
      .map(String::trim).map(Long::parseLong).toList();
  private static final List<Arguments> GEOMETRIES = List.of(
      Arguments.of("raid5:3+1", 6), Arguments.of("raid6:4+2", 8), Arguments.of("rs:5+3", 9),
      Arguments.of("mirror:3", 5));

  @TempDir Path root;

  static Stream<Arguments> runs() {
    return GEOMETRIES.stream().flatMap(g -> SEEDS.stream()
        .map(seed -> Arguments.of(g.get()[0], g.get()[1], seed)));
  }

  static Stream<Arguments> runsBeyond() {
    return GEOMETRIES.stream().flatMap(g -> SEEDS.stream().limit(2)
        .map(seed -> Arguments.of(g.get()[0], g.get()[1], seed)));
  }

  @ParameterizedTest(name = "{0} on {1} drives, seed {2}")
  @MethodSource("runs")
  void randomOperationsWithinTheToleranceMatchTheModel(String protection, int drives, long seed)
      throws IOException {
    try (ModelRun run = new ModelRun(root, protection, drives, seed, false)) {
      run.run(OPS);
    }
  }

  @ParameterizedTest(name = "{0} on {1} drives, seed {2}")
  @MethodSource("runsBeyond")
  void beyondTheToleranceNothingReadsWrong(String protection, int drives, long seed)
      throws IOException {
    try (ModelRun run = new ModelRun(root, protection, drives, seed, true)) {
      run.run(OPS);
    }
  }

  /**
   * A drive that fails during a delete (the store had not noticed it was gone) must be left out,
   * as a write leaves it out, and the delete go on: raid5:3+1 tolerates one drive. Found by the
   * model runs (a delete right after a drive of the object's placement vanished).
   */
  @Test
  void deleteGoesOnWithoutADriveThatFailsDuringIt() throws IOException {
    ArrayConfig c = ArrayConfig.builder().protection(Protection.parse("raid5:3+1"))
        .cellSize(CELL).maxObjectSize(1 << 20).build();
    long id = 0x0123456789abcdefL;
    int[] placement = DrivePlacement.of(4, 4).drivesFor(id);
    FaultyDrive[] d = new FaultyDrive[4];
    for (int s = 0; s < 4; s++) {
      d[s] = new FaultyDrive(FileDrive.open(Files.createDirectories(root.resolve("d" + s)),
          Drive.IoMode.BUFFERED), s);
    }
    try (ObjectStore store = ArrayFixtures.store(c, d, CpuParityCodec.create(
        ((Protection.Parity) c.protection()).geometry()), new StoreOptions(2 * CELL, 2, 2))) {
      byte[] data = new byte[5 * CELL + 7];
      new Random(1).nextBytes(data);
      store.write(id, new ByteArrayInputStream(data), data.length);
      d[placement[0]].disappear();

      boolean deleted = store.delete(id); // LIST of the vanished drive fails: left out

      assertTrue(deleted);
      assertEquals(1L << placement[0], store.failedSlots());
      assertEquals(Optional.empty(), store.stat(id));
    }
  }

  /**
   * A drive that fails during a garbage collection must be marked failed and left out, as a
   * scrub or a rebuild leaves it out, not end the collection (found by the model runs).
   */
  @Test
  void garbageCollectionGoesOnWithoutADriveThatFailsDuringIt() throws IOException {
    ArrayConfig c = ArrayConfig.builder().protection(Protection.parse("raid5:3+1"))
        .cellSize(CELL).maxObjectSize(1 << 20).build();
    long id = 0x0123456789abcdefL;
    FaultyDrive[] d = new FaultyDrive[4];
    for (int s = 0; s < 4; s++) {
      d[s] = new FaultyDrive(FileDrive.open(Files.createDirectories(root.resolve("d" + s)),
          Drive.IoMode.BUFFERED), s);
    }
    try (ObjectStore store = ArrayFixtures.store(c, d, CpuParityCodec.create(
        ((Protection.Parity) c.protection()).geometry()), new StoreOptions(2 * CELL, 2, 2))) {
      byte[] data = new byte[5 * CELL + 7];
      new Random(1).nextBytes(data);
      store.write(id, new ByteArrayInputStream(data), data.length);
      store.write(id, new ByteArrayInputStream(data), data.length);
      d[2].disappear();

      store.collectGarbage(); // LIST of the vanished drive fails: left out

      assertEquals(1L << 2, store.failedSlots());
      ByteBuffer back = ByteBuffer.allocate(data.length);
      assertEquals(data.length, store.read(id, 0, back));
      assertTrue(Arrays.equals(data, back.array()));
    }
  }

  /** One run: the store, its drives, the model and the random source. */
  private static final class ModelRun implements Closeable {
    private static final StoreOptions[] OPTIONS = {
        new StoreOptions(2 * CELL, 2, 2), new StoreOptions(CELL, 1, 1),
        new StoreOptions(3 * CELL, 3, 2)};

    private final Path root;
    private final String protection;
    private final int slots;
    private final long seed;
    /** Whether failures may exceed the tolerance. */
    private final boolean beyond;
    private final ArrayConfig config;
    private final ParityCodec codec;
    private final int tolerates;
    private final int stripeBytes;
    private final DrivePlacement placement;
    private final Random r;
    private final long[] ids = new long[IDS];
    private final Path[] dirs;
    private final Drive.IoMode[] modes;
    private final FaultyDrive[] drives;
    private ObjectStore store;

    /** The committed objects: id to bytes. */
    private final Map<Long, byte[]> model = new TreeMap<>();
    /** Slots the model counts as failed (the store may not have noticed yet). */
    private final Set<Integer> failed = new TreeSet<>();
    /** Flipped bits not known to be repaired: object, stripe, slots of the flipped shards. */
    private final Map<Long, Map<Integer, Set<Integer>>> corrupt = new HashMap<>();
    /** Beyond the tolerance: objects that may have become unreadable since their last write. */
    private final Set<Long> mayBeLost = new HashSet<>();
    /**
     * The live slots holding the manifest of each object's latest version: the placement's live
     * slots at the commit, less those failed since, plus those a rebuild restored the object on.
     * Empty (beyond the tolerance): no drive knows the object any more, it is OBJECT_NOT_FOUND.
     */
    private final Map<Long, Set<Integer>> manifests = new HashMap<>();
    /** Slots whose manifest of the object's latest version has a flipped bit. */
    private final Map<Long, Set<Integer>> badManifests = new HashMap<>();
    private final Deque<String> history = new ArrayDeque<>();
    /** What the run did, for its summary line: operation or outcome to count. */
    private final Map<String, Integer> tally = new TreeMap<>();
    private int op;
    private int freshDrives;

    ModelRun(Path root, String protection, int slots, long seed, boolean beyond)
        throws IOException {
      this.root = root;
      this.protection = protection;
      this.slots = slots;
      this.seed = seed;
      this.beyond = beyond;
      this.config = ArrayConfig.builder().protection(Protection.parse(protection)).cellSize(CELL)
          .maxObjectSize(1 << 20).build();
      this.codec = config.protection() instanceof Protection.Parity p
          ? CpuParityCodec.create(p.geometry()) : null;
      this.tolerates = config.protection().tolerates();
      int width = config.protection().width();
      this.stripeBytes = CELL * (codec == null ? 1 : width - tolerates);
      this.placement = DrivePlacement.of(slots, width);
      this.r = new Random(seed);
      for (int i = 0; i < IDS; i++) {
        ids[i] = 0x9e3779b97f4a7c15L * (i + 1); // spread over placements, half of them "negative"
      }
      this.dirs = new Path[slots];
      this.modes = new Drive.IoMode[slots];
      this.drives = new FaultyDrive[slots];
      for (int s = 0; s < slots; s++) {
        dirs[s] = Files.createDirectories(root.resolve("d" + s));
        modes[s] = r.nextBoolean() ? Drive.IoMode.DIRECT : Drive.IoMode.BUFFERED;
      }
      open();
    }

    void run(int ops) throws IOException {
      try {
        for (op = 1; op <= ops; op++) {
          step();
          long unexpected = store.failedSlots() & ~mask(failed);
          assertEquals(0, unexpected, () -> ctx("the store failed slots the model did not"));
        }
        finish();
        System.out.printf("seed %d, %s on %d drives%s: %s%n", seed, protection, slots,
            beyond ? " beyond the tolerance" : "", tally);
      } catch (IOException | RuntimeException e) {
        throw new AssertionError(ctx("unexpected " + e), e);
      }
    }

    private void step() throws IOException {
      int roll = r.nextInt(100);
      if (roll < 14) {
        write();
      } else if (roll < 20) {
        streamWrite();
      } else if (roll < 30) {
        overwrite(false);
      } else if (roll < 36) {
        overwrite(true);
      } else if (roll < 42) {
        delete();
      } else if (roll < 56) {
        readRange();
      } else if (roll < 62) {
        readWhole(pickId());
      } else if (roll < 68) {
        flipBit();
      } else if (roll < 70) {
        flipManifestBit();
      } else if (roll < 77) {
        failDrive();
      } else if (roll < 83) {
        rebuildOne();
      } else if (roll < 87) {
        scrub();
      } else if (roll < 91) {
        log("collectGarbage");
        survivingUnnoticedFailures("collectGarbage", store::collectGarbage);
        badManifests.clear(); // rewritten on every live drive
      } else if (roll < 95) {
        restart();
      } else {
        invalidArguments();
      }
    }

    // ---- writes ----

    private void write() throws IOException {
      long id = pickId();
      byte[] data = bytes(randomLength());
      log("write " + hex(id) + " " + data.length + " bytes");
      long version;
      try {
        version = store.write(id, source(data), data.length);
      } catch (ArrayException e) {
        refused(id, e, false, "write");
        return;
      }
      committed(id, data, version, "write");
    }

    private void streamWrite() throws IOException {
      long id = pickId();
      byte[] data = bytes(randomLength());
      boolean abort = r.nextInt(5) == 0;
      log("stream " + hex(id) + " " + data.length + " bytes" + (abort ? ", abort" : ""));
      long version;
      try (ObjectWriter w = store.openWriter(id)) {
        for (int at = 0; at < data.length; ) {
          int n = Math.min(data.length - at, 1 + r.nextInt(3 * CELL));
          ByteBuffer b = r.nextBoolean() ? ByteBuffer.wrap(data, at, n)
              : ByteBuffer.allocateDirect(n).put(data, at, n).flip();
          w.write(b);
          assertFalse(b.hasRemaining(), () -> ctx("write(ByteBuffer) left bytes"));
          at += n;
        }
        assertEquals(data.length, w.length(), () -> ctx("writer length"));
        if (abort) {
          w.abort();
          checkObject(id, "after an aborted writer");
          return;
        }
        version = w.commit().version();
        assertEquals(w.version(), version, () -> ctx("commit's version"));
      } catch (ArrayException e) {
        refused(id, e, false, "stream");
        return;
      }
      committed(id, data, version, "stream");
    }

    /** An overwrite of a random range (offset up to the length), or an append. */
    private void overwrite(boolean append) throws IOException {
      long id = pickId();
      byte[] old = model.get(id);
      int length = old == null ? 0 : old.length;
      int offset = append ? length : r.nextInt(4) == 0 ? length : r.nextInt(length + 1);
      int n = r.nextInt(3) == 0 ? r.nextInt(CELL + 1) : r.nextInt(MAX_LENGTH - offset + 1);
      byte[] patch = bytes(n);
      String what = (append ? "append " : "overwrite ") + hex(id) + " at " + offset + " "
          + n + " bytes (length " + (old == null ? "absent" : length) + ")";
      log(what);
      if (old == null) {
        ArrayException e = assertThrows(ArrayException.class, append
            ? () -> store.append(id, source(patch), n)
            : () -> store.overwrite(id, offset, source(patch), n), () -> ctx(what));
        boolean allowed = e.error() == ArrayError.OBJECT_NOT_FOUND || beyond
            && e.error() == ArrayError.NOT_ENOUGH_DRIVES && failedIn(id) > tolerates;
        assertTrue(allowed, () -> ctx(what + ": " + e.getMessage()));
        checkObject(id, "after " + what);
        return;
      }
      long version;
      try {
        version = append ? store.append(id, source(patch), n)
            : store.overwrite(id, offset, source(patch), n);
      } catch (ArrayException e) {
        refused(id, e, true, what);
        return;
      }
      byte[] now = Arrays.copyOf(old, Math.max(length, offset + n));
      System.arraycopy(patch, 0, now, offset, n);
      committed(id, now, version, what);
    }

    /** A write that succeeded: the model takes it, and it reads back exactly. */
    private void committed(long id, byte[] data, long version, String what) throws IOException {
      assertTrue(failedIn(id) <= tolerates,
          () -> ctx(what + " succeeded with more placement slots failed than tolerated"));
      model.put(id, data);
      corrupt.remove(id);
      mayBeLost.remove(id);
      Set<Integer> holders = new TreeSet<>();
      for (int s : placement.drivesFor(id)) {
        if (!failed.contains(s)) {
          holders.add(s);
        }
      }
      manifests.put(id, holders);
      badManifests.remove(id);
      ObjectManifest m = store.stat(id).orElseThrow(() -> new AssertionError(ctx(what
          + ": no manifest after the commit")));
      assertEquals(version, m.version(), () -> ctx(what + ": stat's version"));
      assertEquals(data.length, m.objectLength(), () -> ctx(what + ": stat's length"));
      assertEquals(data.length, store.length(id), () -> ctx(what + ": length"));
      byte[] got = read(id, 0, data.length);
      assertSame(data, 0, got, what + ": read back");
    }

    /** A write that threw: allowed only beyond the tolerance, and the model stays. */
    private void refused(long id, ArrayException e, boolean readsOld, String what)
        throws IOException {
      boolean allowed = beyond && switch (e.error()) {
        case NOT_ENOUGH_DRIVES -> failedIn(id) > tolerates;
        case OBJECT_LOST -> readsOld && mayBeLost.contains(id);
        case OBJECT_NOT_FOUND -> readsOld && orphaned(id);
        default -> false;
      };
      if (!allowed) {
        throw new AssertionError(ctx(what + " failed: " + e.getMessage()), e);
      }
      history.addLast("  -> " + e.error());
      tally.merge("refused " + e.error(), 1, Integer::sum);
      checkObject(id, "after a refused write");
    }

    private void delete() throws IOException {
      long id = pickId();
      boolean existed = model.containsKey(id);
      log("delete " + hex(id) + (existed ? "" : " (absent)"));
      long before = store.failedSlots();
      boolean deleted = survivingUnnoticedFailures("delete " + hex(id), () -> store.delete(id));
      boolean retried = store.failedSlots() != before;
      if (!retried && (!existed || !orphaned(id))) {
        assertEquals(existed, deleted, () -> ctx("delete's result"));
      }
      model.remove(id);
      corrupt.remove(id);
      mayBeLost.remove(id);
      manifests.remove(id);
      badManifests.remove(id);
      checkObject(id, "after delete");
    }

    // ---- reads ----

    private void readRange() throws IOException {
      long id = pickId();
      byte[] data = model.get(id);
      if (data == null) {
        log("read " + hex(id) + " (absent)");
        checkObject(id, "read of an absent object");
        return;
      }
      int offset = r.nextInt(8) == 0 ? data.length : r.nextInt(data.length + 1);
      int left = data.length - offset;
      int cap = switch (r.nextInt(4)) {
        case 0 -> r.nextInt(Math.min(left, CELL) + 1);
        case 1 -> left + r.nextInt(CELL);
        default -> r.nextInt(left + 1);
      };
      String what = "read " + hex(id) + " at " + offset + " " + cap + " bytes (length "
          + data.length + ")";
      log(what);
      checkRead(id, offset, cap, what);
    }

    private void readWhole(long id) throws IOException {
      byte[] data = model.get(id);
      log("read " + hex(id) + " whole");
      if (data == null) {
        checkObject(id, "read of an absent object");
        return;
      }
      if (!orphaned(id)) {
        assertEquals(data.length, store.length(id), () -> ctx("length of " + hex(id)));
      }
      checkRead(id, 0, data.length, "read " + hex(id) + " whole");
    }

    /** Checks what the store says of {@code id} against the model (reads it whole). */
    private void checkObject(long id, String what) throws IOException {
      if (model.containsKey(id)) {
        checkRead(id, 0, model.get(id).length, what + ": read " + hex(id));
        return;
      }
      assertEquals(Optional.empty(), store.stat(id), () -> ctx(what + ": stat " + hex(id)));
      expectError(ArrayError.OBJECT_NOT_FOUND, () -> store.read(id, 0, ByteBuffer.allocate(1)),
          what + ": read " + hex(id));
      expectError(ArrayError.OBJECT_NOT_FOUND, () -> store.length(id), what + ": length");
    }

    /** Reads {@code cap} bytes at {@code offset}: the model's bytes, or an allowed failure. */
    private void checkRead(long id, int offset, int cap, String what) throws IOException {
      byte[] data = model.get(id);
      byte[] got;
      try {
        got = read(id, offset, cap);
      } catch (ArrayException e) {
        boolean allowed = beyond && (e.error() == ArrayError.OBJECT_LOST && mayBeLost.contains(id)
            || e.error() == ArrayError.OBJECT_NOT_FOUND && orphaned(id));
        if (!allowed) {
          throw new AssertionError(ctx(what + " failed: " + e.getMessage()), e);
        }
        tally.merge("read " + e.error(), 1, Integer::sum);
        return;
      }
      assertEquals(Math.min(cap, data.length - offset), got.length, () -> ctx(what + ": count"));
      assertSame(data, offset, got, what);
    }

    /** One read into a heap or direct buffer, at a random position in it. */
    private byte[] read(long id, long offset, int cap) throws IOException {
      int pad = r.nextInt(3) == 0 ? r.nextInt(100) : 0;
      ByteBuffer buf = r.nextBoolean() ? ByteBuffer.allocateDirect(pad + cap)
          : ByteBuffer.allocate(pad + cap);
      buf.position(pad);
      int n = store.read(id, offset, buf);
      assertEquals(pad + n, buf.position(), () -> ctx("read's buffer position"));
      byte[] out = new byte[n];
      buf.get(pad, out);
      return out;
    }

    private void assertSame(byte[] data, int offset, byte[] got, String what) {
      int diff = Arrays.mismatch(data, offset, offset + got.length, got, 0, got.length);
      if (diff >= 0) {
        throw new AssertionError(ctx(what + ": WRONG BYTES, first at object offset "
            + (offset + diff) + " of " + got.length + " read"));
      }
    }

    // ---- faults ----

    /** Flips one bit of a cell (or of its CRC entry) of a shard of a live slot, on disk. */
    private void flipBit() throws IOException {
      List<Long> present = new ArrayList<>(model.keySet());
      present.removeIf(id -> model.get(id).length == 0 || orphaned(id));
      if (present.isEmpty()) {
        log("skip flip: nothing to flip");
        return;
      }
      long id = present.get(r.nextInt(present.size()));
      ObjectManifest m = store.stat(id).orElseThrow(() -> new AssertionError(ctx("flip: no"
          + " manifest for " + hex(id))));
      int stripes = m.layout().stripes();
      int stripe = r.nextInt(stripes);
      int shard = r.nextInt(m.slots().size());
      int slot = m.slots().get(shard);
      Set<Integer> bad = corrupt.getOrDefault(id, Map.of()).getOrDefault(stripe, Set.of());
      if (failed.contains(slot) || bad.contains(slot)
          || !beyond && unavailable(id, stripe, slot) > tolerates) {
        log("skip flip " + hex(id) + " stripe " + stripe + " shard " + shard);
        return;
      }
      Path file = dirs[slot].resolve(ObjectFiles.shard(id, m.version(), shard));
      if (mayBeLost.contains(id) && !Files.exists(file)) {
        log("skip flip " + hex(id) + " shard " + shard + ": lost, not rebuilt");
        return;
      }
      assertTrue(Files.exists(file), () -> ctx("flip: " + file + " is missing"));
      boolean entry = r.nextInt(5) == 0;
      long at = entry ? ShardFormat.tableEntryOffset(CELL, stripes, stripe)
          + 4L * (stripe % ShardFormat.ENTRIES_PER_BLOCK) + r.nextInt(4)
          : ShardFormat.cellOffset(CELL, stripe) + r.nextInt(CELL);
      int bit = r.nextInt(8);
      log("flip " + hex(id) + " v" + m.version() + " stripe " + stripe + " shard " + shard
          + " (slot " + slot + ") " + (entry ? "CRC entry" : "cell") + " byte " + at + " bit "
          + bit);
      flip(file, at, bit);
      corrupt.computeIfAbsent(id, x -> new HashMap<>())
          .computeIfAbsent(stripe, x -> new HashSet<>()).add(slot);
      if (unavailable(id, stripe, -1) > tolerates) {
        mayBeLost.add(id);
      }
    }

    /**
     * Flips one bit of a manifest copy on disk, while enough good copies are left that the
     * tolerated failures cannot take them all: reads skip the bad copy (after a restart, when the
     * manifest is read again) and garbage collection rewrites it.
     */
    private void flipManifestBit() throws IOException {
      List<Long> present = new ArrayList<>(model.keySet());
      if (beyond || present.isEmpty()) {
        log("skip manifest flip");
        return;
      }
      long id = present.get(r.nextInt(present.size()));
      Set<Integer> good = new TreeSet<>(manifests.get(id));
      good.removeAll(badManifests.getOrDefault(id, Set.of()));
      if (good.size() - 1 <= tolerates) {
        log("skip manifest flip " + hex(id) + ": good copies on " + good);
        return;
      }
      List<Integer> candidates = new ArrayList<>(good);
      int slot = candidates.get(r.nextInt(candidates.size()));
      long version = store.stat(id).orElseThrow().version();
      Path file = dirs[slot].resolve(ObjectFiles.manifest(id, version));
      long at = r.nextInt((int) Files.size(file));
      int bit = r.nextInt(8);
      log("flip manifest " + hex(id) + " v" + version + " on slot " + slot + " byte " + at
          + " bit " + bit);
      flip(file, at, bit);
      badManifests.computeIfAbsent(id, x -> new HashSet<>()).add(slot);
    }

    private void flip(Path file, long at, int bit) throws IOException {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
          StandardOpenOption.WRITE)) {
        ByteBuffer b = ByteBuffer.allocate(1);
        assertEquals(1, ch.read(b, at), () -> ctx("flip: short file " + file));
        b.put(0, (byte) (b.get(0) ^ (1 << bit))).rewind();
        ch.write(b, at);
        ch.force(true);
      }
    }

    /** Fails a live drive: it vanishes, fails every call, or the admin takes it out. */
    private void failDrive() {
      List<Integer> live = new ArrayList<>();
      for (int s = 0; s < slots; s++) {
        if (!failed.contains(s) && (beyond || canFail(s))) {
          live.add(s);
        }
      }
      int cap = beyond ? tolerates + 1 : tolerates;
      if (failed.size() >= cap || live.isEmpty()) {
        log("skip fail: failed " + failed);
        return;
      }
      int slot = live.get(r.nextInt(live.size()));
      int how = r.nextInt(3);
      log("fail slot " + slot + (how == 0 ? ": vanishes" : how == 1 ? ": every call fails"
          : ": detached"));
      switch (how) {
        case 0 -> drives[slot].disappear();
        case 1 -> drives[slot].inject(Fault.error(Op.CREATE, Op.values()));
        default -> {
          store.detachDrive(slot);
          assertTrue((store.failedSlots() & (1L << slot)) != 0, () -> ctx("detached, not failed"));
        }
      }
      failed.add(slot);
      for (long id : model.keySet()) {
        if (failedIn(id) > tolerates || corruptBeyond(id, -1)) {
          mayBeLost.add(id);
        }
        manifests.get(id).remove(slot);
        badManifests.getOrDefault(id, new HashSet<>()).remove(slot);
      }
      // The flipped cells on the slot are now part of its failure, and its replacement is fresh.
      for (Map<Integer, Set<Integer>> stripes : corrupt.values()) {
        stripes.values().forEach(s -> s.remove(slot));
      }
    }

    /** Whether failing {@code slot} keeps every stripe with flipped cells within the tolerance. */
    private boolean canFail(int slot) {
      for (long id : corrupt.keySet()) {
        if (corruptBeyond(id, slot)) {
          return false;
        }
      }
      return true;
    }

    private boolean corruptBeyond(long id, int slot) {
      for (int stripe : corrupt.getOrDefault(id, Map.of()).keySet()) {
        if (unavailable(id, stripe, slot) > tolerates) {
          return true;
        }
      }
      return false;
    }

    /** Slots of {@code id}'s stripe that are failed or flipped, with {@code extra} (or -1). */
    private int unavailable(long id, int stripe, int extra) {
      Set<Integer> out = new HashSet<>(corrupt.getOrDefault(id, Map.of())
          .getOrDefault(stripe, Set.of()));
      for (int s : placement.drivesFor(id)) {
        if (failed.contains(s) || s == extra) {
          out.add(s);
        }
      }
      return out.size();
    }

    /** Whether no live drive holds a manifest of the object any more (beyond the tolerance). */
    private boolean orphaned(long id) {
      return manifests.getOrDefault(id, Set.of(0)).isEmpty();
    }

    private int failedIn(long id) {
      int n = 0;
      for (int s : placement.drivesFor(id)) {
        n += failed.contains(s) ? 1 : 0;
      }
      return n;
    }

    private interface StoreCall<T> {
      T call() throws IOException;
    }

    /** Runs a delete or a garbage collection: any error fails the run. */
    private <T> T survivingUnnoticedFailures(String what, StoreCall<T> call) throws IOException {
      try {
        return call.call();
      } catch (ArrayException e) {
        throw new AssertionError(ctx(what + " failed: " + e.getMessage()), e);
      }
    }

    // ---- background work ----

    private void rebuildOne() throws IOException {
      if (failed.isEmpty()) {
        log("skip rebuild: nothing failed");
        return;
      }
      List<Integer> f = new ArrayList<>(failed);
      rebuild(f.get(r.nextInt(f.size())));
    }

    /** Attaches a fresh empty drive to {@code slot} and rebuilds it. */
    private void rebuild(int slot) throws IOException {
      Path dir = Files.createDirectories(root.resolve("fresh" + freshDrives++));
      int batch = r.nextBoolean() ? Rebuilder.BATCH_BYTES : CELL * (1 + r.nextInt(3));
      log("rebuild slot " + slot + " onto " + dir.getFileName() + ", batch " + batch);
      modes[slot] = r.nextBoolean() ? Drive.IoMode.DIRECT : Drive.IoMode.BUFFERED;
      FaultyDrive d = new FaultyDrive(FileDrive.open(dir, modes[slot]), r.nextLong());
      store.attachDrive(slot, d);
      drives[slot] = d;
      dirs[slot] = dir;
      failed.remove(slot);
      RebuildProgress p = new Rebuilder(store, slot, batch).run();
      history.addLast("  -> " + p);
      assertEquals(RebuildProgress.State.DONE, p.state(), () -> ctx("rebuild: " + p));
      assertEquals(p.bytesTotal(), p.bytesDone(), () -> ctx("rebuild: " + p));
      if (!beyond) {
        assertTrue(p.complete(), () -> ctx("rebuild: " + p));
      }
      assertTrue(mayBeLost.containsAll(p.lostObjects()), () -> ctx("rebuild lost objects the"
          + " model did not allow: " + p));
      for (long id : model.keySet()) {
        if (orphaned(id)) {
          continue; // no drive knows it: the rebuild cannot see it
        }
        if (Arrays.stream(placement.drivesFor(id)).anyMatch(s -> s == slot)
            && !p.lostObjects().contains(id)) {
          manifests.get(id).add(slot);
        }
        if (mayBeLost.contains(id)) {
          continue;
        }
        ObjectManifest m = store.stat(id).orElseThrow(() -> new AssertionError(ctx("rebuild: "
            + hex(id) + " has no manifest")));
        int shard = m.slots().indexOf(slot);
        if (shard >= 0) {
          for (String name : List.of(ObjectFiles.shard(id, m.version(), shard),
              ObjectFiles.manifest(id, m.version()))) {
            assertTrue(Files.exists(dir.resolve(name)), () -> ctx("rebuild did not write "
                + name));
          }
        }
      }
    }

    private void scrub() {
      int batch = r.nextBoolean() ? Scrubber.DEFAULT_BATCH_BYTES : CELL * (1 + r.nextInt(4));
      log("scrub, batch " + batch);
      ScrubReport s = new Scrubber(store, batch).run();
      history.addLast("  -> " + s);
      tally.merge("scrub CRC errors", (int) s.crcErrors(), Integer::sum);
      checkScrub(s);
    }

    private void checkScrub(ScrubReport s) {
      assertFalse(s.cancelled(), () -> ctx("scrub: " + s));
      assertTrue(mayBeLost.containsAll(s.unrecoverableIds()), () -> ctx("scrub found objects"
          + " unrecoverable that the model did not allow: " + s));
      if (beyond) {
        return;
      }
      assertEquals(0, s.unrecoverableObjects(), () -> ctx("scrub: " + s));
      assertEquals(0, s.missingShards(), () -> ctx("scrub: " + s));
      assertTrue(s.allRepaired(), () -> ctx("scrub: " + s));
      assertEquals(model.size(), s.objectsScanned(), () -> ctx("scrub: objects scanned: " + s));
      long outstanding = corrupt.values().stream().flatMap(m -> m.values().stream())
          .mapToLong(Set::size).sum();
      assertTrue(s.crcErrors() <= outstanding, () -> ctx("scrub found " + s.crcErrors()
          + " CRC errors, only " + outstanding + " flipped cells are outstanding: " + s));
      assertTrue(s.parityMismatches() == 0, () -> ctx("scrub: parity mismatches: " + s));
      if (failed.isEmpty()) {
        assertEquals(0, s.unavailableShards(), () -> ctx("scrub: " + s));
      }
      corrupt.clear(); // every flipped cell on a live drive was found and rewritten
    }

    /** Closes the store and opens a new one over the same folders; failed slots stay absent. */
    private void restart() throws IOException {
      log("restart");
      tally.merge("cells repaired", (int) store.cellsRepaired(), Integer::sum);
      store.close();
      open();
      assertEquals(mask(failed), store.failedSlots(), () -> ctx("failed slots after restart"));
    }

    private void open() throws IOException {
      Drive[] d = new Drive[slots];
      for (int s = 0; s < slots; s++) {
        drives[s] = null;
        if (!failed.contains(s)) {
          drives[s] = new FaultyDrive(FileDrive.open(dirs[s], modes[s]), r.nextLong());
          d[s] = drives[s];
        }
      }
      store = ArrayFixtures.store(config, d, codec, OPTIONS[r.nextInt(OPTIONS.length)]);
    }

    /** Caller mistakes are refused and change nothing. */
    private void invalidArguments() throws IOException {
      long id = pickId();
      byte[] data = model.get(id);
      log("invalid arguments on " + hex(id));
      if (data == null || orphaned(id) || mayBeLost.contains(id)) {
        assertThrows(IllegalArgumentException.class,
            () -> store.write(id, source(new byte[0]), (1 << 20) + 1), () -> ctx("too long"));
        checkObject(id, "after a refused write");
        return;
      }
      int past = data.length + 1 + r.nextInt(CELL);
      assertThrows(IllegalArgumentException.class,
          () -> store.read(id, past, ByteBuffer.allocate(10)), () -> ctx("read past the end"));
      assertThrows(IllegalArgumentException.class,
          () -> store.overwrite(id, past, source(new byte[3]), 3),
          () -> ctx("overwrite past the end"));
      assertThrows(IllegalArgumentException.class,
          () -> store.overwrite(id, 0, source(new byte[0]), (1 << 20) + 1),
          () -> ctx("overwrite beyond the maximum size"));
      checkObject(id, "after refused calls");
    }

    // ---- the end ----

    /**
     * Rebuilds every failed slot, restarts, collects garbage; then every object reads back, every
     * other id is absent, a scrub repairs what is left and a second one is clean, and the drives
     * hold exactly the files of the latest versions.
     */
    private void finish() throws IOException {
      history.addLast("---- finish ----");
      for (int slot : new ArrayList<>(failed)) {
        rebuild(slot);
      }
      restart();
      assertEquals(0, store.failedSlots(), () -> ctx("failed slots after the rebuilds"));
      log("collectGarbage");
      store.collectGarbage();
      for (long id : ids) {
        readWhole(id);
      }
      log("scrub");
      ScrubReport first = new Scrubber(store).run();
      history.addLast("  -> " + first);
      checkScrub(first);
      if (!beyond) {
        assertEquals(0, first.unavailableShards(), () -> ctx("scrub: " + first));
        assertEquals(0, first.driveErrors(), () -> ctx("scrub: " + first));
      }
      log("scrub again");
      ScrubReport second = new Scrubber(store).run();
      history.addLast("  -> " + second);
      checkScrub(second);
      if (!beyond) {
        assertTrue(second.clean(), () -> ctx("second scrub: " + second));
      }
      checkFiles();
    }

    /** No temp files; only files of model objects; within the tolerance, exactly their files. */
    private void checkFiles() throws IOException {
      Map<Integer, Set<String>> expected = new HashMap<>();
      for (long id : model.keySet()) {
        if (beyond) {
          continue;
        }
        ObjectManifest m = store.stat(id).orElseThrow();
        for (int i = 0; i < m.slots().size(); i++) {
          Set<String> e = expected.computeIfAbsent(m.slots().get(i), x -> new TreeSet<>());
          e.add(ObjectFiles.shard(id, m.version(), i));
          e.add(ObjectFiles.manifest(id, m.version()));
          ObjectManifest copy = ManifestFile.read(drives[m.slots().get(i)], id, m.version());
          assertEquals(List.of(m.objectLength(), m.slots()),
              List.of(copy.objectLength(), copy.slots()),
              () -> ctx("manifest of " + hex(id) + " after garbage collection"));
        }
      }
      for (int s = 0; s < slots; s++) {
        Set<String> found = new TreeSet<>();
        try (Stream<Path> l = Files.list(dirs[s])) {
          for (Path f : (Iterable<Path>) l::iterator) {
            String n = f.getFileName().toString();
            assertFalse(n.endsWith(".tmp"), () -> ctx("temp file left: " + f));
            ObjectFiles.tryParse(n).ifPresent(name -> {
              assertTrue(model.containsKey(name.objectId()), () -> ctx("file of an object not"
                  + " in the model: " + f));
              found.add(n);
            });
          }
        }
        if (!beyond) {
          int slot = s;
          assertEquals(expected.getOrDefault(s, Set.of()), found,
              () -> ctx("object files on slot " + slot));
        }
      }
    }

    @Override
    public void close() throws IOException {
      store.close();
    }

    // ---- helpers ----

    private long pickId() {
      return ids[r.nextInt(IDS)];
    }

    private int randomLength() {
      return switch (r.nextInt(10)) {
        case 0 -> 0;
        case 1, 2 -> 1 + r.nextInt(CELL);
        case 3 -> stripeBytes * (1 + r.nextInt(4));
        case 4, 5 -> 1 + r.nextInt(3 * stripeBytes);
        default -> 1 + r.nextInt(MAX_WRITE);
      };
    }

    private byte[] bytes(int n) {
      byte[] b = new byte[n];
      r.nextBytes(b);
      return b;
    }

    /** A channel over {@code data}: a stream's, or one returning short reads. */
    private ReadableByteChannel source(byte[] data) {
      if (r.nextBoolean()) {
        return Channels.newChannel(new ByteArrayInputStream(data));
      }
      int chunk = 1 + r.nextInt(3 * CELL);
      return new ReadableByteChannel() {
        private int at;

        @Override
        public int read(ByteBuffer dst) {
          if (at == data.length) {
            return -1;
          }
          int n = Math.min(chunk, Math.min(dst.remaining(), data.length - at));
          dst.put(data, at, n);
          at += n;
          return n;
        }

        @Override
        public boolean isOpen() {
          return true;
        }

        @Override
        public void close() {}
      };
    }

    private void expectError(ArrayError want, Executable call, String what) {
      ArrayException e = assertThrows(ArrayException.class, call,
          () -> ctx(what + ": expected " + want));
      assertEquals(want, e.error(), () -> ctx(what + ": " + e.getMessage()));
    }

    private void log(String what) {
      tally.merge(what.split("[ :,]")[0], 1, Integer::sum);
      history.addLast("#" + op + " " + what);
      while (history.size() > 40) {
        history.removeFirst();
      }
    }

    private static long mask(Set<Integer> slots) {
      long m = 0;
      for (int s : slots) {
        m |= 1L << s;
      }
      return m;
    }

    private static String hex(long id) {
      return String.format("%016x", id);
    }

    /** What every failure message starts with: how to replay it, and what led to it. */
    private String ctx(String what) {
      return String.format("%s%nseed %d, %s on %d drives%s, op %d of %d, failed slots %s;"
          + " replay: -Dparityfs.model.seeds=%d -Dparityfs.model.ops=%d%nlast operations:%n  %s",
          what, seed, protection, slots, beyond ? " beyond the tolerance" : "", op, OPS, failed,
          seed, OPS, String.join("\n  ", history));
    }
  }
}
