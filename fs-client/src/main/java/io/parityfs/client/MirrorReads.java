package io.parityfs.client;

import io.parityfs.node.protocol.ChunkStat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read of a {@code mirror:N} chunk (docs/across-nodes.md §4): from the first copy that
 * answers, in the order given (healthy copies first), while the other healthy copies' stats are
 * asked in parallel; when one that answers by the end of the read (or 20 ms) holds a newer
 * version (a higher group tag: writer generation, then sequence), the range is read from it
 * instead. Copies differ only where a write failed
 * before its acknowledgement (the copies an acknowledged write left out are in the repair
 * record and never asked), so every reader takes the newest copy and two readers never see two
 * versions of the same bytes.
 */
final class MirrorReads {
  private static final Logger LOG = LoggerFactory.getLogger(MirrorReads.class);

  private MirrorReads() {}

  static int read(ChunkIo io, long fileId, int index, long offset, ByteBuffer dst,
      List<String> order) throws IOException {
    Map<String, CompletableFuture<Optional<ChunkStat>>> stats = new LinkedHashMap<>();
    long begin = System.nanoTime();
    for (String t : order.subList(1, order.size())) {
      if (!io.healthy(t)) {
        continue; // known down or suspect: not asked, as it would not be read
      }
      stats.put(t, CompletableFuture.supplyAsync(() -> {
        try {
          return io.statMember(t, fileId, index);
        } catch (IOException e) {
          return Optional.<ChunkStat>empty(); // it cannot be read either: not a candidate
        }
      }, io.fanOut()));
    }
    IOException failed = null;
    for (String target : order) {
      ByteBuffer into = dst.duplicate();
      Optional<ChunkStat> got;
      try {
        got = io.readMember(target, fileId, index, offset, into);
        if (got.isEmpty()) {
          // missing there: read as a plain copy, which fails as every chunk read does for a
          // missing chunk (callers tell "none stored yet" from it), or reads a chunk just made
          int n = io.readCopy(target, fileId, index, offset, into);
          dst.position(into.position());
          return n;
        }
      } catch (ClientException e) {
        if (!ChunkIo.servedElsewhere(e)) {
          throw e;
        }
        io.noteFailure(target, e);
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
        LOG.info("chunk {} of file {}: copy on target {} failed"
            + " ({}); reading another copy", index, fileId, target, e.getMessage());
        continue;
      }
      // a stat still unanswered once the read is done, plus a little, is not waited for: a
      // slow node must not slow every read of its chunks
      long patience = Math.max(TimeUnit.MILLISECONDS.toNanos(20), System.nanoTime() - begin);
      String newer = newest(stats, target, got.get(), System.nanoTime() + patience);
      if (newer != null) {
        ByteBuffer again = dst.duplicate();
        try {
          Optional<ChunkStat> n = io.readMember(newer, fileId, index, offset, again);
          if (n.isPresent() && newerThan(n.get(), got.get())) {
            into = again;
          }
        } catch (ClientException e) {
          LOG.info("chunk {} of file {}: the newer copy on {}"
              + " failed ({}); keeping the one read", index, fileId, newer, e.getMessage());
        }
      }
      int n = into.position() - dst.position();
      dst.position(into.position());
      return n;
    }
    throw failed;
  }

  /** The copy other than {@code read} whose stat is newer than {@code seen}, else null. */
  private static String newest(Map<String, CompletableFuture<Optional<ChunkStat>>> stats,
      String read, ChunkStat seen, long deadline) {
    String best = null;
    ChunkStat bestStat = seen;
    for (Map.Entry<String, CompletableFuture<Optional<ChunkStat>>> e : stats.entrySet()) {
      if (e.getKey().equals(read)) {
        continue;
      }
      Optional<ChunkStat> s;
      try {
        s = e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException ex) {
        continue;
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        break;
      }
      if (s.isPresent() && newerThan(s.get(), bestStat)) {
        best = e.getKey();
        bestStat = s.get();
      }
    }
    return best;
  }

  /**
   * Whether copy {@code a} is a later write than {@code b}: by generation, then by the whole
   * sequence. Not {@link io.parityfs.node.protocol.RoundTag#newerThan}: a mirror chunk's
   * sequence is a plain counter, one a write, so its low bits order writes as well.
   */
  private static boolean newerThan(ChunkStat a, ChunkStat b) {
    return a.generation() != b.generation() ? a.generation() > b.generation()
        : a.sequence() > b.sequence();
  }
}
