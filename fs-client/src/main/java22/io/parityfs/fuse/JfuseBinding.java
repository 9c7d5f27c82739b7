package io.parityfs.fuse;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import org.cryptomator.jfuse.api.Fuse;
import org.cryptomator.jfuse.api.FuseBuilder;
import org.cryptomator.jfuse.api.FuseMount;
import org.cryptomator.jfuse.api.FuseOperations;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.fuse_config;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.fuse_conn_info;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.fuse_file_info;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.fuse_fill_dir_t;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.fuse_operations;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.stat;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.statvfs;
import org.cryptomator.jfuse.linux.amd64.extr.fuse3.timespec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The libfuse 3 binding of {@link PfsFuseOperations} (JDK 22+, the foreign function API): the
 * kernel's requests of up to {@value #MAX_REQUEST} bytes, libfuse's multi-threaded loop, and
 * reads and writes straight between the kernel's request buffer and the operations (no copy in
 * the binding). Holds no state of the file system; libfuse calls it from several threads at
 * once.
 *
 * <p><b>What jfuse does and what this class does.</b> jfuse (Cryptomator's binding, pinned in
 * the pom) loads libfuse 3, parses the arguments, runs {@code fuse_new} (whose symbol differs
 * between libfuse versions), {@code fuse_mount} and the loop, and its jextract-generated classes
 * describe libfuse's structures. Its own callbacks are not used: they read every path as a
 * string and crash the JVM on the NULL path libfuse passes for a file unlinked while open
 * ({@code hard_remove}), and an exception thrown in them ends the JVM too. So every callback in
 * {@code fuse_operations} is this class's: a NULL path is null, names are decoded strictly
 * (bytes that are not UTF-8 are EINVAL, as with libfuse 2, see {@link FuseNames}), and a
 * callback that throws answers EIO. Two protected members of jfuse's {@code Fuse} are reached by
 * reflection: its operations table (to fill) and {@code mount(List)} (so that the loop runs on
 * this mount's thread, whose end is the unmount). {@code FuseMountTest} proves them on every
 * CI run on JDK 22+.
 *
 * <p>Not carried (ENOSYS, as libfuse answers for a callback it lacks): {@code access} (the kernel checks, {@code default_permissions}), locks, {@code fallocate},
 * {@code lseek}, {@code copy_file_range}; RENAME_EXCHANGE is EINVAL.
 */
final class JfuseBinding implements FuseBinding {
  private static final Logger LOG = LoggerFactory.getLogger(JfuseBinding.class);
  /** max_write: the kernel sends writes (and direct reads) of up to 1 MiB. */
  static final int MAX_REQUEST = 1 << 20;
  /** The read-ahead asked for; the kernel keeps the smaller of this and its own. */
  static final int MAX_READAHEAD = 4 << 20;
  private static final int RENAME_NOREPLACE = 1;
  private static final long UTIME_NOW = (1L << 30) - 1;
  private static final long UTIME_OMIT = (1L << 30) - 2;

  private final PfsFuseOperations ops;
  private final Fuse fuse;
  private final MethodHandle getContext;
  private FuseMount session;
  private CompletableFuture<Void> loop;

  JfuseBinding(PfsFuseOperations ops, Path library) throws ReflectiveOperationException {
    this.ops = ops;
    FuseBuilder builder = Fuse.builder();
    builder.setLibraryPath(library.toString());
    org.cryptomator.jfuse.api.Errno errno = builder.errno();
    this.fuse = builder.build(new FuseOperations() { // binds none of its own callbacks
      @Override
      public org.cryptomator.jfuse.api.Errno errno() {
        return errno;
      }

      @Override
      public Set<Operation> supportedOperations() {
        return EnumSet.noneOf(Operation.class);
      }
    });
    MemorySegment fn = SymbolLookup.libraryLookup(library, Arena.global())
        .find("fuse_get_context")
        .orElseThrow(() -> new UnsatisfiedLinkError("no fuse_get_context in " + library));
    this.getContext = Linker.nativeLinker().downcallHandle(fn,
        FunctionDescriptor.of(ValueLayout.ADDRESS));
    install((MemorySegment) member("fuseOperationsStruct").get(fuse),
        (Arena) member("fuseArena").get(fuse));
  }

  private static Field member(String name) throws NoSuchFieldException {
    Field f = Fuse.class.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  @Override
  public String describe() {
    return "libfuse 3 (jfuse), " + (maxRequest() >> 10) + " KiB requests";
  }

  @Override
  public int maxRequest() {
    return MAX_REQUEST;
  }

  /** libfuse 3 takes {@code use_ino} and {@code hard_remove} in its init ({@link #init}). */
  @Override
  public List<String> libfuseOptions() {
    return List.of("fsname=parityfs");
  }

  /**
   * Mounts through jfuse's {@code Fuse.mount(List)} ({@code fuse_new}, {@code fuse_mount}) and
   * runs the session's loop on a thread of this mount's, so that the future ends exactly when
   * libfuse's loop does: after an unmount, once the last file open through a lazily unmounted
   * mount is closed.
   */
  @Override
  public CompletableFuture<Void> start(Path at, List<String> args, boolean debug)
      throws IOException {
    List<String> argv = new ArrayList<>();
    argv.add("parityfs");
    argv.addAll(args);
    if (debug) {
      argv.add("-d");
    }
    argv.add("-f");
    argv.add(at.toString());
    FuseMount m;
    try {
      Method mount = Fuse.class.getDeclaredMethod("mount", List.class);
      mount.setAccessible(true);
      m = (FuseMount) mount.invoke(fuse, argv);
    } catch (InvocationTargetException e) {
      throw new IOException("libfuse 3 could not mount " + at + ": " + e.getCause(),
          e.getCause());
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IOException("jfuse's mount cannot be called: " + e, e);
    }
    synchronized (this) {
      session = m;
      loop = FuseBinding.onLoopThread(() -> LOG.debug("libfuse's loop ended ({})", m.loop()));
      return loop;
    }
  }

  /**
   * Once the loop ended, frees libfuse's session ({@code fuse_destroy}) and jfuse's memory. A
   * loop still running is asked to end ({@code fuse_exit}, {@code fuse_unmount}) and given 5 s;
   * if it still runs, nothing is freed (its threads may yet call in).
   */
  @Override
  public synchronized void release() {
    FuseMount m = session;
    if (m == null) {
      return;
    }
    session = null;
    if (!loop.isDone()) {
      m.unmount();
      try {
        loop.get(5, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        LOG.warn("libfuse's loop did not end in 5 s: its session is not freed");
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException e) {
        // ended
      }
    }
    m.destroy();
    try {
      fuse.close();
    } catch (TimeoutException | RuntimeException e) {
      LOG.warn("jfuse did not close: {}", e.toString());
    }
  }

  // ------------------------------------------------------------------ the callbacks

  /** Fills libfuse's operations table with this binding's callbacks. */
  private void install(MemorySegment t, Arena a) {
    fuse_operations.init(t,
        fuse_operations.init.allocate(this::init, a));
    fuse_operations.getattr(t,
        fuse_operations.getattr.allocate((p, st, fi) -> guard("getattr", () ->
            getattr(p, st, fi)), a));
    fuse_operations.mkdir(t,
        fuse_operations.mkdir.allocate((p, mode) -> guard("mkdir", () ->
            onPath(p, path -> ops.mkdir(who(), path, mode))), a));
    fuse_operations.rmdir(t,
        fuse_operations.rmdir.allocate(p -> guard("rmdir", () ->
            onPath(p, path -> ops.rmdir(who(), path))), a));
    fuse_operations.unlink(t,
        fuse_operations.unlink.allocate(p -> guard("unlink", () ->
            onPath(p, path -> ops.unlink(who(), path))), a));
    fuse_operations.rename(t,
        fuse_operations.rename.allocate((from, to, flags) -> guard("rename", () ->
            rename(from, to, flags)), a));
    fuse_operations.symlink(t,
        fuse_operations.symlink.allocate((target, p) -> guard("symlink", () ->
            onPath(target, to -> onPath(p, path -> ops.symlink(who(), to, path)))), a));
    fuse_operations.readlink(t,
        fuse_operations.readlink.allocate((p, buf, size) -> guard("readlink", () ->
            onPath(p, path -> readlink(path, buf, size))), a));
    fuse_operations.link(t,
        fuse_operations.link.allocate((from, to) -> -Errno.EPERM, a));
    fuse_operations.mknod(t,
        fuse_operations.mknod.allocate((p, mode, dev) -> -Errno.EPERM, a));
    fuse_operations.chmod(t,
        fuse_operations.chmod.allocate((p, mode, fi) -> guard("chmod", () ->
            onPath(p, path -> ops.chmod(who(), path, mode))), a));
    fuse_operations.chown(t,
        fuse_operations.chown.allocate((p, uid, gid, fi) -> guard("chown", () ->
            onPath(p, path -> ops.chown(who(), path, Integer.toUnsignedLong(uid),
                Integer.toUnsignedLong(gid)))), a));
    fuse_operations.truncate(t,
        fuse_operations.truncate.allocate((p, size, fi) -> guard("truncate", () ->
            truncate(p, size, fi)), a));
    fuse_operations.utimens(t,
        fuse_operations.utimens.allocate((p, times, fi) -> guard("utimens", () ->
            onPath(p, path -> ops.utimens(who(), path, millis(times, 0), millis(times, 1)))), a));
    fuse_operations.statfs(t,
        fuse_operations.statfs.allocate((p, st) -> guard("statfs", () ->
            statfs(p, st)), a));
    fuse_operations.create(t,
        fuse_operations.create.allocate((p, mode, fi) -> guard("create", () ->
            onPath(p, path -> handle(fi, fh -> ops.create(who(), path, mode, flags(fi), fh)))), a));
    fuse_operations.open(t,
        fuse_operations.open.allocate((p, fi) -> guard("open", () ->
            onPath(p, path -> handle(fi, fh -> ops.open(who(), path, flags(fi), fh)))), a));
    fuse_operations.read(t,
        fuse_operations.read.allocate((p, buf, size, off, fi) -> guard("read", () ->
            ops.read(pathOrNull(p), fh(fi), off, buf.reinterpret(size).asByteBuffer())), a));
    fuse_operations.write(t,
        fuse_operations.write.allocate((p, buf, size, off, fi) -> guard("write", () ->
            ops.write(pathOrNull(p), fh(fi), off, buf.reinterpret(size).asByteBuffer())), a));
    fuse_operations.flush(t,
        fuse_operations.flush.allocate((p, fi) -> guard("flush", () ->
            ops.flush(pathOrNull(p), fh(fi))), a));
    fuse_operations.fsync(t,
        fuse_operations.fsync.allocate((p, datasync, fi) -> guard("fsync", () ->
            ops.fsync(pathOrNull(p), fh(fi))), a));
    fuse_operations.release(t,
        fuse_operations.release.allocate((p, fi) -> guard("release", () ->
            ops.release(pathOrNull(p), fh(fi))), a));
    fuse_operations.opendir(t,
        fuse_operations.opendir.allocate((p, fi) -> guard("opendir", () ->
            onPath(p, path -> handle(fi, fh -> ops.opendir(who(), path, fh)))), a));
    fuse_operations.readdir(t,
        fuse_operations.readdir.allocate((p, buf, filler, off, fi, flags) ->
            guard("readdir", () -> readdir(p, buf, filler, off, fi)), a));
    fuse_operations.releasedir(t,
        fuse_operations.releasedir.allocate((p, fi) -> guard("releasedir", () ->
            ops.releasedir(fh(fi))), a));
    fuse_operations.setxattr(t,
        fuse_operations.setxattr.allocate((p, n, value, size, flags) ->
            guard("setxattr", () -> onPath(p, path -> onPath(n, name -> {
              byte[] v = new byte[(int) size];
              MemorySegment.copy(value.reinterpret(size), ValueLayout.JAVA_BYTE, 0, v, 0, v.length);
              return ops.setxattr(who(), path, name, v, flags);
            }))), a));
    fuse_operations.getxattr(t,
        fuse_operations.getxattr.allocate((p, n, value, size) -> guard("getxattr", () ->
            onPath(p, path -> onPath(n, name ->
                ops.getxattr(this::who, path, name, value.reinterpret(size).asByteBuffer())))), a));
    fuse_operations.listxattr(t,
        fuse_operations.listxattr.allocate((p, list, size) -> guard("listxattr", () ->
            onPath(p, path -> ops.listxattr(who(), path, list.reinterpret(size).asByteBuffer()))),
            a));
    fuse_operations.removexattr(t,
        fuse_operations.removexattr.allocate((p, n) -> guard("removexattr", () ->
            onPath(p, path -> onPath(n, name -> ops.removexattr(who(), path, name)))), a));
  }

  /** readlink: the target into libfuse's buffer, NUL-terminated, cut to fit. */
  private int readlink(String path, MemorySegment buf, long size) {
    byte[][] target = new byte[1][];
    int rc = ops.readlink(who(), path, target);
    if (rc == 0) {
      byte[] c = PfsFuseOperations.linkBytes(target[0], size);
      MemorySegment.copy(c, 0, buf.reinterpret(size), ValueLayout.JAVA_BYTE, 0, c.length);
    }
    return rc;
  }

  /** Runs one callback; what it throws is logged and answered with EIO (never reaches C). */
  private static int guard(String op, IntSupplier body) {
    try {
      return body.getAsInt();
    } catch (Throwable e) {
      LOG.warn("{}: {}", op, e.toString());
      return -Errno.EIO;
    }
  }

  /** A callback's body on a decoded path or name. */
  private interface OnPath {
    int run(String path);
  }

  /** A callback's body that opens a handle into {@code fh[0]}. */
  private interface OnHandle {
    int run(long[] fh);
  }

  /** {@code body} on the C string at {@code p}; EINVAL when it is not UTF-8 or is NULL. */
  private static int onPath(MemorySegment p, OnPath body) {
    String s = pathOrNull(p);
    return s == null ? -Errno.EINVAL : body.run(s);
  }

  /** The C string at {@code p}, strictly decoded; null for NULL or bytes that are not UTF-8. */
  private static String pathOrNull(MemorySegment p) {
    if (p.address() == 0) {
      return null;
    }
    MemorySegment s = p.reinterpret(Integer.MAX_VALUE);
    int n = 0;
    while (s.get(ValueLayout.JAVA_BYTE, n) != 0) {
      n++;
    }
    byte[] b = new byte[n];
    MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, b, 0, n);
    return FuseNames.decode(b);
  }

  private static MemorySegment info(MemorySegment fi) {
    return fi.reinterpret(fuse_file_info.layout().byteSize());
  }

  private static long fh(MemorySegment fi) {
    return fuse_file_info.fh(info(fi));
  }

  private static int flags(MemorySegment fi) {
    return fuse_file_info.flags(info(fi));
  }

  /** Runs an open-like body and stores the handle it opened in {@code fi}. */
  private static int handle(MemorySegment fi, OnHandle body) {
    long[] fh = new long[1];
    int rc = body.run(fh);
    if (rc == 0) {
      fuse_file_info.fh(info(fi), fh[0]);
    }
    return rc;
  }

  /** The uid, gid and groups of the process behind the request being served. */
  private Requester who() {
    MemorySegment c;
    try {
      c = ((MemorySegment) getContext.invokeExact()).reinterpret(24);
    } catch (Throwable e) {
      throw new IllegalStateException("fuse_get_context failed", e);
    }
    long uid = Integer.toUnsignedLong(c.get(ValueLayout.JAVA_INT, 8));
    long gid = Integer.toUnsignedLong(c.get(ValueLayout.JAVA_INT, 12));
    int pid = c.get(ValueLayout.JAVA_INT, 16);
    return new Requester(uid, gid, JnrFuseBinding.groupsOf(pid));
  }

  /**
   * The requests' size, and libfuse 3's {@code struct fuse_config}: {@code hard_remove} (no
   * {@code .fuse_hidden} files) and {@code use_ino} (st_ino is the namespace's inode id).
   */
  private MemorySegment init(MemorySegment connInfo, MemorySegment config) {
    try {
      MemorySegment conn = connInfo.reinterpret(fuse_conn_info.layout().byteSize());
      fuse_conn_info.max_write(conn, MAX_REQUEST);
      fuse_conn_info.max_readahead(conn, MAX_READAHEAD);
      MemorySegment cfg = config.reinterpret(fuse_config.layout().byteSize());
      fuse_config.hard_remove(cfg, 1);
      fuse_config.use_ino(cfg, 1);
    } catch (Throwable e) {
      LOG.warn("libfuse 3 init: {}", e.toString());
    }
    return MemorySegment.NULL;
  }

  /** stat, or fstat with a handle (whose path is NULL once the file is unlinked). */
  private int getattr(MemorySegment p, MemorySegment st, MemorySegment fi) {
    FileAttributes[] a = new FileAttributes[1];
    int rc;
    if (fi.address() != 0) {
      rc = ops.fgetattr(who(), fh(fi), a);
    } else {
      String path = pathOrNull(p);
      if (path == null) {
        return -Errno.EINVAL;
      }
      rc = ops.getattr(who(), path, a);
    }
    if (rc == 0) {
      fill(st.reinterpret(stat.layout().byteSize()), a[0]);
    }
    return rc;
  }

  private static void fill(MemorySegment st, FileAttributes a) {
    st.fill((byte) 0);
    stat.st_ino(st, a.inode());
    stat.st_mode(st, a.mode());
    stat.st_nlink(st, a.nlink());
    stat.st_uid(st, (int) a.uid());
    stat.st_gid(st, (int) a.gid());
    stat.st_size(st, a.size());
    // the preferred I/O size is the request size: tools that size their buffers by it (cp,
    // Python's open, so torch.save) then write whole requests
    stat.st_blksize(st, Math.max(a.blockSize(), MAX_REQUEST));
    stat.st_blocks(st, a.blocks());
    time(stat.st_atim(st), a.accessMillis());
    time(stat.st_mtim(st), a.modificationMillis());
    time(stat.st_ctim(st), a.modificationMillis());
  }

  private static void time(MemorySegment ts, long millis) {
    timespec.tv_sec(ts, Math.floorDiv(millis, 1000));
    timespec.tv_nsec(ts, Math.floorMod(millis, 1000) * 1_000_000L);
  }

  /** Time {@code i} of utimens' two: milliseconds, or UTIME_OMIT / UTIME_NOW. */
  private static long millis(MemorySegment times, int i) {
    if (times.address() == 0) {
      return PfsFuseOperations.UTIME_NOW; // NULL: both now
    }
    long size = timespec.layout().byteSize();
    MemorySegment t = times.reinterpret(2 * size).asSlice(i * size, size);
    long nsec = timespec.tv_nsec(t);
    if (nsec == UTIME_OMIT) {
      return PfsFuseOperations.UTIME_OMIT;
    }
    if (nsec == UTIME_NOW) {
      return PfsFuseOperations.UTIME_NOW;
    }
    return timespec.tv_sec(t) * 1000 + nsec / 1_000_000;
  }

  /**
   * rename(2), and renameat2's RENAME_NOREPLACE (EEXIST when the destination exists, checked
   * just before the rename: a destination another client creates in between is replaced).
   * RENAME_EXCHANGE is not supported (EINVAL).
   */
  private int rename(MemorySegment a, MemorySegment b, int flags) {
    String from = pathOrNull(a);
    String to = pathOrNull(b);
    if (from == null || to == null || (flags & ~RENAME_NOREPLACE) != 0) {
      return -Errno.EINVAL;
    }
    Requester who = who();
    if ((flags & RENAME_NOREPLACE) != 0) {
      int rc = ops.getattr(who, to, new FileAttributes[1]);
      if (rc != -Errno.ENOENT) {
        return rc == 0 ? -Errno.EEXIST : rc;
      }
    }
    return ops.rename(who, from, to);
  }

  /** truncate, or ftruncate with a handle (whose path is NULL once the file is unlinked). */
  private int truncate(MemorySegment p, long size, MemorySegment fi) {
    String path = pathOrNull(p);
    if (fi.address() != 0) {
      return ops.ftruncate(who(), path, fh(fi), size);
    }
    return path == null ? -Errno.EINVAL : ops.truncate(who(), path, size);
  }

  private int statfs(MemorySegment p, MemorySegment out) {
    FsStats[] s = new FsStats[1];
    int rc = ops.statfs(pathOrNull(p), s);
    if (rc == 0) {
      MemorySegment st = out.reinterpret(statvfs.layout().byteSize());
      FsStats f = s[0];
      statvfs.f_bsize(st, f.blockSize());
      statvfs.f_frsize(st, f.blockSize());
      statvfs.f_blocks(st, f.blocks());
      statvfs.f_bfree(st, f.freeBlocks());
      statvfs.f_bavail(st, f.freeBlocks());
      statvfs.f_files(st, f.files());
      statvfs.f_ffree(st, f.freeFiles());
      statvfs.f_favail(st, f.freeFiles());
      statvfs.f_namemax(st, f.nameMax());
    }
    return rc;
  }

  /**
   * Entries with their type and inode number, not as READDIRPLUS entries (libfuse would look
   * each one up again, a getattr per name, to make one).
   */
  private int readdir(MemorySegment p, MemorySegment buf, MemorySegment filler, long offset,
      MemorySegment fi) {
    String path = pathOrNull(p);
    if (path == null) {
      return -Errno.EINVAL;
    }
    try (Arena call = Arena.ofConfined()) {
      MemorySegment st = call.allocate(stat.layout());
      return ops.readdir(who(), path, fh(fi), offset, (name, attrs, next) -> {
        MemorySegment attributes = MemorySegment.NULL;
        if (attrs != null) {
          fill(st, attrs);
          attributes = st;
        }
        return fuse_fill_dir_t.invoke(filler, buf, call.allocateFrom(name), attributes, next,
            0) == 0;
      });
    }
  }
}
