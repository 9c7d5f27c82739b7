package io.parityfs.cli;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.NamespaceException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The commands that move file data through the client streams: put, get, cat. */
final class DataCommands {
  /** Transfers at least this large show a progress line when stdout is a terminal. */
  static final long PROGRESS_FROM = 16L << 20;
  private static final int BUFFER = 1 << 20;

  private DataCommands() {}

  /**
   * Copies {@code in} to {@code out}; with a progress line on {@code progress} (null: none)
   * every ~200 ms.
   */
  static long copy(InputStream in, OutputStream out, long total, ProgressLine progress,
      String label) throws IOException {
    byte[] buf = new byte[BUFFER];
    long done = 0;
    long start = System.nanoTime();
    long shown = start;
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
      done += n;
      long now = System.nanoTime();
      if (progress != null && now - shown > 200_000_000L) {
        shown = now;
        show(progress, label, done, total, start, now);
      }
    }
    if (progress != null) {
      show(progress, label, done, total, start, System.nanoTime());
      progress.finish();
    }
    return done;
  }

  private static void show(ProgressLine p, String label, long done, long total, long start,
      long now) {
    double secs = Math.max(1e-9, (now - start) / 1e9);
    double rate = done / secs;
    p.update(label, done, total, rate, rate > 0 ? Math.max(0, total - done) / rate : null,
        null);
  }

  static ProgressLine progress(Session s, long total) {
    return s.terminal() && total >= PROGRESS_FROM ? new ProgressLine(s.err(), true) : null;
  }

  /** {@code put [-f] LOCAL REMOTE}. */
  @Command(name = "put", description = "Copy a local file (or - for stdin) into the namespace;"
      + " into REMOTE when it is a directory.")
  static final class Put extends CliCommand {
    @Option(names = "-f", description = "overwrite an existing file")
    boolean force;

    @Parameters(index = "0", paramLabel = "LOCAL")
    String local;

    @Parameters(index = "1", paramLabel = "REMOTE")
    String remote;

    @Override
    void run(Session s) throws CliException {
      ParityClient c = s.client();
      each(s, remote, () -> {
        boolean stdin = local.equals("-");
        Path src = stdin ? null : Path.of(local);
        if (src != null && !Files.exists(src)) {
          throw CliException.of(local, new NoSuchFileException(local));
        }
        if (src != null && Files.isDirectory(src)) {
          throw new CliException(ExitStatus.FAILED, local,
              "IS_A_DIRECTORY: put copies files, not directories");
        }
        String target = remote;
        FileStatus st = c.namespace().statusOrNull(remote);
        if (st != null && st.isDirectory()) {
          if (stdin) {
            throw new CliException(ExitStatus.FAILED, remote,
                "IS_A_DIRECTORY: name the file to write from stdin");
          }
          target = NamespaceCommands.child(st.path(), src.getFileName().toString());
        }
        long size = stdin ? -1 : Files.size(src);
        String dst = target;
        try (InputStream in = stdin ? s.in() : Files.newInputStream(src)) {
          PfsOutputStream out = c.create(dst, CreateOptions.file().withOverwrite(force));
          try {
            copy(in, out, size, size < 0 ? null : progress(s, size), dst);
            out.close();
          } catch (IOException | RuntimeException e) {
            abandon(c, out, dst);
            throw e;
          }
        }
      });
    }

    /** A failed copy leaves no partial file behind (best effort: the error is what matters). */
    private static void abandon(ParityClient c, PfsOutputStream out, String path) {
      try {
        out.close();
      } catch (IOException | RuntimeException e) {
        // the stream had failed already
      }
      try {
        c.namespace().delete(path, false);
      } catch (NamespaceException e) {
        // left for the user to remove; the copy's own error is reported
      }
    }
  }

  /** {@code get [-f] REMOTE LOCAL}. */
  @Command(name = "get", description = "Copy a file out of the namespace; into LOCAL when it is"
      + " a directory. The local file appears whole or not at all.")
  static final class Get extends CliCommand {
    @Option(names = "-f", description = "overwrite an existing local file")
    boolean force;

    @Parameters(index = "0", paramLabel = "REMOTE")
    String remote;

    @Parameters(index = "1", paramLabel = "LOCAL")
    String local;

    @Override
    void run(Session s) throws CliException {
      ParityClient c = s.client();
      each(s, remote, () -> {
        FileStatus f = c.namespace().getStatus(remote);
        if (f.isDirectory()) {
          throw new CliException(ExitStatus.FAILED, remote, "IS_A_DIRECTORY: get copies files");
        }
        Path dst = Path.of(local);
        if (Files.isDirectory(dst)) {
          String name = f.path().substring(f.path().lastIndexOf('/') + 1);
          dst = dst.resolve(name);
        }
        if (Files.exists(dst) && !force) {
          throw CliException.of(local, new FileAlreadyExistsException(dst.toString(), null,
              "exists (use -f to overwrite)"));
        }
        Path dir = dst.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, "." + dst.getFileName(), ".parityfs-get");
        try (PfsInputStream in = c.open(remote);
            OutputStream out = Files.newOutputStream(tmp)) {
          copy(in, out, in.length(), progress(s, in.length()), remote);
        } catch (IOException | RuntimeException e) {
          Files.deleteIfExists(tmp);
          throw e;
        }
        Files.move(tmp, dst, StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      });
    }
  }

  /** {@code cat PATH...}. */
  @Command(name = "cat", description = "Write files to stdout.")
  static final class Cat extends CliCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*")
    List<String> paths;

    @Override
    void run(Session s) throws CliException {
      ParityClient c = s.client();
      for (String path : paths) {
        each(s, path, () -> {
          FileStatus f = c.namespace().getStatus(path);
          if (f.isDirectory()) {
            throw new CliException(ExitStatus.FAILED, path, "IS_A_DIRECTORY: is a directory");
          }
          OutputStream out = s.rawOut();
          try (PfsInputStream in = c.open(path)) {
            copy(in, out, in.length(), null, path);
          }
          out.flush();
        });
      }
    }
  }
}
