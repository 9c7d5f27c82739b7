package io.parityfs.node.protocol;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** The golden file format: '#' comment lines, then one frame per line in hex; spaces and '|' ignored. */
final class Hex {
  private Hex() {}

  static List<byte[]> parseFrames(String text) {
    List<byte[]> frames = new ArrayList<>();
    for (String line : text.split("\n")) {
      String s = line.strip();
      if (s.isEmpty() || s.startsWith("#")) {
        continue;
      }
      frames.add(HexFormat.of().parseHex(s.replace(" ", "").replace("|", "")));
    }
    return frames;
  }

  /** One frame on a line: the fixed fields apart, then " | header | payload". */
  static String formatFrame(byte[] f, int headerLength) {
    HexFormat hex = HexFormat.of().withUpperCase();
    int[] fields = {4, 1, 1, 2, 8, 4, 4, 4, 4, 4};
    StringBuilder sb = new StringBuilder();
    int pos = 0;
    for (int len : fields) {
      sb.append(hex.formatHex(f, pos, pos + len)).append(' ');
      pos += len;
    }
    sb.append("| ").append(hex.formatHex(f, pos, pos + headerLength));
    pos += headerLength;
    sb.append(" | ").append(hex.formatHex(f, pos, f.length));
    return sb.toString();
  }
}
