package io.parityfs.fuse;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.Delegate;
import jnr.ffi.types.dev_t;
import jnr.ffi.types.gid_t;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import jnr.ffi.types.uid_t;

/**
 * libfuse 2's high-level callbacks that take a path (or a name), with the path as the raw
 * {@code const char *}. jnr-fuse declares them with {@code String} parameters, which jnr-ffi
 * decodes with the JVM's default charset, replacing what does not decode: under a POSIX locale
 * on JDK 17 every non-ASCII name became '?', and on any JDK {@code \xff} and {@code \xfe} became
 * the same U+FFFD. {@link JnrFuseBinding} installs these instead and decodes the bytes itself
 * ({@link FuseNames}). The native types are jnr-fuse's ({@code FuseCallbacks}). Public only
 * because the closures jnr-ffi generates (in a class loader of its own) must see the interfaces.
 */
public final class RawCallbacks {
  private RawCallbacks() {}

  /** getattr, open, opendir, statfs, utimens: a path and one pointer. */
  @FunctionalInterface
  public interface PathPointer {
    @Delegate
    int call(Pointer path, Pointer p);
  }

  /** unlink, rmdir. */
  @FunctionalInterface
  public interface PathOnly {
    @Delegate
    int call(Pointer path);
  }

  /** rename, symlink, link; removexattr (a path and a name). */
  @FunctionalInterface
  public interface TwoPaths {
    @Delegate
    int call(Pointer a, Pointer b);
  }

  /** fgetattr: path, struct stat, fuse_file_info. */
  @FunctionalInterface
  public interface PathTwoPointers {
    @Delegate
    int call(Pointer path, Pointer a, Pointer b);
  }

  /** mkdir, chmod. */
  @FunctionalInterface
  public interface PathMode {
    @Delegate
    int call(Pointer path, @mode_t long mode);
  }

  @FunctionalInterface
  public interface Mknod {
    @Delegate
    int mknod(Pointer path, @mode_t long mode, @dev_t long rdev);
  }

  @FunctionalInterface
  public interface Create {
    @Delegate
    int create(Pointer path, @mode_t long mode, Pointer fi);
  }

  @FunctionalInterface
  public interface Chown {
    @Delegate
    int chown(Pointer path, @uid_t long uid, @gid_t long gid);
  }

  @FunctionalInterface
  public interface Truncate {
    @Delegate
    int truncate(Pointer path, @off_t long size);
  }

  @FunctionalInterface
  public interface Ftruncate {
    @Delegate
    int ftruncate(Pointer path, @off_t long size, Pointer fi);
  }

  @FunctionalInterface
  public interface Readdir {
    @Delegate
    int readdir(Pointer path, Pointer buf, Pointer filler, @off_t long offset, Pointer fi);
  }

  /** readlink: path, the buffer for the target, its size (the NUL included). */
  @FunctionalInterface
  public interface Readlink {
    @Delegate
    int readlink(Pointer path, Pointer buf, @size_t long size);
  }

  @FunctionalInterface
  public interface Setxattr {
    @Delegate
    int setxattr(Pointer path, Pointer name, Pointer value, @size_t long size, int flags);
  }

  @FunctionalInterface
  public interface Getxattr {
    @Delegate
    int getxattr(Pointer path, Pointer name, Pointer value, @size_t long size);
  }

  @FunctionalInterface
  public interface Listxattr {
    @Delegate
    int listxattr(Pointer path, Pointer list, @size_t long size);
  }
}
