package io.parityfs.fuse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import jnr.ffi.provider.ClosureManager;
import jnr.ffi.provider.jffi.ClosureHelper;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseContext;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * The jnr-fuse (libfuse 2, high-level API) binding of {@link PfsFuseOperations}: converts
 * native structures to and from the operations' own types and reads the requester's uid, gid
 * and supplementary groups from each request's context. Holds no state of the file system.
 * libfuse calls it from several threads at once; each call's buffers are its own.
 *
 * <p><b>Names are bytes.</b> Every callback that takes a path or a name is installed with the
 * raw pointer ({@link RawCallbacks}) in place of jnr-fuse's {@code String} one, and decoded here
 * as strict UTF-8 ({@link FuseNames}): independent of the JVM's default charset and locale; a
 * path that is not UTF-8 is refused with EINVAL. Names listed go back as UTF-8 bytes.
 */
public final class JnrFuseBinding extends FuseStubFS implements FuseBinding {
  private static final long UTIME_NOW = (1L << 30) - 1;
  private static final long UTIME_OMIT = (1L << 30) - 2;
  /** fuse.h's {@code flag_utime_omit_ok}, bit 2 of the flags word. */
  private static final int UTIME_OMIT_OK = 1 << 2;
  private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[0]);

  private final PfsFuseOperations ops;
  private final String fsName;
  /** The installed callbacks: jnr-ffi keeps a closure's Java object only weakly. */
  private final List<Object> closures = new ArrayList<>();

  public JnrFuseBinding(PfsFuseOperations ops, String fsName) {
    this.ops = ops;
    this.fsName = fsName;
    installRawPathCallbacks();
  }

  @Override
  protected String getFSName() {
    return fsName;
  }

  @Override
  public String describe() {
    return "libfuse 2 (jnr-fuse), " + (maxRequest() >> 10) + " KiB requests";
  }

  @Override
  public int maxRequest() {
    return 128 << 10;
  }

  /** 128 KiB requests: libfuse 2's largest ({@code big_writes}, {@code max_write}). */
  @Override
  public List<String> libfuseOptions() {
    return List.of("use_ino", "hard_remove", "big_writes", "max_write=131072",
        "max_readahead=4194304");
  }

  /** libfuse's loop runs on a thread of its own until the file system is unmounted. */
  @Override
  public CompletableFuture<Void> start(Path at, List<String> args, boolean debug) {
    return FuseBinding.onLoopThread(() -> mount(at, true, debug, args.toArray(new String[0])));
  }

  /** Nothing to free: the loop frees its session when it ends. */
  @Override
  public void release() {}

  private Requester who() {
    FuseContext c = getContext();
    return new Requester(c.uid.get(), c.gid.get(), groupsOf(c.pid.get()));
  }

  /**
   * The supplementary groups of a process (or thread) id, from {@code /proc/<pid>/status}
   * ({@code Groups:}), as libfuse's {@code fuse_getgroups}; empty when it cannot be read.
   */
  static List<Long> groupsOf(long pid) {
    if (pid <= 0) {
      return List.of();
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"),
          StandardCharsets.ISO_8859_1)) {
        if (line.startsWith("Groups:")) {
          List<Long> out = new ArrayList<>();
          for (String g : line.substring(7).trim().split("\\s+")) {
            if (!g.isEmpty()) {
              out.add(Long.parseLong(g));
            }
          }
          return out;
        }
      }
    } catch (NoSuchFileException e) {
      // the process is gone
    } catch (IOException | NumberFormatException e) {
      // unreadable: its user database groups still count
    }
    return List.of();
  }

  /** A per-thread scratch array of at least {@code n} bytes. */
  private static byte[] scratch(long n) {
    byte[] b = BUFFERS.get();
    if (b.length < n) {
      b = new byte[(int) Math.max(n, 128 << 10)];
      BUFFERS.set(b);
    }
    return b;
  }

  private static void fill(FileStat st, FileAttributes a) {
    st.st_ino.set(a.inode());
    st.st_mode.set(a.mode());
    st.st_nlink.set(a.nlink());
    st.st_uid.set(a.uid());
    st.st_gid.set(a.gid());
    st.st_size.set(a.size());
    st.st_blksize.set(a.blockSize());
    st.st_blocks.set(a.blocks());
    time(st.st_atim, a.accessMillis());
    time(st.st_mtim, a.modificationMillis());
    time(st.st_ctim, a.modificationMillis());
  }

  private static void time(Timespec t, long millis) {
    t.tv_sec.set(Math.floorDiv(millis, 1000));
    t.tv_nsec.set(Math.floorMod(millis, 1000) * 1_000_000L);
  }

  /**
   * Replaces jnr-fuse's {@code String}-path entries of the operations table (filled by its
   * constructor) with {@link RawCallbacks}, before {@code mount} hands the table to libfuse.
   */
  private void installRawPathCallbacks() {
    var t = fuseOperations;
    setUtimeOmitOk();
    install(t.getattr.offset(), RawCallbacks.PathPointer.class, (p, stat) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : stat(path, FileStat.of(stat));
    });
    install(t.fgetattr.offset(), RawCallbacks.PathTwoPointers.class, (p, stat, fi) ->
        fstat(FileStat.of(stat), FuseFileInfo.of(fi)));
    install(t.mkdir.offset(), RawCallbacks.PathMode.class, (p, mode) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : ops.mkdir(who(), path, (int) mode);
    });
    install(t.rmdir.offset(), RawCallbacks.PathOnly.class, p -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : ops.rmdir(who(), path);
    });
    install(t.unlink.offset(), RawCallbacks.PathOnly.class, p -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : ops.unlink(who(), path);
    });
    install(t.rename.offset(), RawCallbacks.TwoPaths.class, (a, b) -> {
      String from = FuseNames.decode(a);
      String to = FuseNames.decode(b);
      return from == null || to == null ? -Errno.EINVAL : ops.rename(who(), from, to);
    });
    install(t.symlink.offset(), RawCallbacks.TwoPaths.class, (a, b) -> {
      String target = FuseNames.decode(a);
      String path = FuseNames.decode(b);
      return target == null || path == null ? -Errno.EINVAL : ops.symlink(who(), target, path);
    });
    install(t.readlink.offset(), RawCallbacks.Readlink.class, (p, buf, size) -> {
      String path = FuseNames.decode(p);
      if (path == null) {
        return -Errno.EINVAL;
      }
      byte[][] target = new byte[1][];
      int rc = ops.readlink(who(), path, target);
      if (rc == 0) {
        byte[] c = PfsFuseOperations.linkBytes(target[0], size);
        buf.put(0, c, 0, c.length);
      }
      return rc;
    });
    install(t.link.offset(), RawCallbacks.TwoPaths.class, (a, b) -> -Errno.EPERM);
    install(t.mknod.offset(), RawCallbacks.Mknod.class, (p, mode, rdev) -> -Errno.EPERM);
    install(t.chmod.offset(), RawCallbacks.PathMode.class, (p, mode) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : ops.chmod(who(), path, (int) mode);
    });
    install(t.chown.offset(), RawCallbacks.Chown.class, (p, uid, gid) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : ops.chown(who(), path, uid, gid);
    });
    install(t.truncate.offset(), RawCallbacks.Truncate.class, (p, size) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : ops.truncate(who(), path, size);
    });
    install(t.ftruncate.offset(), RawCallbacks.Ftruncate.class, (p, size, fi) -> {
      String path = FuseNames.decode(p);
      return ops.ftruncate(who(), path, FuseFileInfo.of(fi).fh.get(), size);
    });
    install(t.utimens.offset(), RawCallbacks.PathPointer.class, (p, times) -> {
      String path = FuseNames.decode(p);
      if (path == null) {
        return -Errno.EINVAL;
      }
      Timespec atime = Timespec.of(times);
      Timespec mtime = Timespec.of(times.slice(Struct.size(atime)));
      return ops.utimens(who(), path, millis(atime), millis(mtime));
    });
    install(t.statfs.offset(), RawCallbacks.PathPointer.class, (p, st) ->
        fsStats(FuseNames.decode(p), Statvfs.of(st)));
    install(t.create.offset(), RawCallbacks.Create.class, (p, mode, fi) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : createFile(path, (int) mode, FuseFileInfo.of(fi));
    });
    install(t.open.offset(), RawCallbacks.PathPointer.class, (p, fi) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : openFile(path, FuseFileInfo.of(fi));
    });
    install(t.opendir.offset(), RawCallbacks.PathPointer.class, (p, fi) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : openDir(path, FuseFileInfo.of(fi));
    });
    install(t.readdir.offset(), RawCallbacks.Readdir.class, (p, buf, filler, offset, fi) -> {
      String path = FuseNames.decode(p);
      ClosureHelper helper = ClosureHelper.getInstance();
      FuseFillDir fill = (FuseFillDir) helper.getNativeConveter(FuseFillDir.class)
          .fromNative(filler, helper.getFromNativeContext());
      return path == null ? -Errno.EINVAL : listDir(path, buf, fill, offset,
          FuseFileInfo.of(fi));
    });
    install(t.setxattr.offset(), RawCallbacks.Setxattr.class, (p, n, value, size, flags) -> {
      String path = FuseNames.decode(p);
      String name = FuseNames.decode(n);
      return path == null || name == null ? -Errno.EINVAL
          : setXattr(path, name, value, size, flags);
    });
    install(t.getxattr.offset(), RawCallbacks.Getxattr.class, (p, n, value, size) -> {
      String path = FuseNames.decode(p);
      String name = FuseNames.decode(n);
      return path == null || name == null ? -Errno.EINVAL : getXattr(path, name, value, size);
    });
    install(t.listxattr.offset(), RawCallbacks.Listxattr.class, (p, list, size) -> {
      String path = FuseNames.decode(p);
      return path == null ? -Errno.EINVAL : listXattr(path, list, size);
    });
    install(t.removexattr.offset(), RawCallbacks.TwoPaths.class, (p, n) -> {
      String path = FuseNames.decode(p);
      String name = FuseNames.decode(n);
      return path == null || name == null ? -Errno.EINVAL : ops.removexattr(who(), path, name);
    });
  }

  /**
   * Sets fuse.h's {@code flag_utime_omit_ok}: without it libfuse 2 calls {@code utimens} only
   * when a request sets both times, and silently drops one that sets one of them ({@code touch
   * -m}, {@code utimensat} with UTIME_OMIT), and turns UTIME_NOW into a time. jnr-fuse declares
   * the bit fields as padding: {@code unsigned int flag_nullpath_ok:1, flag_nopath:1,
   * flag_utime_omit_ok:1, flag_reserved:29} after {@code bmap}; bit 2 of that word on the
   * little-endian ABIs the mount runs on.
   */
  private void setUtimeOmitOk() {
    var t = fuseOperations;
    long word = t.bmap.offset() + Runtime.getSystemRuntime().addressSize();
    if (t.ioctl.offset() != word + 8 || Runtime.getSystemRuntime().byteOrder()
        != ByteOrder.LITTLE_ENDIAN) {
      throw new IllegalStateException("unexpected fuse_operations layout: bmap at "
          + t.bmap.offset() + ", ioctl at " + t.ioctl.offset());
    }
    Pointer mem = Struct.getMemory(t);
    mem.putInt(word, mem.getInt(word) | UTIME_OMIT_OK);
  }

  /** Writes one callback into libfuse's operations table. */
  private <T> void install(long offset, Class<T> type, T callback) {
    ClosureManager closures = Runtime.getSystemRuntime().getClosureManager();
    Pointer fn = closures.getClosurePointer(type, callback);
    Struct.getMemory(fuseOperations).putPointer(offset, fn);
    this.closures.add(callback);
    this.closures.add(fn);
  }

  private int stat(String path, FileStat stat) {
    FileAttributes[] a = new FileAttributes[1];
    int rc = ops.getattr(who(), path, a);
    if (rc == 0) {
      fill(stat, a[0]);
    }
    return rc;
  }

  private int fstat(FileStat stat, FuseFileInfo fi) {
    FileAttributes[] a = new FileAttributes[1];
    int rc = ops.fgetattr(who(), fi.fh.get(), a);
    if (rc == 0) {
      fill(stat, a[0]);
    }
    return rc;
  }

  private static long millis(Timespec t) {
    long nsec = t.tv_nsec.longValue();
    if (nsec == UTIME_OMIT) {
      return PfsFuseOperations.UTIME_OMIT;
    }
    if (nsec == UTIME_NOW) {
      return PfsFuseOperations.UTIME_NOW;
    }
    return t.tv_sec.get() * 1000 + nsec / 1_000_000;
  }

  private int fsStats(String path, Statvfs stbuf) {
    FsStats[] s = new FsStats[1];
    int rc = ops.statfs(path, s);
    if (rc == 0) {
      FsStats f = s[0];
      stbuf.f_bsize.set(f.blockSize());
      stbuf.f_frsize.set(f.blockSize());
      stbuf.f_blocks.set(f.blocks());
      stbuf.f_bfree.set(f.freeBlocks());
      stbuf.f_bavail.set(f.freeBlocks());
      stbuf.f_files.set(f.files());
      stbuf.f_ffree.set(f.freeFiles());
      stbuf.f_favail.set(f.freeFiles());
      stbuf.f_namemax.set(f.nameMax());
    }
    return rc;
  }

  private int createFile(String path, int mode, FuseFileInfo fi) {
    long[] fh = new long[1];
    int rc = ops.create(who(), path, mode, fi.flags.get(), fh);
    if (rc == 0) {
      fi.fh.set(fh[0]);
    }
    return rc;
  }

  private int openFile(String path, FuseFileInfo fi) {
    long[] fh = new long[1];
    int rc = ops.open(who(), path, fi.flags.get(), fh);
    if (rc == 0) {
      fi.fh.set(fh[0]);
    }
    return rc;
  }

  private int openDir(String path, FuseFileInfo fi) {
    long[] fh = new long[1];
    int rc = ops.opendir(who(), path, fh);
    if (rc == 0) {
      fi.fh.set(fh[0]);
    }
    return rc;
  }

  private int listDir(String path, Pointer buf, FuseFillDir filter, long offset,
      FuseFileInfo fi) {
    Runtime rt = Runtime.getSystemRuntime();
    FileStat st = new FileStat(rt);
    st.useMemory(rt.getMemoryManager().allocateDirect(Struct.size(st)));
    Pointer stat = Struct.getMemory(st);
    return ops.readdir(who(), path, fi.fh.get(), offset, (name, attrs, next) -> {
      if (attrs != null) {
        fill(st, attrs);
        return filter.apply(buf, FuseNames.encode(name), stat, next) == 0;
      }
      return filter.apply(buf, FuseNames.encode(name), null, next) == 0;
    });
  }

  private int setXattr(String path, String name, Pointer value, @size_t long size, int flags) {
    byte[] v = new byte[(int) size];
    value.get(0, v, 0, v.length);
    return ops.setxattr(who(), path, name, v, flags);
  }

  private int getXattr(String path, String name, Pointer value, @size_t long size) {
    ByteBuffer dst = ByteBuffer.allocate((int) size);
    int n = ops.getxattr(this::who, path, name, dst);
    if (n > 0 && size > 0) {
      value.put(0, dst.array(), 0, n);
    }
    return n;
  }

  private int listXattr(String path, Pointer list, @size_t long size) {
    ByteBuffer dst = ByteBuffer.allocate((int) size);
    int n = ops.listxattr(who(), path, dst);
    if (n > 0 && size > 0) {
      list.put(0, dst.array(), 0, n);
    }
    return n;
  }

  // ------------------------------------------------------------------ handle callbacks
  // (jnr-fuse's own: their path argument is not used)

  @Override
  public int read(String path, Pointer buf, @size_t long size, @off_t long offset,
      FuseFileInfo fi) {
    byte[] b = scratch(size);
    ByteBuffer dst = ByteBuffer.wrap(b, 0, (int) size);
    int n = ops.read(path, fi.fh.get(), offset, dst);
    if (n > 0) {
      buf.put(0, b, 0, n);
    }
    return n;
  }

  @Override
  public int write(String path, Pointer buf, @size_t long size, @off_t long offset,
      FuseFileInfo fi) {
    byte[] b = scratch(size);
    buf.get(0, b, 0, (int) size);
    return ops.write(path, fi.fh.get(), offset, ByteBuffer.wrap(b, 0, (int) size));
  }

  @Override
  public int flush(String path, FuseFileInfo fi) {
    return ops.flush(path, fi.fh.get());
  }

  @Override
  public int fsync(String path, int isdatasync, FuseFileInfo fi) {
    return ops.fsync(path, fi.fh.get());
  }

  @Override
  public int release(String path, FuseFileInfo fi) {
    return ops.release(path, fi.fh.get());
  }

  @Override
  public int releasedir(String path, FuseFileInfo fi) {
    return ops.releasedir(fi.fh.get());
  }
}
