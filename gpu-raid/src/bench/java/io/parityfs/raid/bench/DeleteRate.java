package io.parityfs.raid.bench;

import io.parityfs.raid.array.ArrayConfig;
import io.parityfs.raid.array.ObjectStore;
import io.parityfs.raid.array.Protection;
import io.parityfs.raid.array.RaidArray;
import io.parityfs.raid.array.StoreOptions;
import io.parityfs.raid.codec.CodecBackend;
import io.parityfs.raid.codec.ParityCodecFactory;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * How many objects a second the array deletes, as the storage node's DELETE does them (a {@code
 * stat}, then {@code delete}, one object at a time): a plain {@code main}, not a unit test.
 * Writes N small objects on a fresh RAID-6 4+2 array over 6 drive directories, then deletes them
 * all, twice over: once with the manifests cached (the node that wrote them), once after a reopen
 * (nothing cached: a node restarted since). Prints one line per run.
 *
 * <pre>
 *   java -cp ... io.parityfs.raid.bench.DeleteRate [dir] [objects] [bytes per object]
 * </pre>
 */
public final class DeleteRate {
  private DeleteRate() {}

  public static void main(String[] args) throws Exception {
    Path base = Path.of(args.length > 0 ? args[0] : "target/delete-rate");
    int objects = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int bytes = args.length > 2 ? Integer.parseInt(args[2]) : 16 * 1024;
    BenchDirs owned = new BenchDirs();
    ParityCodecFactory codecs = ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
    ArrayConfig config = ArrayConfig.builder().protection(Protection.parse("raid6:4+2"))
        .cellSize(4096).maxObjectSize(1 << 20).build();
    byte[] data = new byte[bytes];
    new Random(1).nextBytes(data);
    for (boolean cached : new boolean[] {true, false}) {
      Path root = owned.own(Files.createDirectories(base.resolve(cached ? "cached" : "cold")));
      List<Path> drives = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        drives.add(Files.createDirectories(root.resolve("d" + i)));
      }
      try (RaidArray a = RaidArray.create(config, drives, codecs, StoreOptions.DEFAULTS)) {
        for (int i = 0; i < objects; i++) {
          a.store().write(i, new ByteArrayInputStream(data), data.length);
        }
        if (cached) {
          report("cached", objects, deleteAll(a.store(), objects));
        }
      }
      if (!cached) {
        try (RaidArray a = RaidArray.open(drives, Optional.empty(), codecs,
            StoreOptions.DEFAULTS)) {
          report("after a reopen", objects, deleteAll(a.store(), objects));
        }
      }
      owned.delete(root);
    }
  }

  private static long deleteAll(ObjectStore s, int objects) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < objects; i++) {
      boolean existed = s.stat(i).isPresent();
      if (!s.delete(i) || !existed) {
        throw new AssertionError("object " + i + " was not there to delete");
      }
    }
    return System.nanoTime() - start;
  }

  private static void report(String what, int objects, long nanos) {
    System.out.printf("delete, %s: %d objects in %.2f s: %.1f objects/s%n", what, objects,
        nanos / 1e9, objects / (nanos / 1e9));
  }
}
