package io.parityfs.cli;

import io.parityfs.fuse.FuseNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line's arguments as the bytes the shell passed. The JVM decodes them with the
 * platform's charset and turns bytes that are not UTF-8 into U+FFFD, so {@code mkdir
 * /d/$'\xff\xfe'a} and {@code mkdir /d/$'\xfe\xff'a} would name one file; ParityFS names are
 * UTF-8 (as the mount's, docs/fuse.md "Names"), so such an argument is refused before a command
 * runs. Linux's {@code /proc/self/cmdline} holds the bytes; where it cannot be read, an argument
 * holding U+FFFD is refused instead (a real U+FFFD typed as UTF-8 is then refused too).
 */
public final class RawArguments {
  private RawArguments() {}

  /**
   * Null when every argument is valid UTF-8, else the message to fail with (exit 2), naming the
   * first bad argument as the JVM decoded it.
   */
  public static String invalid(String[] args) {
    List<byte[]> raw = fromProc(args.length);
    for (int i = 0; i < args.length; i++) {
      boolean bad = raw != null ? !isUtf8(raw.get(i)) : args[i].indexOf('\uFFFD') >= 0;
      if (bad) {
        String shown = raw != null ? escaped(raw.get(i)) : Printable.of(args[i]);
        return "INVALID_ARGUMENT: argument " + (i + 1) + " (" + shown + ") is"
            + " not valid UTF-8: ParityFS names are UTF-8 (rename the local file, or convert"
            + " the name with iconv)";
      }
    }
    return null;
  }

  /** The last {@code n} arguments of this process's command line, or null where unknown. */
  private static List<byte[]> fromProc(int n) {
    byte[] all;
    try {
      all = Files.readAllBytes(Path.of("/proc/self/cmdline"));
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
    List<byte[]> parts = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == 0) {
        byte[] part = new byte[i - start];
        System.arraycopy(all, start, part, 0, part.length);
        parts.add(part);
        start = i + 1;
      }
    }
    return parts.size() < n ? null : parts.subList(parts.size() - n, parts.size());
  }

  /** Printable ASCII as it is, every other byte as {@code \xNN}: "/d/\xff\xfea". */
  private static String escaped(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (byte x : bytes) {
      int c = x & 0xff;
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        b.append((char) c);
      } else {
        b.append(String.format("\\x%02x", c));
      }
    }
    return b.toString();
  }

  static boolean isUtf8(byte[] bytes) {
    return FuseNames.decode(bytes) != null; // the mount's own strict decoding of names
  }
}
