package io.parityfs.meta;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The ranges of ids the id counter jumped over ({@code R/idskips}, see {@link IdAllocator}):
 * JSON {@code [[from,to],...]}, each {@code from} inclusive and {@code to} exclusive, in the
 * order they were skipped; empty data (a namespace formatted before it) reads as none. No id of
 * a range was ever handed out by this namespace. Stateless.
 */
final class IdSkips {
  private static final ObjectMapper JSON = new ObjectMapper();

  private IdSkips() {}

  static List<long[]> decode(byte[] data, String path) throws NamespaceException {
    List<long[]> out = new ArrayList<>();
    if (data == null || data.length == 0) {
      return out;
    }
    try {
      for (long[] r : JSON.readValue(data, long[][].class)) {
        if (r.length != 2 || r[0] > r[1]) {
          throw new IOException("range " + Arrays.toString(r));
        }
        out.add(r);
      }
      return out;
    } catch (IOException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, path,
          "unreadable skipped id ranges: " + e.getMessage(), e);
    }
  }

  static byte[] encode(List<long[]> ranges) {
    try {
      return JSON.writeValueAsBytes(ranges);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // arrays of longs always serialise
    }
  }

  /** Whether {@code id} lies in one of {@code ranges}. */
  static boolean contains(List<long[]> ranges, long id) {
    for (long[] r : ranges) {
      if (id >= r[0] && id < r[1]) {
        return true;
      }
    }
    return false;
  }
}
