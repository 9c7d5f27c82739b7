package io.parityfs.raid.bench;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The baselines the array is measured against: plain files written and read back in 1 MiB
 * requests ({@link ObjectContent#REQUEST}), with no parity, checksums or metadata.
 *
 * <ul>
 *   <li>raw: one file per drive directory, O_DIRECT, {@code lanes} requests in flight per file
 *       (lane i issues requests i, i+lanes, ...), all files at once;
 *   <li>plain: one file per object, buffered, {@code threads} files written at once, one request
 *       in flight per file (the unprotected counterpart of the array's concurrent writers).
 * </ul>
 *
 * A file is fsynced once all its requests are done, and the time includes it. Every request read
 * back is checked ({@link ObjectContent#verifyRequest}).
 */
final class BaselineFiles {
  private final List<Path> files;
  private final long bytesPerFile;
  private final boolean direct;
  private final int threads;
  private final int lanes;

  /**
   * @param bytesPerFile a multiple of {@link ObjectContent#REQUEST}
   * @param threads worker threads (each takes one (file, lane) at a time)
   * @param lanes requests in flight per file
   */
  BaselineFiles(List<Path> files, long bytesPerFile, boolean direct, int threads, int lanes) {
    if (bytesPerFile <= 0 || bytesPerFile % ObjectContent.REQUEST != 0) {
      throw new IllegalArgumentException(
          "bytesPerFile (" + bytesPerFile + ") must be a positive multiple of 1 MiB");
    }
    this.files = List.copyOf(files);
    this.bytesPerFile = bytesPerFile;
    this.direct = direct;
    this.threads = threads;
    this.lanes = lanes;
  }

  /** One file per drive directory, named {@code name}, O_DIRECT, all at once. */
  static BaselineFiles raw(List<Path> driveDirs, String name, long bytesPerFile, int lanes) {
    List<Path> files = new ArrayList<>();
    for (Path d : driveDirs) {
      files.add(d.resolve(name));
    }
    return new BaselineFiles(files, bytesPerFile, true, files.size() * lanes, lanes);
  }

  /** {@code count} buffered files of {@code bytesPerFile} in {@code dir}, {@code threads} at once. */
  static BaselineFiles plain(Path dir, int count, long bytesPerFile, int threads) {
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      files.add(dir.resolve("plain-" + i));
    }
    return new BaselineFiles(files, bytesPerFile, false, threads, 1);
  }

  long totalBytes() {
    return bytesPerFile * files.size();
  }

  String describe() {
    return String.format("%d files of %d MiB, %s, %d request(s) of 1 MiB in flight per file, %d"
            + " threads", files.size(), bytesPerFile >> 20, direct ? "O_DIRECT" : "buffered",
        lanes, threads);
  }

  Timed write(ObjectContent content) throws IOException {
    delete();
    return run(content, true);
  }

  Timed read(ObjectContent content) throws IOException {
    return run(content, false);
  }

  void delete() throws IOException {
    for (Path f : files) {
      Files.deleteIfExists(f);
    }
  }

  private Timed run(ObjectContent content, boolean write) throws IOException {
    long requests = bytesPerFile / ObjectContent.REQUEST;
    FileChannel[] channels = new FileChannel[files.size()];
    AtomicInteger[] lanesLeft = new AtomicInteger[files.size()];
    for (int f = 0; f < files.size(); f++) {
      lanesLeft[f] = new AtomicInteger(lanes);
    }
    AtomicInteger nextTask = new AtomicInteger();
    int tasks = files.size() * lanes;
    Timed.Clock clock = Timed.start();
    try {
      Parallel.run(threads, write ? "baseline-write" : "baseline-read", t -> {
        ByteBuffer buf = write ? null : ObjectContent.aligned(ObjectContent.REQUEST);
        for (int task = nextTask.getAndIncrement(); task < tasks;
            task = nextTask.getAndIncrement()) {
          int f = task / lanes;
          FileChannel ch = channel(channels, f, write);
          for (long j = task % lanes; j < requests; j += lanes) {
            long index = f * requests + j;
            long at = j * ObjectContent.REQUEST;
            if (write) {
              ByteBuffer src = content.request(index);
              while (src.hasRemaining()) {
                ch.write(src, at + src.position());
              }
            } else {
              buf.clear();
              while (buf.hasRemaining()) {
                if (ch.read(buf, at + buf.position()) < 0) {
                  throw new EOFException(files.get(f) + " ends before byte " + bytesPerFile);
                }
              }
              content.verifyRequest(files.get(f).toString(), index, buf.flip());
            }
          }
          if (lanesLeft[f].decrementAndGet() == 0) {
            if (write) {
              ch.force(true);
            }
            ch.close();
          }
        }
      });
    } finally {
      for (FileChannel ch : channels) {
        if (ch != null) {
          ch.close();
        }
      }
    }
    return clock.stop(totalBytes());
  }

  private FileChannel channel(FileChannel[] channels, int f, boolean write) throws IOException {
    synchronized (channels) {
      if (channels[f] == null) {
        List<OpenOption> options = new ArrayList<>(write
            ? List.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE)
            : List.of(StandardOpenOption.READ));
        if (direct) {
          options.add(ExtendedOpenOption.DIRECT);
        }
        channels[f] = FileChannel.open(files.get(f), options.toArray(new OpenOption[0]));
      }
      return channels[f];
    }
  }
}
