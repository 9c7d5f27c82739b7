package io.parityfs.cli;

import java.nio.charset.StandardCharsets;

/**
 * Names and messages as the CLI prints them to a terminal or a line-oriented pipe, in the manner
 * of GNU {@code ls -b}: a name may hold any character but NUL and {@code '/'}, so a newline in a
 * name would forge a second line of {@code ls} output and an escape sequence would reach the
 * terminal. Control characters (C0, DEL, C1), line and paragraph separators, bidirectional
 * controls (which can make a name display reversed) and unpaired surrogates are written as C
 * escapes ({@code \n}, {@code \t}, {@code \r}, {@code \a}, {@code \b}, {@code \f}, {@code \v})
 * or as the octal of their UTF-8 bytes ({@code \033}, {@code \342\200\256}); a backslash is
 * written {@code \\}, so the output is unambiguous. Everything else (spaces, emoji, any script)
 * is printed as it is. {@code --json} output is never escaped this way: JSON has its own.
 */
final class Printable {
  private Printable() {}

  /** {@code s} with every character that is not safe to print escaped (see the class comment). */
  static String of(String s) {
    if (s == null) {
      return null;
    }
    StringBuilder b = null;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      int n = Character.charCount(cp);
      if (!needsEscape(cp)) {
        if (b != null) {
          b.appendCodePoint(cp);
        }
      } else {
        if (b == null) {
          b = new StringBuilder(s.length() + 16).append(s, 0, i);
        }
        escape(b, cp);
      }
      i += n;
    }
    return b == null ? s : b.toString();
  }

  private static boolean needsEscape(int cp) {
    if (cp == '\\') {
      return true;
    }
    switch (Character.getType(cp)) {
      case Character.CONTROL, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
          Character.SURROGATE:
        return true;
      default:
        return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E)
            || (cp >= 0x2066 && cp <= 0x2069);
    }
  }

  private static void escape(StringBuilder b, int cp) {
    switch (cp) {
      case '\\' -> b.append("\\\\");
      case '\n' -> b.append("\\n");
      case '\t' -> b.append("\\t");
      case '\r' -> b.append("\\r");
      case 0x07 -> b.append("\\a");
      case '\b' -> b.append("\\b");
      case '\f' -> b.append("\\f");
      case 0x0B -> b.append("\\v");
      default -> {
        // an unpaired surrogate has no UTF-8 form: its UTF-16 unit, as CESU-8 would write it
        byte[] bytes = Character.isSurrogate((char) cp) ? new byte[] {
            (byte) (0xE0 | cp >> 12), (byte) (0x80 | (cp >> 6 & 0x3F)), (byte) (0x80 | (cp & 0x3F))}
            : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
        for (byte x : bytes) {
          int v = x & 0xFF;
          b.append('\\').append((char) ('0' + (v >> 6))).append((char) ('0' + (v >> 3 & 7)))
              .append((char) ('0' + (v & 7)));
        }
      }
    }
  }
}
