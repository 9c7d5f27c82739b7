package io.parityfs.fuse;

import io.parityfs.client.ParityClient;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One FUSE mount of a cluster's namespace: {@link #start} mounts (libfuse's loop runs on a
 * thread of its own) and returns once the kernel shows the mount; {@link #close} unmounts
 * ({@code fusermount -u}, lazily when busy), waits for the loop to end and closes the files
 * still open for writing, committing them. The client stays the caller's.
 *
 * <p>Lifecycle: {@code MOUNTED → CLOSED}; an unmount from outside ({@code parityfs umount},
 * {@code fusermount -u}) ends the loop, which {@link #awaitUnmounted} sees.
 */
public final class PfsMount implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(PfsMount.class);

  /** Where a mount is in its life. */
  public enum State {
    MOUNTED,
    CLOSED
  }

  private final Path mountPoint;
  private final PfsFuseOperations ops;
  private final FuseBinding binding;
  private final CompletableFuture<Void> loop;
  private final AtomicReference<State> state = new AtomicReference<>(State.MOUNTED);

  private PfsMount(Path mountPoint, PfsFuseOperations ops, FuseBinding binding,
      CompletableFuture<Void> loop) {
    this.mountPoint = mountPoint;
    this.ops = ops;
    this.binding = binding;
    this.loop = loop;
  }

  /**
   * Mounts the namespace of {@code client} at {@code options.mountPoint()}.
   *
   * @throws IOException when the mount point is not a directory, FUSE is not available
   *     ({@code /dev/fuse}, libfuse 3 on JDK 22+ or libfuse 2: {@link FuseBindings}), or the
   *     mount does not appear within the timeout
   */
  public static PfsMount start(ParityClient client, MountOptions options) throws IOException {
    Path at = options.mountPoint().toAbsolutePath().normalize();
    if (!Files.isDirectory(at)) {
      throw new IOException("mount point " + at + " is not a directory");
    }
    if (!Files.exists(Path.of("/dev/fuse"))) {
      throw new IOException("/dev/fuse is absent: FUSE is not available on this machine");
    }
    if (isMounted(at)) {
      throw new IOException(at + " is already a mount point");
    }
    PfsFuseOperations ops = new PfsFuseOperations(client, IdentityMap.system());
    FuseBinding binding = FuseBindings.choose(ops);
    CompletableFuture<Void> loop = binding.start(at,
        options.fuseArguments(binding.libfuseOptions()), options.debug());
    long deadline = System.nanoTime() + options.timeout().toNanos();
    while (!isMounted(at)) {
      if (loop.isDone()) {
        binding.release();
        throw new IOException("mounting " + at + " failed: " + failure(loop));
      }
      if (System.nanoTime() > deadline) {
        unmount(at);
        binding.release();
        throw new IOException("mounting " + at + ": no mount after " + options.timeout());
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        unmount(at);
        binding.release();
        throw new InterruptedIOException("interrupted mounting " + at);
      }
    }
    if (binding.maxRequest() > 128 << 10) {
      // libfuse 3: several requests of its size in flight. (libfuse 2's 128 KiB requests: not
      // raised, the kernel's read-ahead requests then arrive too far out of order for the
      // handle's stream, measured at a third of the read rate.)
      raiseReadAhead(at, 4 * binding.maxRequest());
    }
    LOG.info("mounted at {} on {}", at, binding.describe());
    return new PfsMount(at, ops, binding, loop);
  }

  public Path mountPoint() {
    return mountPoint;
  }

  public State state() {
    return state.get();
  }

  /** The native binding: {@code libfuse 3 (jfuse), 1024 KiB requests} or libfuse 2's. */
  public String binding() {
    return binding.describe();
  }

  /** The operations behind the mount (tests look at its open files). */
  public PfsFuseOperations operations() {
    return ops;
  }

  /** Blocks until the mount ends (an unmount from anywhere). */
  public void awaitUnmounted() throws InterruptedException {
    try {
      loop.get();
    } catch (ExecutionException e) {
      LOG.warn("the FUSE loop of {} failed: {}", mountPoint,
          String.valueOf(e.getCause()));
    }
  }

  /**
   * Unmounts (lazily if the mount is busy), waits up to 10 s for the loop to end, and closes
   * every file still open for writing (their data committed). Idempotent.
   */
  @Override
  public void close() throws IOException {
    if (!state.compareAndSet(State.MOUNTED, State.CLOSED)) {
      return;
    }
    IOException failure = null;
    try {
      if (isMounted(mountPoint)) {
        unmount(mountPoint);
      }
      loop.get(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      failure = e;
    } catch (TimeoutException e) {
      LOG.warn("the FUSE loop of {} did not end in 10 s",
          mountPoint);
    } catch (ExecutionException e) {
      // reported by awaitUnmounted; nothing more to do here
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        binding.release();
      } catch (RuntimeException e) {
        LOG.warn("freeing the FUSE session of {}: {}", mountPoint, e.toString());
      }
      ops.close();
    }
    LOG.info("unmounted {} (largest requests: read {} KiB, write {} KiB)", mountPoint,
        ops.largestRead() >> 10, ops.largestWrite() >> 10);
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Unmounts a FUSE mount: {@code fusermount -u}, then {@code fusermount3 -u}, then, when it
   * is busy, the same lazily ({@code -z}: detached now, gone when its last file closes).
   */
  public static void unmount(Path mountPoint) throws IOException {
    String at = mountPoint.toAbsolutePath().normalize().toString();
    List<String> errors = new ArrayList<>();
    for (List<String> cmd : List.of(List.of("fusermount", "-u", at),
        List.of("fusermount3", "-u", at), List.of("fusermount", "-u", "-z", at),
        List.of("fusermount3", "-u", "-z", at), List.of("umount", "-l", at))) {
      String err = run(cmd);
      if (err == null) {
        return;
      }
      errors.add(String.join(" ", cmd) + ": " + err);
    }
    throw new IOException("cannot unmount " + at + ": " + String.join("; ", errors));
  }

  /**
   * Sets the mount's read-ahead to {@code bytes} ({@code /sys/class/bdi/<major:minor>/
   * read_ahead_kb}, writable by root): the kernel keeps a FUSE mount's at its default, 128 KiB,
   * whatever libfuse asks, so sequential reads would come in 128 KiB requests, one at a time.
   * With more, the kernel sends several requests of up to the binding's size at once. Not root:
   * left as it is (docs/fuse.md, "Performance notes").
   */
  static void raiseReadAhead(Path at, int bytes) {
    String device = null;
    try {
      String[] mount = mountInfo(at);
      if (mount != null) {
        device = mount[2];
        Files.writeString(Path.of("/sys/class/bdi", device, "read_ahead_kb"),
            Integer.toString(bytes >> 10));
        LOG.debug("read-ahead of {} ({}): {} KiB", at, device, bytes >> 10);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("read-ahead of {} ({}) left as it is: {}", at, device, e.toString());
    }
  }

  /** Whether {@code path} is a mount point now (per {@code /proc/self/mountinfo}). */
  public static boolean isMounted(Path path) throws IOException {
    return mountInfo(path) != null;
  }

  /**
   * The fields of {@code /proc/self/mountinfo}'s line for the mount at {@code path} (the last,
   * topmost one when mounts are stacked; field 2 is its {@code major:minor}), or null.
   */
  private static String[] mountInfo(Path path) throws IOException {
    String at = path.toAbsolutePath().normalize().toString();
    String[] found = null;
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] f = line.split(" ");
      if (f.length > 4 && unescape(f[4]).equals(at)) {
        found = f;
      }
    }
    return found;
  }

  /** mountinfo writes space, tab, newline and backslash as octal escapes. */
  private static String unescape(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length()) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Runs a command; null on success, else what it printed (or why it could not run). */
  private static String run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readAllBytes();
      }
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "timed out";
      }
      return p.exitValue() == 0 ? null : new String(out, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private static String failure(CompletableFuture<Void> loop) {
    try {
      loop.getNow(null);
      return "libfuse's loop ended at once (see its messages on standard error)";
    } catch (RuntimeException e) {
      Throwable c = e.getCause() != null ? e.getCause() : e;
      return c.getCause() != null ? c + " (" + c.getCause() + ")" : c.toString();
    }
  }
}
