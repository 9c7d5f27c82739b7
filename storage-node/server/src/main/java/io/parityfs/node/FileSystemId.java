package io.parityfs.node;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The identity of the file system a drive directory is on, the same for every node of one
 * machine: {@code <machine>:<device>}, where the machine is the kernel's boot id ({@code
 * /proc/sys/kernel/random/boot_id}: one per running kernel, shared by every process and
 * container on it, as device numbers are), else the host name, and the device is the file's
 * {@code st_dev} in hex. Readers only compare ids (a cluster total counts a file system once,
 * however many targets sit on it); a drive without one (no {@code unix:dev} attribute) makes its
 * target count in full.
 */
final class FileSystemId {
  private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
  private static final Optional<String> MACHINE = machine();

  private FileSystemId() {}

  /** The id of the file system {@code path} is on, if it can be told. */
  static Optional<String> of(Path path) {
    if (MACHINE.isEmpty()) {
      return Optional.empty();
    }
    try {
      Object dev = Files.getAttribute(path, "unix:dev");
      return dev instanceof Long d
          ? Optional.of(MACHINE.get() + ":" + Long.toHexString(d)) : Optional.empty();
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> machine() {
    try {
      String boot = Files.readString(BOOT_ID).trim();
      if (!boot.isEmpty()) {
        return Optional.of(boot);
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or /proc not mounted: the host name
    }
    try {
      String host = InetAddress.getLocalHost().getHostName();
      return host == null || host.isEmpty() ? Optional.empty() : Optional.of(host);
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
