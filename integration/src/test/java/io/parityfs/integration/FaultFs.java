package io.parityfs.integration;

import io.parityfs.testkit.SystemDeps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A drive folder that fails on demand: {@code src/test/native/faultfs.c}, a FUSE (libfuse 2)
 * pass-through to a backing directory, mounted over the folder, which answers fsync (and
 * directory fsync) with EIO while {@link Fault#FSYNC_EIO} is on, and the creation or writing of
 * a {@code *.manifest.tmp} with ENOSPC while {@link Fault#MANIFEST_ENOSPC} is on. Faults are
 * switched by files in a control directory, so a running node sees them at its next call; each
 * injected fault is one line of the file system's log ({@link #injected}).
 *
 * <p>Built with gcc against libfuse-dev's headers at test time; mounting needs /dev/fuse and
 * root. {@link #missing} says what is missing: a package through {@link SystemDeps} (a failure
 * where system dependencies are required), root or Linux as a plain skip, as DiskFullTest's.
 */
final class FaultFs implements AutoCloseable {
  private static final Path SOURCE = Path.of("src", "test", "native", "faultfs.c");
  private static final Path BUILD_DIR = Path.of("target", "native");

  /** The faults, named by their switch files. */
  enum Fault {
    FSYNC_EIO("fsync-eio"),
    MANIFEST_ENOSPC("manifest-enospc");

    final String file;

    Fault(String file) {
      this.file = file;
    }
  }

  private static Path binary;

  private final Path mountPoint;
  private final Path control;
  private final Path log;
  private final Process process;

  private FaultFs(Path mountPoint, Path control, Path log, Process process) {
    this.mountPoint = mountPoint;
    this.control = control;
    this.log = log;
    this.process = process;
  }

  /**
   * Null when faultfs can be built and mounted here (building it once); else the skip reason
   * ({@link SystemDeps#missing}, which fails instead where system dependencies are required).
   * A failure to build it for another reason than a missing dependency is an AssertionError.
   */
  static synchronized String missing() throws IOException, InterruptedException {
    if (binary != null) {
      return null;
    }
    // Not packages: skipped as DiskFullTest is (CI runs as root on Linux), not failed.
    if (!System.getProperty("os.name").startsWith("Linux")
        || !"root".equals(System.getProperty("user.name"))) {
      return "needs root on Linux to mount the faulty-drive file system (FUSE, libfuse 2)";
    }
    String why = SystemDeps.missing("fuse-device", Files.exists(Path.of("/dev/fuse")),
        "/dev/fuse is absent: no FUSE drive to fail on demand");
    Path gcc = onPath("gcc");
    if (why == null) {
      why = SystemDeps.missing("gcc", gcc != null, "gcc is not on the PATH: the faulty-drive"
          + " file system (src/test/native/faultfs.c) cannot be built");
    }
    boolean headers = Files.exists(Path.of("/usr/include/fuse/fuse.h"));
    if (why == null) {
      why = SystemDeps.missing("libfuse-dev", headers, "libfuse 2's headers are not installed"
          + " (apt-get install libfuse-dev): the faulty-drive file system cannot be built");
    }
    if (why != null) {
      return why;
    }
    Files.createDirectories(BUILD_DIR);
    Path out = BUILD_DIR.resolve("faultfs");
    Path tmp = BUILD_DIR.resolve("faultfs." + ProcessHandle.current().pid() + ".tmp");
    List<String> cmd = List.of(gcc.toString(), "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror",
        "-I/usr/include/fuse", "-D_FILE_OFFSET_BITS=64", "-o", tmp.toString(),
        SOURCE.toString(), "-lfuse", "-pthread");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("gcc did not finish in 120 s: " + String.join(" ", cmd));
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("gcc failed on " + SOURCE + ":\n" + String.join(" ", cmd) + "\n"
          + text);
    }
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    binary = out.toAbsolutePath();
    return null;
  }

  private static Path onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(d.isEmpty() ? "." : d, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /**
   * Mounts faultfs over the (empty) folder {@code mountPoint}, passing through to a new backing
   * directory under {@code work}; returns when the mount is there. Every fault starts off.
   */
  static FaultFs mount(Path mountPoint, Path work) throws IOException, InterruptedException {
    if (binary == null) {
      throw new IllegalStateException("missing() first");
    }
    Files.createDirectories(mountPoint);
    try (var s = Files.list(mountPoint)) {
      if (s.findAny().isPresent()) {
        throw new IOException(mountPoint + " is not empty: faultfs would hide what it holds");
      }
    }
    Path backing = Files.createDirectories(work.resolve("backing"));
    Path control = Files.createDirectories(work.resolve("control"));
    Path log = work.resolve("faultfs.log");
    Process p = new ProcessBuilder(binary.toString(), backing.toString(), control.toString(),
        mountPoint.toAbsolutePath().toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    p.getOutputStream().close();
    FaultFs fs = new FaultFs(mountPoint.toAbsolutePath(), control, log, p);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!fs.mounted()) {
      if (!p.isAlive() || System.nanoTime() > end) {
        fs.close();
        throw new IOException("faultfs did not mount at " + mountPoint + ": "
            + Files.readString(log, StandardCharsets.UTF_8));
      }
      Thread.sleep(20);
    }
    return fs;
  }

  private boolean mounted() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] f = line.split(" ");
      if (f.length > 4 && f[4].equals(mountPoint.toString()) && line.contains(" fuse.")) {
        return true;
      }
    }
    return false;
  }

  void set(Fault fault, boolean on) throws IOException {
    Path f = control.resolve(fault.file);
    if (on) {
      Files.writeString(f, "");
    } else {
      Files.deleteIfExists(f);
    }
  }

  /** The faults injected so far: the log's lines, e.g. {@code faultfs: EIO fsync /path}. */
  List<String> injected() throws IOException {
    List<String> out = new ArrayList<>();
    for (String l : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      if (l.startsWith("faultfs: EIO ") || l.startsWith("faultfs: ENOSPC ")) {
        out.add(l);
      }
    }
    return out;
  }

  /** Unmounts (lazily, so a process still holding a file does not keep it) and ends faultfs. */
  @Override
  public void close() throws IOException {
    try {
      for (Fault f : Fault.values()) {
        set(f, false);
      }
      Process u = new ProcessBuilder("umount", "-l", mountPoint.toString())
          .redirectErrorStream(true).start();
      u.getInputStream().readAllBytes();
      u.waitFor(30, TimeUnit.SECONDS);
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
