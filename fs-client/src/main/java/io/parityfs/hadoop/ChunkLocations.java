package io.parityfs.hadoop;

import io.parityfs.client.ParityClient;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.targets.TargetInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.fs.BlockLocation;

/**
 * {@code getFileBlockLocations}: one {@link BlockLocation} per chunk of the range, on the host of
 * the storage node that holds the chunk's target (so schedulers place tasks beside their data).
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
      String[] names = {};
      String[] hosts = {};
      if (layout.targets().size() == layout.stripeCount()) {
        String target = layout.targets().get((int) (index % layout.stripeCount()));
        Optional<TargetInfo> t = client.registry().target(target);
        if (t.isPresent() && !t.get().address().isEmpty()) {
          String address = t.get().address();
          names = new String[] {address};
          hosts = new String[] {hostOf(address)};
        }
      }
      out.add(new BlockLocation(names, hosts, offset, length));
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
