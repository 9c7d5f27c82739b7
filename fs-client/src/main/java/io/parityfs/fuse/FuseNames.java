package io.parityfs.fuse;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import jnr.ffi.Pointer;

/**
 * Paths and names between the kernel's bytes and the namespace's strings: always UTF-8,
 * whatever the JVM's default charset or locale, and strict. A path that is not valid UTF-8 (a
 * name such as {@code $'\xff'}) has no string: the mount refuses it (EINVAL) rather than map
 * it to U+FFFD, where {@code \xff} and {@code \xfe} would be one file.
 */
public final class FuseNames {
  private FuseNames() {}

  /** The string of UTF-8 bytes, or null when they are not valid UTF-8. */
  public static String decode(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** The NUL-terminated C string at {@code p}, decoded; null when it is not valid UTF-8. */
  static String decode(Pointer p) {
    long n = p.indexOf(0, (byte) 0);
    byte[] b = new byte[(int) n];
    p.get(0, b, 0, b.length);
    return decode(b);
  }

  /** A name for the kernel (readdir): its UTF-8 bytes and a NUL. */
  static ByteBuffer encode(String name) {
    byte[] b = name.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(b.length + 1);
    out.put(b).put((byte) 0).flip();
    return out;
  }
}
