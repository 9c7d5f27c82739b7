package io.parityfs.cli;

import io.parityfs.client.ParityClient;
import io.parityfs.fuse.MountOptions;
import io.parityfs.fuse.PfsMount;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code mount} (the FUSE mount, in the foreground) and {@code umount}. */
final class MountCommands {
  private MountCommands() {}

  @Command(name = "mount", description = {"Mounts the namespace at a local directory (FUSE)"
      + " and serves it until unmounted (`parityfs umount`, `fusermount -u`) or stopped"
      + " (SIGTERM, Ctrl-C). Runs in the foreground: background it with `&` or a systemd"
      + " unit. Needs /dev/fuse and libfuse 2. See docs/fuse.md."})
  static final class Mount extends CliCommand {
    @Parameters(index = "0", paramLabel = "<mountpoint>", description = "an empty directory")
    Path mountPoint;

    @Option(names = {"-f", "--foreground"},
        description = "stay in the foreground (the default and only mode; accepted for"
            + " fstab-style callers)")
    boolean foreground;

    @Option(names = "--allow-other",
        description = "let every local user in, not only the mounting one (libfuse"
            + " allow_other); the kernel still checks each file's mode bits")
    boolean allowOther;

    @Option(names = {"-o", "--option"}, split = ",", paramLabel = "<opt>",
        description = "more libfuse options, e.g. -o attr_timeout=1,ro")
    List<String> options = new ArrayList<>();

    @Option(names = "--debug", description = "libfuse's request trace on stderr")
    boolean debug;

    @Override
    void run(Session s) throws CliException, IOException {
      MountOptions options;
      try {
        options = MountOptions.of(mountPoint).withAllowOther(allowOther).withDebug(debug)
            .withExtra(this.options);
      } catch (IllegalArgumentException e) {
        throw new CliException(ExitStatus.USAGE, null, "INVALID_ARGUMENT: " + e.getMessage());
      }
      // umask 0: the kernel has applied the calling process's umask to every mode already;
      // the credentials are the CLI's own (options, PARITYFS_* environment)
      ParityClient client = s.connect(s.caller().withUmask(0));
      PfsMount mount;
      try {
        NodeReach.check(client, s.tls().enabled());
        mount = PfsMount.start(client, options);
      } catch (CliException e) {
        client.close();
        throw e;
      } catch (IOException e) {
        client.close();
        throw new CliException(ExitStatus.FAILED, mountPoint.toString(), e.getMessage());
      }
      Thread stop = new Thread(() -> stop(mount, client), "pfs-mount-stop");
      Runtime.getRuntime().addShutdownHook(stop);
      s.err().println("parityfs: mounted " + s.zooKeeper().connect() + " at "
          + mount.mountPoint() + " on " + mount.binding() + " (`parityfs umount "
          + mount.mountPoint() + "` to unmount)");
      s.err().flush();
      try {
        mount.awaitUnmounted();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stop(mount, client);
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException e) {
        // shutting down: the hook runs (or ran) the same stop
      }
    }

    private static void stop(PfsMount mount, ParityClient client) {
      try {
        mount.close();
      } catch (IOException e) {
        System.err.println("parityfs: mount: " + e.getMessage());
      } finally {
        client.close();
      }
    }
  }

  @Command(name = "umount", aliases = "unmount",
      description = "Unmounts a ParityFS FUSE mount (fusermount -u; lazily when busy).")
  static final class Umount extends CliCommand {
    @Parameters(index = "0", paramLabel = "<mountpoint>")
    Path mountPoint;

    @Override
    void run(Session s) throws CliException {
      try {
        if (!PfsMount.isMounted(mountPoint)) {
          throw new CliException(ExitStatus.NOT_FOUND, mountPoint.toString(),
              "NOT_FOUND: not a mount point");
        }
        PfsMount.unmount(mountPoint);
      } catch (IOException e) {
        throw new CliException(ExitStatus.FAILED, mountPoint.toString(), e.getMessage());
      }
    }
  }
}
