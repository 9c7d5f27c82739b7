package io.parityfs.meta;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * File names and paths: validation, the ZooKeeper-safe encoding of a name as a znode name, the
 * listing order and the bucket of a name.
 *
 * <p><b>Names.</b> Any Unicode string of 1..255 UTF-8 bytes except {@code "."}, {@code ".."} and
 * strings containing {@code '/'} or NUL. Unpaired surrogates are rejected (they have no UTF-8
 * form). Everything else, control characters and emoji included, is a valid name.
 *
 * <p><b>Encoding.</b> ZooKeeper rejects path characters U+0001..U+001F, U+007F..U+009F,
 * U+D800..U+F8FF (so every character outside the BMP) and U+FFF0..U+FFFF. The znode name of a
 * file name is the name with {@code '%'} and each rejected character replaced by its UTF-8 bytes
 * as {@code %XX} (upper-case hex): {@code "a%b"} is {@code "a%25b"}, {@code "x\u0001"} is
 * {@code "x%01"}, {@code "😀"} is {@code "%F0%9F%98%80"}. The encoding is injective and never
 * produces {@code '/'}, {@code "."} or {@code ".."}, so no name can leave its directory.
 *
 * <p><b>Paths.</b> Absolute, {@code '/'}-separated; repeated and trailing slashes are dropped;
 * at most 1000 components and 8000 UTF-8 bytes (HDFS's limits).
 */
final class Names {
  static final int MAX_NAME_BYTES = 255;
  static final int MAX_DEPTH = 1000;
  static final int MAX_PATH_BYTES = 8000;
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** Unsigned UTF-8 byte order, the order of listings (same as HDFS). */
  static final Comparator<String> ORDER = Names::compareUtf8;

  private Names() {}

  /** The components of an absolute path; empty for the root. */
  static List<String> split(String path) throws NamespaceException {
    if (path == null || !path.startsWith("/")) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, String.valueOf(path),
          "not an absolute path");
    }
    if (utf8Length(path, path) > MAX_PATH_BYTES) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
          "longer than " + MAX_PATH_BYTES + " bytes");
    }
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = path.length();
    while (i < n) {
      int j = path.indexOf('/', i);
      if (j < 0) {
        j = n;
      }
      if (j > i) {
        String name = path.substring(i, j);
        checkName(name, path);
        out.add(name);
        if (out.size() > MAX_DEPTH) {
          throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
              "deeper than " + MAX_DEPTH + " components");
        }
      }
      i = j + 1;
    }
    return out;
  }

  /** The normalised path of components (the root is "/"). */
  static String join(List<String> components) {
    if (components.isEmpty()) {
      return "/";
    }
    StringBuilder b = new StringBuilder();
    for (String c : components) {
      b.append('/').append(c);
    }
    return b.toString();
  }

  static String child(String parentPath, String name) {
    return parentPath.equals("/") ? "/" + name : parentPath + "/" + name;
  }

  /** Validates one name (a component or an argument that must be a single name). */
  static void checkName(String name, String path) throws NamespaceException {
    if (name.isEmpty()) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path), "empty name");
    }
    if (name.equals(".") || name.equals("..")) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
          "'" + name + "' is not allowed as a name");
    }
    if (name.indexOf('/') >= 0) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
          "a name cannot contain '/'");
    }
    if (name.indexOf('\0') >= 0) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
          "a name cannot contain NUL");
    }
    if (utf8Length(name, path) > MAX_NAME_BYTES) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
          "name longer than " + MAX_NAME_BYTES + " UTF-8 bytes");
    }
  }

  /** The znode name of a valid name. */
  static String encode(String name) {
    StringBuilder b = null;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!needsEscape(c)) {
        if (b != null) {
          b.append(c);
        }
        continue;
      }
      if (b == null) {
        b = new StringBuilder(name.length() + 16).append(name, 0, i);
      }
      int cp = name.codePointAt(i);
      if (Character.charCount(cp) == 2) {
        i++;
      }
      byte[] bytes = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
      for (byte x : bytes) {
        b.append('%').append(HEX[(x >> 4) & 0xF]).append(HEX[x & 0xF]);
      }
    }
    return b == null ? name : b.toString();
  }

  /**
   * The name of a znode name made by {@link #encode}. Only what {@code encode} makes is accepted:
   * the decoded name must be a valid name whose encoding is {@code encoded} again (upper-case
   * hex, only the characters that need it escaped), so a foreign or damaged znode ({@code
   * "a%2Fb"}, which would decode to a name with a slash, {@code "%2e"}, {@code "%41"}) is CORRUPT
   * and never reaches a caller as a name. Two znodes can therefore never carry one name.
   */
  static String decode(String encoded) throws NamespaceException {
    String name = decodeBytes(encoded);
    try {
      checkName(name, name);
    } catch (NamespaceException e) {
      throw corrupt(encoded);
    }
    if (name != encoded && !encode(name).equals(encoded)) {
      throw corrupt(encoded); // not the canonical encoding: lower-case hex, a needless escape
    }
    return name;
  }

  private static String decodeBytes(String encoded) throws NamespaceException {
    if (encoded.indexOf('%') < 0) {
      return encoded;
    }
    ByteBuffer bytes = ByteBuffer.allocate(encoded.length() * 3);
    byte[] plain = encoded.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < plain.length; i++) {
      if (plain[i] == '%') {
        if (i + 2 >= plain.length) {
          throw corrupt(encoded);
        }
        int hi = Character.digit(plain[i + 1], 16);
        int lo = Character.digit(plain[i + 2], 16);
        if (hi < 0 || lo < 0) {
          throw corrupt(encoded);
        }
        bytes.put((byte) (hi << 4 | lo));
        i += 2;
      } else {
        bytes.put(plain[i]);
      }
    }
    bytes.flip();
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      return d.decode(bytes).toString();
    } catch (CharacterCodingException e) {
      throw corrupt(encoded);
    }
  }

  /** The bucket (two hex digits) of a name in a directory of {@code buckets} buckets. */
  static String bucket(String name, int buckets) {
    int h = 0x811c9dc5; // FNV-1a, 32 bit, over the UTF-8 bytes
    for (byte x : name.getBytes(StandardCharsets.UTF_8)) {
      h ^= x & 0xff;
      h *= 0x01000193;
    }
    int b = (h ^ (h >>> 16)) & (buckets - 1);
    return new String(new char[] {HEX[b >> 4], HEX[b & 0xF]});
  }

  static String bucketName(int index) {
    return new String(new char[] {HEX[(index >> 4) & 0xF], HEX[index & 0xF]});
  }

  static int compareUtf8(String a, String b) {
    // UTF-16 order equals UTF-8 (code point) order except around surrogates; compare code points.
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static boolean needsEscape(char c) {
    return c == '%' || (c >= '\u0001' && c <= '\u001f') || (c >= '\u007f' && c <= '\u009f')
        || (c >= '\ud800' && c <= '\uf8ff') || c >= '\ufff0';
  }

  private static int utf8Length(String s, String path) throws NamespaceException {
    CharsetEncoder e = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      return e.encode(CharBuffer.wrap(s)).remaining();
    } catch (CharacterCodingException x) {
      throw new NamespaceException(NamespaceStatus.INVALID_PATH, abbreviate(path),
          "not valid Unicode (unpaired surrogate)");
    }
  }

  static String abbreviate(String path) {
    return path.length() <= 200 ? path : path.substring(0, 200) + "...";
  }

  private static NamespaceException corrupt(String encoded) {
    return new NamespaceException(NamespaceStatus.CORRUPT, encoded,
        "znode name is not a valid encoded name");
  }
}
