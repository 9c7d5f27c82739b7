package io.parityfs.raid.array.object;

import io.parityfs.raid.array.drive.Drive;
import io.parityfs.raid.array.drive.FileDrive;
import io.parityfs.raid.array.format.ArrayConfig;
import io.parityfs.raid.array.format.Protection;
import io.parityfs.raid.codec.ParityCodec;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** What the array tests build their arrays from: 4 KiB cells, 1 MiB objects, CPU codec. */
public final class ArrayFixtures {
  public static final int CELL = 4096;

  private ArrayFixtures() {}

  /** {@code protection} ("raid6:4+2", "mirror:3", …) with 4 KiB cells and 1 MiB objects. */
  public static ArrayConfig config(String protection) {
    return ArrayConfig.builder().protection(Protection.parse(protection)).cellSize(CELL)
        .maxObjectSize(1 << 20).build();
  }

  /** The CPU codec for {@code c}'s geometry; null for a mirror. */
  public static ParityCodec codec(ArrayConfig c) {
    return c.protection() instanceof Protection.Parity p ? CpuParityCodec.create(p.geometry())
        : null;
  }

  /** {@code n} bytes from a PRNG seeded with {@code seed}. */
  public static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Directories root/name/d0..d(n-1), created. */
  public static List<Path> dirs(Path root, String name, int n) throws IOException {
    List<Path> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Files.createDirectories(root.resolve(name).resolve("d" + i)));
    }
    return out;
  }

  /** An O_DIRECT FileDrive on each directory. */
  public static Drive[] fileDrives(List<Path> dirs) throws IOException {
    return fileDrives(dirs, Drive.IoMode.DIRECT);
  }

  /** A FileDrive in {@code mode} on each directory. */
  public static Drive[] fileDrives(List<Path> dirs, Drive.IoMode mode) throws IOException {
    Drive[] d = new Drive[dirs.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = FileDrive.open(dirs.get(i), mode);
    }
    return d;
  }

  /**
   * A store over {@code drives} (one per data slot, {@code null} for an absent one), through the
   * package-private constructor, for the array tests outside this package (repair, the root).
   */
  public static ObjectStore store(ArrayConfig config, Drive[] drives, ParityCodec codec) {
    return new ObjectStore(config, drives, codec);
  }

  /** As {@link #store(ArrayConfig, Drive[], ParityCodec)}, with the store's options. */
  public static ObjectStore store(
      ArrayConfig config, Drive[] drives, ParityCodec codec, StoreOptions options) {
    return new ObjectStore(config, drives, codec, options);
  }
}
