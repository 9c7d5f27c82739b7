package io.parityfs.testing;

import io.parityfs.raid.array.format.ShardFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Damage to a node array's shard files on disk, for tests of scrub and repair. */
public final class ShardDamage {
  /** A shard file's name: object id, version, shard number (hex). */
  private static final Pattern SHARD =
      Pattern.compile("([0-9a-f]{16})\\.[0-9a-f]{16}\\.([0-9a-f]{2})");

  private ShardDamage() {}

  /** Every shard file below {@code dir}, by object id (16 hex digits), in name order. */
  public static TreeMap<String, List<Path>> shards(Path dir) throws IOException {
    TreeMap<String, List<Path>> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        Matcher m = SHARD.matcher(f.getFileName().toString());
        if (m.matches()) {
          out.computeIfAbsent(m.group(1), id -> new ArrayList<>()).add(f);
        }
      }
    }
    return out;
  }

  /** Flips one bit of cell {@code cell} (of {@code cellSize} bytes) of {@code shard}. */
  public static void flipBit(Path shard, int cellSize, int cell) throws IOException {
    try (FileChannel f = FileChannel.open(shard, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      long at = ShardFormat.cellOffset(cellSize, cell) + 100;
      ByteBuffer b = ByteBuffer.allocate(1);
      f.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
      f.write(b, at);
    }
  }
}
