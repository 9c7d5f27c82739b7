package io.parityfs.testing;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.Caller;
import io.parityfs.meta.Layout;
import io.parityfs.testkit.SystemDeps;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link MiniCluster} of one node whose target (RAID-5 2+1) sits on three small tmpfs mounts
 * ({@value #DRIVE_SIZE} each, about 8 MiB of data in all), so that a write runs the node out of
 * space for real: the array refuses a shard its drive has no room for, or the kernel answers
 * ENOSPC, and the node answers NO_SPACE. The root layout names the target (1 MiB chunks), so
 * creates are placed on it whatever the placement reserve. Mounting needs root: {@link
 * #missing()} says why not where it cannot (a skip, or a failure where system dependencies are
 * required, as in {@code .ci/run}, which runs as root).
 */
public final class FullTargetCluster implements Closeable {
  public static final String DRIVE_SIZE = "4m";
  /** More than the target holds. */
  public static final int TOO_MUCH = 32 << 20;

  private final MiniCluster cluster;
  private final String target;
  private final List<Path> mounts;

  private FullTargetCluster(MiniCluster cluster, String target, List<Path> mounts) {
    this.cluster = cluster;
    this.target = target;
    this.mounts = mounts;
  }

  private static String missing;

  /** Null where tmpfs can be mounted here; else why not (see {@link SystemDeps#missing}). */
  public static synchronized String missing(Path probeDir) {
    if (missing == null) {
      boolean ok = false;
      try {
        Path probe = probeDir.resolve("tmpfs-probe");
        ok = mount(probe, "1m");
        if (ok) {
          umount(probe);
        }
      } catch (IOException | InterruptedException e) {
        ok = false;
      }
      String why = SystemDeps.missing("tmpfs-mount", ok, "cannot mount a small tmpfs (needs"
          + " root): the full-target tests are skipped");
      missing = why == null ? "" : why;
    }
    return missing.isEmpty() ? null : missing;
  }

  /** Starts the cluster under {@code dir}; {@link #missing} must have said yes. */
  public static FullTargetCluster start(Path dir) throws Exception {
    List<Path> mounts = new ArrayList<>();
    MiniCluster c = null;
    try {
      for (int d = 0; d < 3; d++) {
        Path drive = dir.resolve("node0").resolve("drive" + d); // where MiniCluster puts them
        if (!mount(drive, DRIVE_SIZE)) {
          throw new IOException("cannot mount a tmpfs at " + drive);
        }
        mounts.add(drive);
      }
      c = MiniCluster.start(dir, 1, "raid5:2+1", 3);
      String target;
      try (ParityClient root = c.client(Caller.of("root"))) {
        target = root.registry().targets().get(0).id();
        root.namespace().setLayout("/", new Layout(1 << 20, 1, List.of(target), "raid5:2+1"));
      }
      return new FullTargetCluster(c, target, mounts);
    } catch (Exception | Error e) {
      if (c != null) {
        c.close();
      }
      for (Path m : mounts) {
        umount(m);
      }
      throw e;
    }
  }

  public MiniCluster cluster() {
    return cluster;
  }

  /** The id of the small target. */
  public String target() {
    return target;
  }

  /** What the kernel says is free on the target's three tmpfs drives together. */
  public long freeBytes() throws IOException {
    long free = 0;
    for (Path m : mounts) {
      free += Files.getFileStore(m).getUsableSpace();
    }
    return free;
  }

  @Override
  public void close() throws IOException {
    try {
      cluster.close();
    } finally {
      for (Path m : mounts) {
        try {
          umount(m);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private static boolean mount(Path at, String size) throws IOException, InterruptedException {
    Files.createDirectories(at);
    return exec("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString());
  }

  private static void umount(Path at) throws IOException, InterruptedException {
    exec("umount", "-l", at.toString());
  }

  private static boolean exec(String... command) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      return false; // no such command
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      System.out.println("[test] " + String.join(" ", command) + " failed: " + out.trim());
      return false;
    }
    return true;
  }
}
