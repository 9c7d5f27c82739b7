package io.parityfs.fuse;

/**
 * Where {@code readdir} puts entries: the binding's reply buffer. {@code offset} is the cookie
 * the kernel hands back to continue after this entry; a filler that answers false is full, and
 * the listing continues from the last accepted entry's offset at the next call.
 */
@FunctionalInterface
public interface DirectoryFiller {
  /**
   * Adds one entry.
   *
   * @param name the entry's name (no slash)
   * @param attributes its attributes, or null when only the name is known
   * @param offset the cookie of the entry after this one, &gt; 0
   * @return false when the reply buffer is full (the entry was not added)
   */
  boolean add(String name, FileAttributes attributes, long offset);
}
