package io.parityfs.fuse;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A native binding behind {@link PfsMount}: it converts libfuse's structures to and from
 * {@link PfsFuseOperations}' own types, mounts and runs libfuse's loop. Two exist
 * ({@code docs/fuse.md}, "Which binding runs on which JDK"): {@link JnrFuseBinding} (jnr-fuse,
 * libfuse 2, 128 KiB requests, every JDK) and {@code JfuseBinding} (jfuse on the foreign
 * function API, libfuse 3, 1 MiB requests, JDK 22+); {@link FuseBindings#choose} picks one.
 */
interface FuseBinding {
  /** What the mount says it runs on, e.g. {@code libfuse 2 (jnr-fuse), 128 KiB requests}. */
  String describe();

  /** The largest read or write request the kernel sends through this binding, in bytes. */
  int maxRequest();

  /** The libfuse {@code -o} options of this binding's libfuse, after the mount's own. */
  List<String> libfuseOptions();

  /**
   * Mounts at {@code at} with {@code args} (libfuse's command line: {@code -o ...}, maybe
   * {@code -d}) and runs libfuse's loop on a thread of its own. Returns at once or once
   * mounted; the future completes when the loop ends (an unmount from anywhere), exceptionally
   * when mounting failed.
   */
  CompletableFuture<Void> start(Path at, List<String> args, boolean debug) throws IOException;

  /** Frees the native session once the loop ended ({@link PfsMount#close}). Idempotent. */
  void release();

  /** libfuse's loop, run until the file system is unmounted. */
  @FunctionalInterface
  interface Loop {
    void run() throws Exception;
  }

  /**
   * Runs {@code loop} on a daemon thread of its own; the future completes when it returns
   * (exceptionally when it throws).
   */
  static CompletableFuture<Void> onLoopThread(Loop loop) {
    CompletableFuture<Void> ended = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        loop.run();
        ended.complete(null);
      } catch (Throwable e) {
        ended.completeExceptionally(e);
      }
    }, "pfs-fuse-loop");
    t.setDaemon(true);
    t.start();
    return ended;
  }
}
