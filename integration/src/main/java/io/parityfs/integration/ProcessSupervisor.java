package io.parityfs.integration;

import io.parityfs.integration.LocalCluster.ProcessState;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The child processes of a {@link LocalCluster}: starting a JVM detached ({@code setsid}
 * where present; its output appended to its log, its pid written to its pid file), finding it
 * again, signalling it, and stopping or killing it. Each process carries the marker {@code
 * -Dparityfs.local=<cluster folder>/<name>} on its command line, so that a reused pid is never
 * taken for it.
 *
 * <p>No state in memory: the pid files under {@code run/} are the record, so every process
 * that opens the cluster (another {@code parityfs local}) sees the same children. Starts and
 * stops are serialized between processes by the file lock {@link #lock} (held by the caller
 * for the whole start or stop); kills and signals take no lock.
 */
final class ProcessSupervisor {
  private final ClusterLayout layout;

  /** Held while a start or stop runs; closing it releases the lock. */
  interface Lock extends AutoCloseable {
    @Override
    void close() throws IOException;
  }

  ProcessSupervisor(ClusterLayout layout) {
    this.layout = layout;
  }

  /** The command line of a child JVM {@code name}: the marker, {@code heap}, this class path. */
  List<String> javaCommand(String name, String heap, List<String> flags,
      List<String> mainAndArgs) {
    List<String> cmd = new ArrayList<>();
    Path setsid = Path.of("/usr/bin/setsid");
    if (Files.isExecutable(setsid)) {
      cmd.add(setsid.toString());
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // marks the process as this cluster's, so a reused pid is never taken for it
    cmd.add("-Dparityfs.local=" + marker(name));
    cmd.add("-Xmx" + heap);
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    cmd.add("-Dslf4j.internal.verbosity=ERROR");
    cmd.addAll(flags);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(mainAndArgs);
    return cmd;
  }

  void spawn(String name, List<String> cmd) throws IOException {
    spawn(name, cmd, Map.of());
  }

  /** Starts {@code cmd} as process {@code name} with {@code env} added to its environment. */
  void spawn(String name, List<String> cmd, Map<String, String> env) throws IOException {
    Path log = layout.logFile(name);
    Files.createDirectories(log.getParent());
    Files.writeString(log, "---- " + Instant.now() + " " + (env.isEmpty() ? ""
        : new TreeMap<>(env) + " ") + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(layout.dir().toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().putAll(env);
    Process p = pb.start();
    Path pidFile = layout.pidFile(name);
    Files.createDirectories(pidFile.getParent());
    Files.writeString(pidFile, Long.toString(p.pid()) + "\n");
  }

  ProcessState state(String name) {
    return new ProcessState(name, handle(name).map(ProcessHandle::pid).orElse(-1L),
        layout.logFile(name));
  }

  /** The running process of {@code name}, checked to be this cluster's by its marker. */
  Optional<ProcessHandle> handle(String name) {
    Path f = layout.pidFile(name);
    long pid;
    try {
      pid = Long.parseLong(Files.readString(f).trim());
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .filter(h -> h.info().arguments().map(a -> List.of(a)
            .contains("-Dparityfs.local=" + marker(name))).orElse(true));
  }

  private String marker(String name) {
    return layout.dir().resolve(name).toString();
  }

  /**
   * SIGTERM to each of {@code names} that runs; what has not exited after {@code timeout} is
   * killed. Their pid files are removed.
   */
  void terminate(List<String> names, Duration timeout, Consumer<String> progress)
      throws IOException {
    List<ProcessHandle> running = new ArrayList<>();
    for (String n : names) {
      Optional<ProcessHandle> h = handle(n);
      if (h.isPresent()) {
        progress.accept("stopping " + n + " (pid " + h.get().pid() + ")");
        h.get().destroy();
        running.add(h.get());
      }
    }
    long end = System.nanoTime() + timeout.toNanos();
    for (ProcessHandle h : running) {
      if (!awaitExit(h, end)) {
        progress.accept("pid " + h.pid() + " did not stop in " + timeout.toSeconds()
            + " s: killed");
        h.destroyForcibly();
        awaitExit(h, System.nanoTime() + Duration.ofSeconds(10).toNanos());
      }
    }
    for (String n : names) {
      Files.deleteIfExists(layout.pidFile(n));
    }
  }

  /** SIGKILL to {@code name}, waiting until it is gone; IOException when it does not run. */
  void kill(String name) throws IOException {
    Optional<ProcessHandle> h = handle(name);
    if (h.isEmpty()) {
      throw new IOException(name + " is not running");
    }
    h.get().destroyForcibly();
    if (!awaitExit(h.get(), System.nanoTime() + Duration.ofSeconds(10).toNanos())) {
      throw new IOException(name + " (pid " + h.get().pid() + ") survived SIGKILL");
    }
    Files.deleteIfExists(layout.pidFile(name));
  }

  private static boolean awaitExit(ProcessHandle h, long deadlineNanos) {
    while (h.isAlive()) {
      if (System.nanoTime() > deadlineNanos) {
        return false;
      }
      sleep(50);
    }
    return true;
  }

  /** Sends {@code SIG<sig>} to {@code name}'s process (kill -s). */
  void signal(String name, String sig) throws IOException {
    Optional<ProcessHandle> h = handle(name);
    if (h.isEmpty()) {
      throw new IOException(name + " is not running");
    }
    try {
      Process k = new ProcessBuilder("kill", "-s", sig, Long.toString(h.get().pid()))
          .redirectErrorStream(true).start();
      String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (k.waitFor() != 0) {
        throw new IOException("kill -s " + sig + " " + h.get().pid() + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted signalling " + name, e);
    }
  }

  /** Thaws {@code name} if it runs (a no-op on a process that is not stopped). */
  void resume(String name) throws IOException {
    if (handle(name).isPresent()) {
      signal(name, "CONT");
    }
  }

  /** Serializes starts and stops of this cluster between processes (two `local start`s). */
  Lock lock() throws IOException {
    Path f = layout.lockFile();
    Files.createDirectories(f.getParent());
    FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      ch.lock();
      return ch::close;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** Sleeps between two looks at a process or a server; interruption is an error. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
