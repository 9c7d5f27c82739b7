package io.parityfs.node.chunk;

import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.Status;
import io.parityfs.node.protocol.WriteMode;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.assembly.ArraySlot;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import io.parityfs.raid.array.format.ObjectManifest;
import io.parityfs.raid.array.format.RunningCrc;
import io.parityfs.raid.array.format.VersionTag;
import io.parityfs.raid.array.object.ObjectStore;
import io.parityfs.raid.array.object.ObjectWriter;
import io.parityfs.raid.array.object.PieceSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chunks of one storage target, kept as objects of its {@link RaidArray}: chunk {@code
 * (fileId, chunkIndex)} is object {@code fileId << 24 | chunkIndex} ({@link ChunkId}). What the
 * network layer serves; every failure is a {@link ChunkStoreException} carrying the wire
 * {@link Status} the node answers with (array errors mapped by {@link
 * ChunkStoreException#statusOf}).
 *
 * <p><b>Writes</b> ({@link #openWrite}) stream into a new object version that becomes visible
 * atomically at {@link ChunkWriter#commit}: a crash or a failure leaves the old content or the
 * new, never a mix, and parity is never updated in place. An overwrite or append rewrites the
 * whole chunk (bounded by the array's maximum object size, {@link #maxChunkSize()}); see
 * "Streaming writes, overwrite and append" in {@code docs/array.md}.
 *
 * <p><b>Durability.</b> A commit returns only after every shard and the manifest are fsynced, so
 * an acknowledged write is durable without any further call. {@link #sync()} is a barrier: it
 * returns when every commit and delete that had started before it has ended.
 *
 * <p><b>Fencing.</b> Every write and delete names the writer generation of the chunk's file
 * ({@link #openWrite(ChunkId, long, WriteMode, long)}, {@link #delete(ChunkId, long)}); an older
 * one than the file's fence is refused with {@link Status#STALE_GENERATION}, a newer one raises it
 * first (see {@link FenceTable}: durable on the drives, checked again at commit).
 *
 * <p><b>Listing</b> ({@link #list}) asks the array for the committed objects in the id range; see
 * there for the cost. Thread-safe; writes and deletes of one chunk are serialised by the array's
 * per-object lock, reads never wait.
 */
public final class ChunkStore {

  private final RaidArray array;
  private final ObjectStore objects;
  private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
  private final FenceTable fences;
  /** The highest file id this target holds a chunk or a fence of (see {@link #maxFileId}). */
  private final AtomicLong maxFileId;

  /** The chunks of {@code array}; the writer fences live on the array's drives. */
  public ChunkStore(RaidArray array) {
    this.array = array;
    this.objects = array.store();
    List<Path> drives = new ArrayList<>();
    for (ArraySlot s : array.labels().slots()) {
      if (s.drive() != null) {
        drives.add(s.drive());
      }
    }
    this.fences = new FenceTable(drives,
        array.labels().config().protection().tolerates() + 1);
    NavigableSet<Long> stored = objects.listObjects(0, -1L);
    long highest = stored.isEmpty() ? 0 : stored.last() >>> ChunkId.CHUNK_INDEX_BITS;
    this.maxFileId = new AtomicLong(Math.max(highest, fences.highestFencedFile()));
  }

  /**
   * The highest file id whose chunks or writer fence this target holds (or was asked to write),
   * 0 for none: found from the array's objects and fence records when the store opens, raised
   * by every write, fence and delete naming a higher one. The node advertises it in its target
   * record ({@code maxFileId}), and the namespace never hands out an id at or below it, so a
   * namespace rolled back by a ZooKeeper restore cannot give a new file these chunks' id.
   */
  public long maxFileId() {
    return maxFileId.get();
  }

  private void holds(long fileId) {
    maxFileId.accumulateAndGet(fileId, Math::max);
  }

  /** The file's writer fence on this target: the highest generation seen, 0 when none. */
  public long fence(long fileId) throws ChunkStoreException {
    return fences.generation(fileId);
  }

  /**
   * Raises the file's fence to {@code generation} (durably) unless it is there already.
   *
   * @throws ChunkStoreException STALE_GENERATION when the fence is higher already
   */
  public void raiseFence(long fileId, long generation) throws ChunkStoreException {
    holds(fileId);
    fences.admit(fileId, generation);
  }

  /** {@link #openWrite(ChunkId, long, WriteMode, long)} as writer generation 0. */
  public ChunkWriter openWrite(ChunkId id, long offset, WriteMode mode) throws ChunkStoreException {
    return openWrite(id, offset, mode, 0);
  }

  /** The largest chunk this target stores: the array's maximum object size. */
  public long maxChunkSize() {
    return objects.config().maxObjectSize();
  }

  /**
   * Starts a write of chunk {@code id} at {@code offset} (see {@link WriteMode}): CREATE and
   * REPLACE need offset 0; OVERWRITE an offset in 0..length; APPEND -1 or the current length (a
   * missing chunk is created by an APPEND at -1 or 0).
   * Waits while another write or a delete of the same chunk is in progress. The returned writer
   * must be committed or closed.
   *
   * {@code generation} is the writer generation of the chunk's file: refused when older than
   * the file's fence, raising it when newer (before anything is written), and checked again
   * at the commit.
   *
   * @throws ChunkStoreException ALREADY_EXISTS (CREATE), NOT_FOUND (OVERWRITE; APPEND at an
   *     offset > 0), CONFLICT (APPEND at an offset other than the length), INVALID_ARGUMENT (an
   *     offset out of range), NOT_ENOUGH_DRIVES, OBJECT_LOST (the kept bytes of an overwrite
   *     cannot be read), STALE_GENERATION (an older generation than the fence), DRIVE_IO
   */
  public ChunkWriter openWrite(ChunkId id, long offset, WriteMode mode, long generation)
      throws ChunkStoreException {
    return openWrite(id, offset, mode, generation, 0);
  }

  /**
   * {@link #openWrite(ChunkId, long, WriteMode, long)} with a group sequence: when it is not 0,
   * the new version is stored with the group tag (generation, sequence), atomically with it (in
   * its manifest), and {@link #stat} returns it (docs/across-nodes.md §3).
   */
  public ChunkWriter openWrite(ChunkId id, long offset, WriteMode mode, long generation,
      long sequence) throws ChunkStoreException {
    return openWrite(id, offset, mode, generation, sequence, generation);
  }

  /**
   * {@link #openWrite(ChunkId, long, WriteMode, long, long)} whose tag carries {@code
   * tagGeneration} (0..generation) instead of the writer generation: a repairer storing a member
   * of a round an earlier writer stored, with that round's exact tag (audit N1). The fence is
   * checked, and raised, with {@code generation}.
   */
  public ChunkWriter openWrite(ChunkId id, long offset, WriteMode mode, long generation,
      long sequence, long tagGeneration) throws ChunkStoreException {
    if (tagGeneration < 0 || tagGeneration > generation) {
      throw new ChunkStoreException(Status.INVALID_ARGUMENT, "chunk " + id + ": tag generation "
          + tagGeneration + " past the writer generation " + generation);
    }
    long oid = id.objectId();
    ObjectWriter w = null;
    boolean ok = false;
    try {
      holds(id.fileId());
      fences.admit(id.fileId(), generation);
      switch (mode) {
        case CREATE, REPLACE -> {
          requireOffset(id, mode, offset, offset == 0, "0");
          w = objects.openWriter(oid);
          if (mode == WriteMode.CREATE && objects.stat(oid).isPresent()) {
            throw new ChunkStoreException(Status.ALREADY_EXISTS, "chunk " + id + " exists");
          }
        }
        case OVERWRITE -> {
          requireOffset(id, mode, offset, offset >= 0, "0..length");
          w = objects.openRewrite(oid, offset);
        }
        case APPEND -> {
          requireOffset(id, mode, offset, offset >= -1, "-1 or the chunk's length");
          w = openAppend(id, offset);
        }
        default -> throw new IllegalArgumentException("mode (" + mode + ") unknown");
      }
      if (sequence != 0) {
        w.tag(new VersionTag(tagGeneration, sequence));
      }
      ok = true;
      return new ChunkWriter(this, id, w, generation);
    } catch (IOException | IllegalArgumentException e) {
      throw translate(id, e);
    } finally {
      if (!ok && w != null) {
        w.abort();
      }
    }
  }

  /**
   * Reads bytes of chunk {@code id} from {@code offset} into {@code into} (as many as fit, up to
   * the end of the chunk) and returns how many; {@code into}'s position advances by that much.
   * An offset equal to the length reads 0 bytes.
   *
   * @throws ChunkStoreException NOT_FOUND, INVALID_ARGUMENT (offset negative or past the end),
   *     OBJECT_LOST, DRIVE_IO
   */
  public int read(ChunkId id, long offset, ByteBuffer into) throws ChunkStoreException {
    try {
      return objects.read(id.objectId(), offset, into);
    } catch (IOException | IllegalArgumentException e) {
      throw translate(id, e);
    }
  }

  /**
   * Reads from version {@code version} (a {@link ChunkInfo#version()}) only; a streamed read
   * takes the version once and reads every piece from it, so it never mixes two versions.
   *
   * @throws ChunkStoreException CONFLICT when that version is no longer the chunk's committed
   *     one (a write or delete replaced it during the read)
   */
  public int read(ChunkId id, long version, long offset, ByteBuffer into)
      throws ChunkStoreException {
    try {
      return objects.read(id.objectId(), version, offset, into, null);
    } catch (IOException | IllegalArgumentException e) {
      throw translate(id, e);
    }
  }

  /**
   * {@link #read(ChunkId, long, long, ByteBuffer)} without a copy: up to {@code max} bytes go to
   * {@code sink} as views of the buffers the drives read them into ({@link ObjectStore#read(long,
   * long, long, int, PieceSink, RunningCrc)}), and their CRC32C is appended to {@code crc}: the
   * stored checksums of the whole cells read, for the frame that carries them. After an
   * exception, the caller releases what the sink was given.
   */
  public int read(ChunkId id, long version, long offset, int max, PieceSink sink, RunningCrc crc)
      throws ChunkStoreException {
    try {
      return objects.read(id.objectId(), version, offset, max, sink, crc);
    } catch (IOException | IllegalArgumentException e) {
      throw translate(id, e);
    }
  }

  /** The chunk's committed length, version and creation time, or empty when it does not exist. */
  public Optional<ChunkInfo> stat(ChunkId id) throws ChunkStoreException {
    try {
      return objects.stat(id.objectId()).map(ChunkStore::info);
    } catch (IOException e) {
      throw translate(id, e);
    }
  }

  /**
   * Deletes every version of the chunk; returns whether it existed. Durable when it returns
   * (manifests deleted and their directories fsynced first). Idempotent, so a retried delete
   * does not fail.
   */
  public boolean delete(ChunkId id) throws ChunkStoreException {
    return delete(id, -1);
  }

  /**
   * {@link #delete(ChunkId)} as writer {@code generation} of the chunk's file: refused
   * (STALE_GENERATION) when older than the file's fence, raising the fence first when newer,
   * also when the chunk does not exist (how lease recovery fences a file). {@code -1}: outside
   * any generation (the deletes of a removed file's chunks), neither refused nor raising.
   */
  public boolean delete(ChunkId id, long generation) throws ChunkStoreException {
    CompletableFuture<Void> op = begin();
    try {
      holds(id.fileId());
      if (generation >= 0) {
        fences.admit(id.fileId(), generation);
      }
      return fences.underFence(id.fileId(), generation < 0 ? Long.MAX_VALUE : generation, () -> {
        boolean existed = objects.stat(id.objectId()).isPresent();
        return objects.delete(id.objectId()) && existed;
      });
    } catch (IOException e) {
      throw translate(id, e);
    } finally {
      end(op);
    }
  }

  /**
   * One page of the chunks of file {@code fileId} (empty: of every file), ascending by (fileId,
   * chunkIndex), starting after {@code after} (null: from the start), at most {@code limit}.
   *
   * <p><b>Cost.</b> The array keeps no index: each call reads the directory of every live data
   * drive (one {@code readdir} each, O(files on the drive), matching the manifest names, for one
   * file only those under the file's id prefix, since a file's chunks are one object id range),
   * and then stats each chunk returned (served from the array's manifest cache once a chunk has
   * been read or written since the array opened; otherwise one listing of the chunk's placement
   * drives). Listing a file is what deletes and orphan collection need, not a hot path; listing
   * all chunks is for admin tools and orphan scans.
   *
   * @throws IllegalArgumentException when limit is not positive or fileId out of range
   */
  public ChunkPage list(OptionalLong fileId, ChunkId after, int limit) throws ChunkStoreException {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit (" + limit + ") must be positive");
    }
    long lo = 0;
    long hi = -1L;
    if (fileId.isPresent()) {
      long f = fileId.getAsLong();
      if (!ChunkId.validFileId(f)) {
        throw new IllegalArgumentException("fileId (" + f + ") must be in 0.." + ChunkId.MAX_FILE_ID);
      }
      lo = f << ChunkId.CHUNK_INDEX_BITS;
      hi = lo | ChunkId.MAX_CHUNK_INDEX;
    }
    NavigableSet<Long> ids = objects.listObjects(lo, hi);
    Iterable<Long> from = after == null ? ids : ids.tailSet(after.objectId(), false);
    List<ChunkEntry> page = new ArrayList<>();
    for (long oid : from) {
      ChunkId id = ChunkId.ofObjectId(oid);
      Optional<ChunkInfo> info = stat(id);
      if (info.isEmpty()) {
        continue; // deleted since listed, or only an old version's manifest left
      }
      if (page.size() == limit) {
        return new ChunkPage(page, Optional.of(page.get(limit - 1).id()));
      }
      page.add(new ChunkEntry(id, info.get()));
    }
    return new ChunkPage(page, Optional.empty());
  }

  /**
   * A barrier: returns when every commit and delete that had started before this call has ended.
   * Commits are already durable when they return (shards and manifest fsynced), so there is no
   * cache to flush; this only orders a sync after the writes a client still has in flight.
   */
  public void sync() throws ChunkStoreException {
    for (CompletableFuture<Void> op : List.copyOf(inFlight)) {
      try {
        op.join();
      } catch (RuntimeException ignored) {
        // the operation failed; its caller got the error
      }
    }
  }

  // ---- internals ----

  /**
   * The writer of an append: after the chunk's bytes when it exists (CONFLICT when {@code
   * expected} is not its length), a new chunk when it does not and {@code expected} is -1 or 0
   * (NOT_FOUND otherwise). Loops when the chunk appears or vanishes between the two looks.
   */
  private ObjectWriter openAppend(ChunkId id, long expected) throws IOException {
    long oid = id.objectId();
    while (true) {
      ObjectWriter w;
      try {
        w = objects.openRewrite(oid, -1);
      } catch (ArrayException e) {
        if (e.error() != ArrayError.OBJECT_NOT_FOUND) {
          throw e;
        }
        if (expected > 0) {
          throw new ChunkStoreException(Status.NOT_FOUND, "append to chunk " + id
              + " at offset " + expected + " but the chunk does not exist");
        }
        w = objects.openWriter(oid); // a new chunk, under the chunk's lock from here
        if (objects.stat(oid).isPresent()) {
          w.abort(); // created meanwhile: append to it
          continue;
        }
        return w;
      }
      if (expected >= 0 && expected != w.length()) {
        long length = w.length();
        w.abort();
        throw new ChunkStoreException(Status.CONFLICT, "append to chunk " + id
            + " at offset " + expected + " but its length is " + length);
      }
      return w;
    }
  }

  /**
   * Commits a writer of {@code generation}, counted as in flight for {@link #sync()}; refused
   * (STALE_GENERATION) when the file's fence was raised past it since the write was opened.
   */
  ChunkInfo commit(ChunkId id, ObjectWriter w, long generation) throws ChunkStoreException {
    CompletableFuture<Void> op = begin();
    try {
      return info(fences.underFence(id.fileId(), generation, w::commit));
    } catch (IOException | IllegalArgumentException e) {
      w.abort();
      throw translate(id, e);
    } finally {
      end(op);
    }
  }

  private CompletableFuture<Void> begin() {
    CompletableFuture<Void> op = new CompletableFuture<>();
    inFlight.add(op);
    return op;
  }

  private void end(CompletableFuture<Void> op) {
    inFlight.remove(op);
    op.complete(null);
  }

  private static ChunkInfo info(ObjectManifest m) {
    return new ChunkInfo(m.objectLength(), m.version(), m.created().toEpochMilli(),
        m.tag().generation(), m.tag().sequence());
  }

  private static void requireOffset(ChunkId id, WriteMode mode, long offset, boolean ok,
      String allowed) throws ChunkStoreException {
    if (!ok) {
      throw new ChunkStoreException(Status.INVALID_ARGUMENT, mode + " of chunk " + id
          + " at offset " + offset + ": the offset must be " + allowed);
    }
  }

  /** The chunk exception for any failure of an operation on {@code id}. */
  static ChunkStoreException translate(ChunkId id, Exception e) {
    if (e instanceof ChunkStoreException c) {
      return c;
    }
    if (e instanceof ArrayException a) {
      return ChunkStoreException.of(id, a);
    }
    if (e instanceof IllegalArgumentException) {
      return new ChunkStoreException(Status.INVALID_ARGUMENT, "chunk " + id + ": "
          + e.getMessage(), e);
    }
    return new ChunkStoreException(Status.DRIVE_IO, "chunk " + id + ": " + e, e);
  }
}
