package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.keeper.GroupCheck;
import io.parityfs.keeper.Repairer;
import io.parityfs.meta.Across;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The randomized model test of protection across nodes (issue 40 item 4): seeded sequences of
 * a sequential writer's writes, hflushes, closes and appends, the mount's writer's random
 * writes, truncates and flushes, writer kills (the writer's client ends, its lease is
 * recovered), node stops and restarts, catch-up and the keeper's check and hand-off, on an
 * {@code ec:2+1} file of three nodes. After every step, the committed bytes are read back by
 * another client and compared with an in-memory model of them, healthy and with each node
 * "down" in turn (M = 1: cut off from the reading client, {@link ChunkIo#cutOff}), or with the
 * node that is really stopped down. The bytes a killed writer never had acknowledged may come
 * back or not (lease recovery decides); what it decides must be the writer's bytes, and from
 * the seal that follows on, the same with any node down. A writer is killed once the uploads
 * it started have landed, so that a seed replays exactly; deaths between the member writes
 * of a round are {@link ErasureCodedTest}'s, each at a hook.
 *
 * <p>CI runs {@link #SEEDS} seeds of {@link #STEPS} steps. A failure prints its seed and the
 * steps so far; {@code -Dparityfs.model.seed=S} replays one seed, {@code
 * -Dparityfs.model.steps=N} and {@code -Dparityfs.model.seeds=N} run longer.
 */
class AcrossModelTest extends StripedClusterTest {
  static final Layout CODED = STRIPED.withAcross(Across.ec(2, 1));
  static final int SEEDS = Integer.getInteger("parityfs.model.seeds", 3);
  static final int STEPS = Integer.getInteger("parityfs.model.steps", 40);
  static final Long SEED = Long.getLong("parityfs.model.seed");
  /** The first of the {@link #SEEDS} seeds (a long run goes on from where one stopped). */
  static final long FIRST_SEED = Long.getLong("parityfs.model.firstSeed", 4000);
  /** Files stay below this length: a few groups, so steps stay quick. */
  static final int MAX_LENGTH = 5 * CHUNK;

  @BeforeAll
  static void makeDirectory() throws Exception {
    client.namespace().mkdirs("/model", CreateOptions.directory().withLayout(CODED));
  }

  @Test
  void committedBytesReadBackWithAnyNodeDownAfterEveryStep() throws Exception {
    List<Long> seeds = new ArrayList<>();
    if (SEED != null) {
      seeds.add(SEED);
    } else {
      for (int i = 0; i < SEEDS; i++) {
        seeds.add(FIRST_SEED + i);
      }
    }
    try (ParityClient checker = cluster.client(Caller.of("root"))) {
      for (long seed : seeds) {
        new Run(seed, checker).run();
      }
    }
  }

  /** One seed's sequence on its own file. */
  private final class Run {
    private final long seed;
    private final Random rnd;
    private final ParityClient checker;
    private final String path;
    private final List<String> steps = new ArrayList<>();
    /** The committed bytes; null before the file exists. */
    private byte[] committed;
    /** The open writer's bytes, committed or not (its view of the file). */
    private byte[] pending;
    private ParityClient writer;
    private PfsOutputStream stream;
    private PfsFileWriter random;
    private int stopped = -1;

    Run(long seed, ParityClient checker) {
      this.seed = seed;
      this.rnd = new Random(seed);
      this.checker = checker;
      this.path = "/model/f" + seed;
    }

    void run() throws Exception {
      int step = 0;
      try {
        for (; step < STEPS; step++) {
          String op = pick();
          steps.add(op);
          apply(op);
          check(op);
        }
        closeWriter();
        startNode();
        check("end");
      } catch (Throwable e) {
        throw new AssertionError("seed " + seed + " failed at step " + step + " (" + steps
            + "); replay with -Dparityfs.model.seed=" + seed + " -Dparityfs.model.steps="
            + STEPS + "; the file's members:\n" + dump(), e);
      } finally {
        if (writer != null) {
          writer.close();
        }
        checker.chunks().cutOff(Set.of());
        if (stopped >= 0) {
          cluster.restartNode(stopped);
          cluster.awaitTargets(3);
        }
      }
    }

    private String pick() throws IOException {
      int r = rnd.nextInt(100);
      // a node stops only while no member is in the file's repair record: a recorded member
      // is one lost already, and ec:2+1 promises readability with one lost, not two
      if (r < 6 && (stopped >= 0 || committed == null || recordEmpty())) {
        return stopped < 0 ? "stop" : "start";
      }
      if (stream != null) {
        if (pending.length > MAX_LENGTH) {
          return "close";
        }
        return r < 50 ? "write" : r < 72 ? "hflush" : r < 90 ? "close" : "kill";
      }
      if (random != null) {
        if (pending.length > MAX_LENGTH) {
          return "truncate";
        }
        return r < 45 ? "pwrite" : r < 58 ? "truncate" : r < 75 ? "flush" : r < 90 ? "close"
            : "kill";
      }
      if (committed == null) {
        return "create";
      }
      return r < 45 ? "append" : r < 75 ? "open" : r < 88 ? "repair" : "heal";
    }

    private void apply(String op) throws Exception {
      switch (op) {
        case "stop" -> {
          // by the target's place in the file's layout, not the node's in the cluster: the
          // placement of a seed's file depends on the files before it, its sequence must not
          // (before the file exists, by the node's place)
          int at = rnd.nextInt(3);
          stopped = committed == null ? at
              : nodeOf(checker.namespace().getStatus(path).layout().targets().get(at));
          cluster.stopNode(stopped);
        }
        case "start" -> startNode();
        case "create" -> {
          writer = cluster.client(Caller.of("root"));
          stream = writer.create(path, CreateOptions.file());
          pending = new byte[0];
          committed = new byte[0];
        }
        case "append" -> {
          writer = cluster.client(Caller.of("root"));
          stream = writer.append(path);
          pending = committed.clone();
        }
        case "open" -> {
          writer = cluster.client(Caller.of("root"));
          random = writer.openWriter(path);
          pending = committed.clone();
        }
        case "write" -> {
          byte[] b = bytes(1 + rnd.nextInt(3 * CHUNK / 2));
          stream.write(b);
          pending = concat(pending, b);
        }
        case "pwrite" -> {
          int at = rnd.nextInt(pending.length + CHUNK / 2 + 1);
          byte[] b = bytes(1 + rnd.nextInt(CHUNK));
          random.write(at, b, 0, b.length);
          if (pending.length < at + b.length) {
            pending = Arrays.copyOf(pending, at + b.length);
          }
          System.arraycopy(b, 0, pending, at, b.length);
        }
        case "truncate" -> {
          int to = rnd.nextInt(Math.min(MAX_LENGTH, pending.length + CHUNK) + 1);
          random.truncate(to);
          boolean shorter = to < pending.length;
          pending = Arrays.copyOf(pending, to);
          if (shorter) {
            committed = pending.clone(); // a shrinking truncate stores and commits at once
          }
        }
        case "hflush" -> {
          stream.hflush();
          committed = pending.clone();
        }
        case "flush" -> {
          random.flush();
          committed = pending.clone();
        }
        case "close" -> closeWriter();
        case "kill" -> kill();
        case "repair" -> new Repairer(checker).repair(path);
        case "heal" -> {
          FileStatus f = checker.namespace().getStatus(path);
          new Repairer(checker).handOff(f, new GroupCheck(checker).check(f));
        }
        default -> throw new IllegalStateException(op);
      }
    }

    private void closeWriter() throws IOException {
      if (stream != null) {
        stream.close();
      } else if (random != null) {
        random.close();
      } else {
        return;
      }
      committed = pending.clone();
      endWriter();
    }

    private void endWriter() {
      stream = null;
      random = null;
      pending = null;
      writer.close();
      writer = null;
    }

    /**
     * The writer's client ends without closing its file; lease recovery closes it. Every
     * committed byte stays; the bytes after, if recovery keeps them, are the writer's (a
     * sequential writer's exactly; a random writer's each either committed or written); the
     * keeper's check and hand-off seal what is left in copies, and from then on the recovered
     * bytes are the model's committed bytes.
     */
    private void kill() throws Exception {
      boolean sequential = stream != null;
      // the writer dies once what it started has landed: a known point, so a seed replays
      // exactly (deaths between the member writes of a round are ErasureCodedTest's, each at
      // a hook)
      if (sequential) {
        stream.awaitInFlight();
      } else {
        random.awaitInFlight();
      }
      byte[] wrote = pending;
      writer.close();
      writer = null;
      stream = null;
      random = null;
      pending = null;
      assertTrue(checker.recoverLease(path), "lease recovered");
      FileStatus f = checker.namespace().getStatus(path);
      assertTrue(f.length() >= committed.length, "recovered " + f.length() + " of the "
          + committed.length + " committed bytes");
      byte[] got = read(Set.of(), (int) f.length());
      for (int i = 0; i < got.length; i++) {
        byte before = i < committed.length ? committed[i] : 0;
        byte after = i < wrote.length ? wrote[i] : 0;
        boolean ok = sequential ? got[i] == (i < committed.length ? before : after)
            : got[i] == before || got[i] == after;
        if (!ok) {
          throw new AssertionError("recovered byte " + i + " is " + got[i] + ": committed "
              + before + ", written " + after + " (" + (sequential ? "sequential" : "random")
              + " writer)");
        }
      }
      // the acknowledged bytes: with any node down, at once
      checkViews(Arrays.copyOf(committed, committed.length), "acknowledged, just recovered");
      if (stopped < 0) {
        new Repairer(checker).handOff(f, new GroupCheck(checker).check(f)); // the keeper's check
      }
      committed = got;
    }

    /** Every member's and copy's stat of the file, for a failure's message. */
    private String dump() {
      StringBuilder b = new StringBuilder();
      try {
        FileStatus f = checker.namespace().getStatus(path);
        io.parityfs.meta.ChunkMap map = io.parityfs.meta.ChunkMap.of(f.layout());
        b.append("  length ").append(f.length()).append(", generation ").append(f.generation())
            .append(", record ").append(f.repairs()).append(", open ")
            .append(f.isOpenForWrite()).append('\n');
        for (long g = 0; g <= map.groups(f.length()); g++) {
          for (int j = 0; j < 3; j++) {
            String t = f.layout().targets().get(map.memberPosition(g, j));
            int[] indexes = j < 2 ? new int[] {map.memberIndex(g, j)}
                : new int[] {map.memberIndex(g, 2), (int) g * 2, (int) g * 2 + 1};
            for (int index : indexes) {
              b.append("  group ").append(g).append(" member ").append(j).append(" chunk ")
                  .append(index).append(" on ").append(t).append(": ")
                  .append(checker.chunks().statMember(t, f.id(), index)).append('\n');
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        b.append("  (").append(e).append(")");
      }
      return b.toString();
    }

    private boolean recordEmpty() throws IOException {
      return checker.namespace().getStatus(path).repairs().isEmpty();
    }

    private void startNode() throws Exception {
      if (stopped >= 0) {
        cluster.restartNode(stopped);
        cluster.awaitTargets(3);
        stopped = -1;
      }
    }

    private void check(String op) throws Exception {
      if (committed == null) {
        return;
      }
      FileStatus f = checker.namespace().getStatus(path);
      assertEquals(committed.length, f.length(), "committed length after " + op);
      checkViews(committed, "after " + op);
      if (stopped < 0 && !f.isOpenForWrite() && !op.equals("kill")) {
        GroupCheck.State worst = new GroupCheck(checker).check(f).worst();
        assertTrue(worst.compareTo(GroupCheck.State.UNDER_PROTECTED) <= 0,
            "groups after " + op + ": " + new GroupCheck(checker).check(f));
      }
    }

    /** Reads {@code want}'s bytes healthy, and with each node down, from the file's start. */
    private void checkViews(byte[] want, String what) throws IOException {
      List<Set<String>> views = new ArrayList<>();
      views.add(Set.of());
      // a member the repair record names is one lost already (its node was down for a write):
      // until catch-up stores it again, its groups have no spare member left (under-protected)
      if (stopped < 0 && checker.namespace().getStatus(path).repairs().isEmpty()) {
        for (String t : targets()) {
          views.add(Set.of(t));
        }
      }
      for (Set<String> down : views) {
        assertArrayEquals(want, read(down, want.length), what + ", down: " + down);
      }
    }

    private List<String> targets() throws IOException {
      return checker.namespace().getStatus(path).layout().targets();
    }

    private byte[] read(Set<String> down, int n) throws IOException {
      checker.chunks().cutOff(down);
      try (PfsInputStream in = checker.open(path, 0)) {
        byte[] b = new byte[n];
        in.readFully(0, ByteBuffer.wrap(b));
        return b;
      } finally {
        checker.chunks().cutOff(Set.of());
      }
    }

    private byte[] bytes(int n) {
      byte[] b = new byte[n];
      rnd.nextBytes(b);
      return b;
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
