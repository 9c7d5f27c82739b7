package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kill points (issue 40 item 4): a writer of an {@code ec:2+1} file dies after its n-th member
 * write of an operation, for every n from 0 until the operation completes: every member write
 * after the n-th fails ({@link ChunkIo#MEMBER_WRITE_HOOK}), as if the writer died there, then
 * its client ends and lease recovery closes the file. Then every committed byte the operation
 * did not change reads back exactly, healthy and with each node down (cut off from the reading
 * client), and every other byte is the one before or the one written. Operations: an hflush
 * after an hflush, the seal when a group fills, the seal at close, an append into a closed
 * partial group, a random write and a truncate of the mount's writer. The member writes of a
 * round go out in parallel, so which n land first may differ from run to run; the property
 * holds for every order, and a failure names n and the members that landed.
 */
class KillPointTest extends StripedClusterTest {
  static final Layout CODED = STRIPED.withAcross(Across.ec(2, 1));

  @BeforeAll
  static void makeDirectory() throws Exception {
    client.namespace().mkdirs("/kp", CreateOptions.directory().withLayout(CODED));
  }

  /**
   * One try: the operation sets {@code before} (the file's committed bytes when the writer
   * starts to count) and {@code intended} (the bytes it means to leave), then calls {@code
   * arm} and goes on.
   */
  private static final class Attempt {
    byte[] before;
    byte[] intended;
    Runnable arm;
  }

  private interface Op {
    void run(ParityClient writer, String path, Attempt a) throws IOException;
  }

  private int files;

  @Test
  void anHflushAfterAnHflush() throws Exception {
    killAtEveryPoint("hflush", (w, p, a) -> {
      PfsOutputStream out = w.create(p, CreateOptions.file());
      a.before = bytes(300, 1);
      out.write(a.before);
      out.hflush();
      byte[] more = bytes(500, 2);
      a.intended = concat(a.before, more);
      a.arm.run();
      out.write(more);
      out.hflush();
    });
  }

  @Test
  void theSealWhenAGroupFills() throws Exception {
    killAtEveryPoint("fill", (w, p, a) -> {
      PfsOutputStream out = w.create(p, CreateOptions.file());
      a.before = bytes(300, 3);
      out.write(a.before);
      out.hflush();
      byte[] more = bytes(2 * CHUNK, 4);
      a.intended = concat(a.before, more);
      a.arm.run();
      out.write(more);
      out.hflush();
    });
  }

  @Test
  void theSealAtClose() throws Exception {
    killAtEveryPoint("close", (w, p, a) -> {
      PfsOutputStream out = w.create(p, CreateOptions.file());
      a.before = bytes(CHUNK + 300, 5);
      out.write(a.before);
      out.hflush();
      byte[] more = bytes(700, 6);
      a.intended = concat(a.before, more);
      a.arm.run();
      out.write(more);
      out.close();
    });
  }

  @Test
  void anAppendIntoAClosedPartialGroup() throws Exception {
    killAtEveryPoint("append", (w, p, a) -> {
      a.before = closed(w, p, 300, 7);
      byte[] more = bytes(CHUNK, 8);
      a.intended = concat(a.before, more);
      a.arm.run();
      PfsOutputStream out = w.append(p);
      out.write(more);
      out.close();
    });
  }

  @Test
  void aRandomWriteOfTheMountsWriter() throws Exception {
    killAtEveryPoint("pwrite", (w, p, a) -> {
      a.before = closed(w, p, 2 * CHUNK + 100, 9);
      byte[] patch = bytes(5000, 10);
      a.intended = a.before.clone();
      System.arraycopy(patch, 0, a.intended, CHUNK - 1000, patch.length);
      a.arm.run();
      PfsFileWriter fw = w.openWriter(p);
      fw.write(CHUNK - 1000, patch, 0, patch.length);
      fw.flush();
      fw.close();
    });
  }

  @Test
  void aTruncateOfTheMountsWriter() throws Exception {
    killAtEveryPoint("truncate", (w, p, a) -> {
      a.before = closed(w, p, 2 * CHUNK + 100, 11);
      a.intended = Arrays.copyOf(a.before, CHUNK + 100);
      a.arm.run();
      PfsFileWriter fw = w.openWriter(p);
      fw.truncate(CHUNK + 100);
      fw.close();
    });
  }

  /** A new closed file of {@code n} bytes. */
  private static byte[] closed(ParityClient w, String path, int n, long seed)
      throws IOException {
    byte[] b = bytes(n, seed);
    try (PfsOutputStream out = w.create(path, CreateOptions.file())) {
      out.write(b);
    }
    return b;
  }

  private void killAtEveryPoint(String name, Op op) throws Exception {
    for (int n = 0; ; n++) {
      String path = "/kp/" + name + "-" + n + "-" + files++;
      AtomicInteger writes = new AtomicInteger();
      List<String> landed = java.util.Collections.synchronizedList(new ArrayList<>());
      int dieAfter = n;
      Attempt a = new Attempt();
      a.arm = () -> ChunkIo.MEMBER_WRITE_HOOK = (target, index) -> {
        if (writes.incrementAndGet() > dieAfter) {
          throw new IllegalStateException("the writer died after " + dieAfter
              + " member writes (test)");
        }
        landed.add(index + "@" + target.substring(0, 8));
      };
      boolean completed = false;
      try (ParityClient w = cluster.client(Caller.of("root"))) {
        try {
          op.run(w, path, a);
          completed = true;
        } catch (IOException | RuntimeException e) {
          assertTrue(a.before != null, name + ": failed before it was armed: " + e);
          // died: the operation did not complete
        }
      } finally {
        ChunkIo.MEMBER_WRITE_HOOK = null;
      }
      if (client.namespace().getStatus(path).isOpenForWrite()) {
        assertTrue(client.recoverLease(path), "lease recovery");
      }
      check(path, a.before, a.intended, name + ", dead after " + n + " member writes (landed "
          + landed + ")");
      if (completed) {
        return; // the operation needed no more than n member writes
      }
      assertTrue(n < 64, name + ": the operation never completed");
    }
  }

  /**
   * Every view of {@code path} (healthy, each node down) reads its length; bytes that {@code
   * before} and {@code intended} agree on are exactly those, the others one of the two.
   */
  private void check(String path, byte[] before, byte[] intended, String what)
      throws IOException {
    FileStatus f = client.namespace().getStatus(path);
    int length = (int) f.length();
    List<Set<String>> views = new ArrayList<>();
    views.add(Set.of());
    for (String t : f.layout().targets()) {
      views.add(Set.of(t));
    }
    byte[] want = intended;
    for (Set<String> down : views) {
      byte[] got = new byte[length];
      client.chunks().cutOff(down);
      try (PfsInputStream in = client.open(path, 0)) {
        in.readFully(0, ByteBuffer.wrap(got));
      } catch (IOException e) {
        throw new AssertionError(what + ": reading " + length + " bytes with " + down
            + " down failed", e);
      } finally {
        client.chunks().cutOff(Set.of());
      }
      for (int i = 0; i < length; i++) {
        byte a = i < before.length ? before[i] : 0;
        byte b = i < want.length ? want[i] : 0;
        boolean agreed = a == b && i < before.length;
        if (agreed ? got[i] != a : got[i] != a && got[i] != b) {
          throw new AssertionError(what + ": byte " + i + " of " + length + " is " + got[i]
              + " with " + down + " down; before " + a + ", intended " + b);
        }
      }
    }
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
