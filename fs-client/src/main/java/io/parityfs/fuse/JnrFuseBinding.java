package io.parityfs.fuse;

import java.nio.ByteBuffer;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import jnr.ffi.types.mode_t;
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
 * native structures to and from the operations' own types and reads the requester's uid and
 * gid from each request's context. Holds no state of the file system. libfuse calls it from
 * several threads at once; each call's buffers are its own.
 */
public final class JnrFuseBinding extends FuseStubFS {
  private static final long UTIME_NOW = (1L << 30) - 1;
  private static final long UTIME_OMIT = (1L << 30) - 2;
  private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[0]);

  private final PfsFuseOperations ops;
  private final String fsName;

  public JnrFuseBinding(PfsFuseOperations ops, String fsName) {
    this.ops = ops;
    this.fsName = fsName;
  }

  @Override
  protected String getFSName() {
    return fsName;
  }

  private Requester who() {
    FuseContext c = getContext();
    return new Requester(c.uid.get(), c.gid.get());
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

  @Override
  public int getattr(String path, FileStat stat) {
    FileAttributes[] a = new FileAttributes[1];
    int rc = ops.getattr(who(), path, a);
    if (rc == 0) {
      fill(stat, a[0]);
    }
    return rc;
  }

  @Override
  public int fgetattr(String path, FileStat stat, FuseFileInfo fi) {
    FileAttributes[] a = new FileAttributes[1];
    int rc = ops.fgetattr(who(), fi.fh.get(), a);
    if (rc == 0) {
      fill(stat, a[0]);
    }
    return rc;
  }

  @Override
  public int mkdir(String path, @mode_t long mode) {
    return ops.mkdir(who(), path, (int) mode);
  }

  @Override
  public int rmdir(String path) {
    return ops.rmdir(who(), path);
  }

  @Override
  public int unlink(String path) {
    return ops.unlink(who(), path);
  }

  @Override
  public int rename(String oldpath, String newpath) {
    return ops.rename(who(), oldpath, newpath);
  }

  @Override
  public int symlink(String oldpath, String newpath) {
    return ops.symlink(oldpath, newpath);
  }

  @Override
  public int link(String oldpath, String newpath) {
    return ops.link(oldpath, newpath);
  }

  @Override
  public int mknod(String path, @mode_t long mode, long rdev) {
    return ops.mknod(path, (int) mode);
  }

  @Override
  public int chmod(String path, @mode_t long mode) {
    return ops.chmod(who(), path, (int) mode);
  }

  @Override
  public int chown(String path, long uid, long gid) {
    return ops.chown(who(), path, uid, gid);
  }

  @Override
  public int truncate(String path, @off_t long size) {
    return ops.truncate(who(), path, size);
  }

  @Override
  public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
    return ops.ftruncate(who(), path, fi.fh.get(), size);
  }

  @Override
  public int utimens(String path, Timespec[] timespec) {
    return ops.utimens(who(), path, millis(timespec[0]), millis(timespec[1]));
  }

  private static long millis(Timespec t) {
    long nsec = t.tv_nsec.longValue();
    if (nsec == UTIME_OMIT) {
      return -1;
    }
    if (nsec == UTIME_NOW) {
      return System.currentTimeMillis();
    }
    return t.tv_sec.get() * 1000 + nsec / 1_000_000;
  }

  @Override
  public int statfs(String path, Statvfs stbuf) {
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

  @Override
  public int create(String path, @mode_t long mode, FuseFileInfo fi) {
    long[] fh = new long[1];
    int rc = ops.create(who(), path, (int) mode, fi.flags.get(), fh);
    if (rc == 0) {
      fi.fh.set(fh[0]);
    }
    return rc;
  }

  @Override
  public int open(String path, FuseFileInfo fi) {
    long[] fh = new long[1];
    int rc = ops.open(who(), path, fi.flags.get(), fh);
    if (rc == 0) {
      fi.fh.set(fh[0]);
    }
    return rc;
  }

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
  public int opendir(String path, FuseFileInfo fi) {
    long[] fh = new long[1];
    int rc = ops.opendir(who(), path, fh);
    if (rc == 0) {
      fi.fh.set(fh[0]);
    }
    return rc;
  }

  @Override
  public int readdir(String path, Pointer buf, FuseFillDir filter, @off_t long offset,
      FuseFileInfo fi) {
    Runtime rt = Runtime.getSystemRuntime();
    FileStat st = new FileStat(rt);
    st.useMemory(rt.getMemoryManager().allocateDirect(Struct.size(st)));
    return ops.readdir(who(), path, fi.fh.get(), offset, (name, attrs, next) -> {
      if (attrs != null) {
        fill(st, attrs);
        return filter.apply(buf, name, st, next) == 0;
      }
      return filter.apply(buf, name, null, next) == 0;
    });
  }

  @Override
  public int releasedir(String path, FuseFileInfo fi) {
    return ops.releasedir(fi.fh.get());
  }

  @Override
  public int setxattr(String path, String name, Pointer value, @size_t long size, int flags) {
    byte[] v = new byte[(int) size];
    value.get(0, v, 0, v.length);
    return ops.setxattr(who(), path, name, v, flags);
  }

  @Override
  public int getxattr(String path, String name, Pointer value, @size_t long size) {
    ByteBuffer dst = ByteBuffer.allocate((int) size);
    int n = ops.getxattr(who(), path, name, dst);
    if (n > 0 && size > 0) {
      value.put(0, dst.array(), 0, n);
    }
    return n;
  }

  @Override
  public int listxattr(String path, Pointer list, @size_t long size) {
    ByteBuffer dst = ByteBuffer.allocate((int) size);
    int n = ops.listxattr(who(), path, dst);
    if (n > 0 && size > 0) {
      list.put(0, dst.array(), 0, n);
    }
    return n;
  }

  @Override
  public int removexattr(String path, String name) {
    return ops.removexattr(who(), path, name);
  }
}
