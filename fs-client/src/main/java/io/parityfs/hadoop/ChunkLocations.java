package io.parityfs.hadoop;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.ChunkMap;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.fs.BlockLocation;

/**
 * {@code getFileBlockLocations}: one {@link BlockLocation} per chunk of the range, on the host of
 * the storage node that holds the chunk's target (so schedulers place tasks beside their data),
 * and for {@code mirror:N} across nodes on the hosts of all N copies, as HDFS lists replicas.
 * (An ec chunk's data is whole on its one target; its parity is not a location to read from.)
 * A target the registry does not know, or knows no address for, gives a location with no host.
 */
final class ChunkLocations {
  private ChunkLocations() {}

  static BlockLocation[] of(ParityClient client, FileStatus f, long start, long len) {
    if (f.isDirectory() || start < 0 || len <= 0 || start >= f.length()) {
      return new BlockLocation[0];
    }
    Layout layout = f.layout();
    long chunk = layout.chunkSize();
    long end = Math.min(f.length(), start + len);
    List<BlockLocation> out = new ArrayList<>();
    for (long index = start / chunk; index * chunk < end; index++) {
      long offset = index * chunk;
      long length = Math.min(chunk, f.length() - offset);
      List<String> names = new ArrayList<>();
      List<String> hosts = new ArrayList<>();
      if (layout.targets().size() == layout.stripeCount()) {
        ChunkMap map = ChunkMap.of(layout);
        for (int c = 0; c < map.copies(); c++) { // every copy of mirror:N, else the one target
          String target = layout.targets().get(map.copyPosition(index, c));
          Optional<TargetInfo> t = client.registry().target(target);
          if (t.isPresent() && !t.get().address().isEmpty()) {
            names.add(t.get().address());
            hosts.add(hostOf(t.get().address()));
          }
        }
      }
      out.add(new BlockLocation(names.toArray(new String[0]), hosts.toArray(new String[0]),
          offset, length));
    }
    return out.toArray(new BlockLocation[0]);
  }

  /** {@code host:port} or {@code [v6]:port} to the host. */
  static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    String host = colon > 0 ? address.substring(0, colon) : address;
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return host;
  }
}
