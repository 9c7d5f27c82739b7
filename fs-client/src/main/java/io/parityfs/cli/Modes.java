package io.parityfs.cli;

/** POSIX mode bits as {@code ls -l} and {@code stat} show them. */
final class Modes {
  private Modes() {}

  /** {@code 0644}. */
  static String octal(int mode) {
    return String.format("%04o", mode & 07777);
  }

  /** {@link #symbolic(char, int)} of an entry: {@code d}, {@code l} or {@code -} first. */
  static String symbolic(io.parityfs.meta.FileStatus f) {
    return symbolic(f.isDirectory() ? 'd' : f.isSymlink() ? 'l' : '-', f.permission());
  }

  /** {@code drwxr-xr-x}, {@code -rw-r--r--}, with s/S and t/T for setuid, setgid, sticky. */
  static String symbolic(boolean directory, int mode) {
    return symbolic(directory ? 'd' : '-', mode);
  }

  private static String symbolic(char type, int mode) {
    StringBuilder b = new StringBuilder(10);
    b.append(type);
    for (int who = 2; who >= 0; who--) {
      int bits = (mode >> (who * 3)) & 7;
      b.append((bits & 4) != 0 ? 'r' : '-');
      b.append((bits & 2) != 0 ? 'w' : '-');
      boolean x = (bits & 1) != 0;
      boolean special = who == 2 ? (mode & 04000) != 0 : who == 1 ? (mode & 02000) != 0
          : (mode & 01000) != 0;
      char set = who == 0 ? 't' : 's';
      b.append(special ? (x ? set : Character.toUpperCase(set)) : x ? 'x' : '-');
    }
    return b.toString();
  }
}
