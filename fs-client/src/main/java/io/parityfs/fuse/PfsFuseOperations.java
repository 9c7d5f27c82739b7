package io.parityfs.fuse;

import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsFileWriter;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.targets.SpaceTotal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ParityFS file system as path-based POSIX operations, for a FUSE binding: each returns 0
 * (or a byte count) on success and a negative Linux errno ({@link Errno}) on failure, never
 * throws. Independent of the native binding ({@link JnrFuseBinding} adapts it to jnr-fuse).
 *
 * <p><b>Identity.</b> Namespace operations act for the requesting process's user: its uid and
 * gid are mapped to names ({@link IdentityMap}) and to a {@link Caller} (cached per uid and
 * gid, umask 0 since the kernel has already applied the process's), so the namespace checks
 * permissions and records owners as that user. File data goes through the mount's own client
 * (its leases live in the mount's ZooKeeper session); the kernel checks the mode bits
 * before any open ({@code default_permissions}, always set by {@link PfsMount}).
 *
 * <p><b>Writes.</b> A file open for writing through this mount has one {@link PfsFileWriter}
 * (one lease), shared by every handle on it and counted: the last release closes it. Reads and
 * stats of such a file go through the writer, so they see writes not yet committed.
 * {@code flush} (every close(2)) commits the length (hflush), {@code fsync} syncs (hsync),
 * the last {@code release} closes the file. Other mounts see the data after that commit:
 * close-to-open consistency.
 *
 * <p><b>Rename and unlink of open files.</b> The writer of a file being renamed (or inside a
 * directory being renamed) is closed first, committing, and reopened at the new path by the
 * next write. Unlinking an open file closes its writer; later writes on its handles fail with
 * ESTALE (the file is gone; POSIX would keep it until the last close). Rename onto an existing
 * file or empty directory replaces it in one namespace transaction ({@link
 * Namespace#renameReplacing}).
 *
 * <p><b>Symbolic links</b> are the namespace's ({@link Namespace#createSymlink}): {@code
 * symlink} makes one, {@code readlink} reads it, and the kernel follows them itself (it asks
 * {@code readlink} and looks the target up), so every other operation gets link-free paths.
 *
 * <p>Not supported: hard links (EPERM), special files (EPERM), POSIX ACLs
 * ({@code system.*} xattrs: EOPNOTSUPP). Thread-safe: the binding calls from many threads.
 *
 * <p>This class holds the operations' contracts, the identity mapping and the errno mapping
 * ({@code call}); what touches open files and their writers (and the locks that guard them) is
 * {@link FuseHandles}', the extended attributes are {@link FuseXattrs}'.
 */
public final class PfsFuseOperations implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PfsFuseOperations.class);
  /** The read-only virtual xattr holding a file's (or a directory's default) layout. */
  public static final String LAYOUT_XATTR = "parityfs.layout";
  /**
   * File capabilities (setcap): not supported on the mount, as on NFS: setting them is
   * EOPNOTSUPP and reading them ENODATA.
   */
  public static final String CAPABILITY_XATTR = "security.capability";
  private static final int BLOCK_SIZE = 128 << 10;
  /** {@code utimens}: leave this time as it is. */
  public static final long UTIME_OMIT = -1;
  /** {@code utimens}: set this time to the current time. */
  public static final long UTIME_NOW = -2;
  /** The longest name (UTF-8 bytes): NAME_MAX, as the namespace's names. */
  static final int NAME_MAX = 255;
  /** The longest path, the namespace's (UTF-8 bytes from the mount's root), and its depth. */
  static final int PATH_MAX = 8000;
  static final int MAX_DEPTH = 1000;
  private static final int SET_ID = 06000;

  private final ParityClient client;
  private final IdentityMap ids;
  /** Open files and handles, and the locks that order opens against renames and unlinks. */
  private final FuseHandles handles;
  private final Map<Requester, Namespace> views = new ConcurrentHashMap<>();
  private final int pageSize;
  /** The largest read and write the kernel asked for: what the binding's requests really are. */
  private final LongAccumulator largestRead = new LongAccumulator(Math::max, 0);
  private final LongAccumulator largestWrite = new LongAccumulator(Math::max, 0);

  /** The body of one operation. */
  @FunctionalInterface
  interface Body {
    int run() throws IOException;
  }

  /**
   * @param client the cluster; the caller keeps ownership (close this first, then it)
   * @param ids how uids and gids map to the namespace's user and group names
   */
  public PfsFuseOperations(ParityClient client, IdentityMap ids) {
    this.client = Objects.requireNonNull(client, "client");
    this.ids = Objects.requireNonNull(ids, "ids");
    this.pageSize = Math.min(1000, client.namespace().config().maxPageSize());
    this.handles = new FuseHandles(client);
  }

  // ------------------------------------------------------------------ attributes

  public int getattr(Requester who, String path, FileAttributes[] out) {
    return call("getattr", path, () -> {
      out[0] = attributes(ns(who).getStatus(path));
      return 0;
    });
  }

  /** {@code fgetattr}: as {@link #getattr}, through the handle's file (its current path). */
  public int fgetattr(Requester who, long fh, FileAttributes[] out) {
    String path = handles.pathOf(fh);
    if (path == null) {
      return -Errno.EBADF;
    }
    return getattr(who, path, out);
  }

  /**
   * Sets the mode bits. A change that only clears set-user-ID/set-group-ID bits is what the
   * kernel asks for on a write, truncate or chown (its "kill suid" on behalf of the writer, who
   * need not own the file): it needs the owner or write permission, not ownership.
   */
  public int chmod(Requester who, String path, int mode) {
    return call("chmod", path, () -> {
      Namespace ns = ns(who);
      int perm = ns.getStatus(path).permission() & 07777;
      int cleared = perm & ~(mode & 07777);
      if (cleared != 0 && (cleared & ~SET_ID) == 0 && (mode & 07777 & ~perm) == 0) {
        ns.clearSetIdBits(path, cleared);
      } else {
        ns.setPermission(path, mode & 07777);
      }
      return 0;
    }, Errno.EPERM);
  }

  /** {@code uid} or {@code gid} -1 (or 2^32 - 1) leaves it unchanged. */
  public int chown(Requester who, String path, long uid, long gid) {
    return call("chown", path, () -> {
      String owner = unset(uid) ? null : ids.userName(uid);
      String group = unset(gid) ? null : ids.groupName(gid);
      if (owner != null || group != null) {
        ns(who).setOwner(path, owner, group);
      }
      return 0;
    }, Errno.EPERM);
  }

  /**
   * Times in milliseconds since the epoch, {@link #UTIME_OMIT} or {@link #UTIME_NOW}, with
   * {@code utimensat(2)}'s rule: explicit times need the owner (so the owner of a read-only
   * file may set them), both "now" the owner or write permission. A modification time set on a
   * file this mount is writing is kept by its writer, whose commits stamp it (not "now") in
   * the same namespace write as the length until the next write: so {@code cp -p} and {@code
   * tar x} keep it, and no reader sees "now" in between.
   */
  public int utimens(Requester who, String path, long accessMillis, long modificationMillis) {
    boolean explicit = accessMillis != UTIME_NOW || modificationMillis != UTIME_NOW;
    // not the owner: EPERM for explicit times, EACCES for "now" without write permission
    return call("utimens", path, () -> {
      Namespace ns = ns(who);
      if (accessMillis == UTIME_OMIT && modificationMillis == UTIME_OMIT) {
        ns.getStatus(path);
        return 0;
      }
      boolean touch = accessMillis == UTIME_NOW && modificationMillis == UTIME_NOW;
      long now = System.currentTimeMillis();
      long atime = accessMillis == UTIME_NOW ? now : accessMillis;
      long mtime = modificationMillis == UTIME_NOW ? now : modificationMillis;
      if (atime < -1 || mtime < -1) {
        return -Errno.EINVAL; // before 1970: the namespace's times are not negative
      }
      handles.setTimes(ns, path, mtime, atime, touch);
      return 0;
    }, explicit ? Errno.EPERM : 0);
  }

  public int statfs(String path, FsStats[] out) {
    return call("statfs", path, () -> {
      SpaceTotal space = SpaceTotal.of(client.registry().targets()); // shared disks once
      long capacity = space.capacityBytes();
      long free = space.freeBytes();
      long bs = 4096;
      out[0] = new FsStats(bs, capacity / bs, Math.min(free, capacity) / bs, 1L << 40,
          1L << 40, 255);
      return 0;
    });
  }

  // ------------------------------------------------------------------ directories

  public int mkdir(Requester who, String path, int mode) {
    return call("mkdir", path, () -> {
      // one multi: of two mounts making the same directory, exactly one succeeds
      ns(who).mkdir(path, CreateOptions.directory().withPermission(mode & 07777)
          .withPosixGroup(true));
      return 0;
    });
  }

  public int rmdir(Requester who, String path) {
    return call("rmdir", path, () -> {
      Namespace ns = ns(who);
      FileStatus st = ns.getStatus(path);
      if (!st.isDirectory()) {
        return -Errno.ENOTDIR;
      }
      if (st.path().equals("/")) {
        return -Errno.EBUSY;
      }
      return ns.delete(path, false) ? 0 : -Errno.ENOENT;
    });
  }

  /** Opens a directory for listing; {@code fh[0]} receives its handle. */
  public int opendir(Requester who, String path, long[] fh) {
    return call("opendir", path, () -> {
      FileStatus st = ns(who).getStatus(path);
      if (!st.isDirectory()) {
        return -Errno.ENOTDIR;
      }
      fh[0] = handles.openDirectory(new DirectoryCursor(st.path(), pageSize));
      return 0;
    });
  }

  /**
   * Lists from {@code offset} (0 at the start, else a cookie a previous call passed to the
   * filler) until the filler is full or the listing ends; "." and ".." come first. Entries come
   * a page of the namespace's listing at a time.
   */
  public int readdir(Requester who, String path, long fh, long offset, DirectoryFiller filler) {
    return call("readdir", path, () -> {
      DirectoryCursor c = handles.directory(fh);
      if (c == null) {
        c = new DirectoryCursor(path, pageSize);
      }
      Namespace ns = ns(who);
      synchronized (c) {
        if (offset < 1 && !filler.add(".", null, 1)) {
          return 0;
        }
        if (offset < 2 && !filler.add("..", null, 2)) {
          return 0;
        }
        for (long i = Math.max(0, offset - 2); ; i++) {
          FileStatus e = c.at(i, ns);
          if (e == null || !filler.add(name(e.path()), attributes(e), i + 3)) {
            return 0;
          }
        }
      }
    });
  }

  public int releasedir(long fh) {
    handles.closeDirectory(fh);
    return 0;
  }

  // ------------------------------------------------------------------ files

  /** Creates a file open for writing (O_CREAT); {@code fh[0]} receives its handle. */
  public int create(Requester who, String path, int mode, int flags, long[] fh) {
    return call("create", path, () -> {
      CreateOptions options = CreateOptions.file().withCreateParents(false)
          .withPermission(mode & 07777).withPosixGroup(true); // the creator's group
      return handles.create(path, flags, () -> {
        Caller mine = client.namespace().caller();
        Caller theirs = who == Requester.MOUNT ? mine : caller(who);
        if (who == Requester.MOUNT || (mine.umask() == 0 && mine.user().equals(theirs.user())
            && mine.groups().equals(theirs.groups()))) {
          return client.createWriter(path, options); // one multi: entry and lease
        }
        ns(who).create(path, options.withLease(false)); // owned by the requester
        return client.openWriter(path);
      }, fh);
    });
  }

  /** Opens an existing file with {@code open(2)} flags; {@code fh[0]} receives its handle. */
  public int open(Requester who, String path, int flags, long[] fh) {
    return call("open", path, () -> {
      Namespace ns = ns(who);
      // close-to-open: what another client closed before this open is seen, not a stale
      // cached entry or a lagging ZooKeeper follower's (one round trip, as NFS's GETATTR)
      ns.sync();
      return handles.open(ns, path, flags, fh);
    });
  }

  /**
   * Reads into {@code dst} at {@code offset} until it is full or the file ends (a short read is
   * the end of the file to the kernel); returns the bytes read, 0 at the end. Sequential reads
   * go through the handle's stream and its read-ahead; a read elsewhere reads just its range.
   */
  public int read(String path, long fh, long offset, ByteBuffer dst) {
    largestRead.accumulate(dst.remaining());
    return call("read", path, () -> handles.read(fh, offset, dst));
  }

  /** Writes all of {@code src} at {@code offset} (at the end for O_APPEND); returns its size. */
  public int write(String path, long fh, long offset, ByteBuffer src) {
    largestWrite.accumulate(src.remaining());
    return call("write", path, () -> handles.write(fh, offset, src));
  }

  /** Sets a file's length: through its writer when this mount writes it, else on its own. */
  public int truncate(Requester who, String path, long size) {
    return call("truncate", path, () -> handles.truncate(path, size, () -> {
      FileStatus st = ns(who).getStatus(path);
      if (st.isDirectory()) {
        return -Errno.EISDIR;
      }
      client.truncate(path, size);
      return 0;
    }));
  }

  public int ftruncate(Requester who, String path, long fh, long size) {
    String current = handles.pathOf(fh);
    return truncate(who, current == null ? path : current, size);
  }

  /** Each close(2) of a descriptor: commits what the file's writer holds (hflush). */
  public int flush(String path, long fh) {
    return commit("flush", path, fh);
  }

  /** fsync(2): hsync of the file's writer (the same as hflush: stores are durable). */
  public int fsync(String path, long fh) {
    return commit("fsync", path, fh);
  }

  private int commit(String op, String path, long fh) {
    return call(op, path, () -> handles.commit(fh));
  }

  /** The last close of a handle: the last write handle of a file closes its writer. */
  public int release(String path, long fh) {
    return call("release", path, () -> handles.release(fh));
  }

  public int unlink(Requester who, String path) {
    return call("unlink", path, () -> {
      Namespace ns = ns(who);
      FileStatus st = ns.getStatus(path);
      if (st.isDirectory()) {
        return -Errno.EISDIR;
      }
      return handles.unlink(ns, st, path);
    });
  }

  /**
   * POSIX rename: replaces an existing destination file, or an existing empty directory when
   * the source is a directory (deleted first, then the source renamed); never moves the source
   * into an existing directory (what the namespace's own rename does).
   */
  public int rename(Requester who, String from, String to) {
    int tooLong = checkLength(to);
    if (tooLong != 0) {
      return tooLong;
    }
    return call("rename", from, () -> {
      Namespace ns = ns(who);
      FileStatus src = ns.getStatus(from);
      if (to.startsWith(src.path().endsWith("/") ? src.path() : src.path() + "/")) {
        return -Errno.EINVAL; // into itself; checked before a destination is deleted
      }
      FileStatus dst = ns.statusOrNull(to);
      if (dst != null) {
        if (dst.id() == src.id()) {
          return 0;
        }
        if (dst.isDirectory()) {
          if (!src.isDirectory()) {
            return -Errno.EISDIR;
          }
          if (!ns.list(to, null, 1).entries().isEmpty()) {
            return -Errno.ENOTEMPTY;
          }
        } else if (src.isDirectory()) {
          return -Errno.ENOTDIR;
        }
      }
      return handles.rename(ns, src, dst, to);
    });
  }

  /**
   * symlink(2): a link at {@code path} to {@code target}, kept as given (the kernel resolves it
   * when a path goes through it), owned by the requester and its group.
   */
  public int symlink(Requester who, String target, String path) {
    return call("symlink", path, () -> {
      ns(who).createSymlink(target, path, CreateOptions.file().withCreateParents(false)
          .withPosixGroup(true));
      return 0;
    });
  }

  /**
   * readlink(2): the link's target, as UTF-8 bytes, in {@code out[0]} (the binding copies what
   * fits its buffer and ends it with a NUL); EINVAL when the path is not a link.
   */
  public int readlink(Requester who, String path, byte[][] out) {
    return call("readlink", path, () -> {
      out[0] = ns(who).readLink(path).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      return 0;
    });
  }

  /**
   * The bytes libfuse's {@code readlink} gives the kernel: the target as far as it fits in
   * {@code size} bytes with the NUL that must end it (libfuse's contract: truncated, never
   * unterminated).
   */
  static byte[] linkBytes(byte[] target, long size) {
    int n = (int) Math.max(0, Math.min(target.length, size - 1));
    byte[] c = java.util.Arrays.copyOf(target, n + 1);
    c[n] = 0;
    return size <= 0 ? new byte[0] : c;
  }

  /** Hard links: the namespace has none. */
  public int link(String from, String to) {
    return -Errno.EPERM;
  }

  /** Device files, FIFOs and sockets: not supported (regular files come through create). */
  public int mknod(String path, int mode) {
    return -Errno.EPERM;
  }

  // ------------------------------------------------------------------ extended attributes

  /**
   * One attribute's value into {@code dst}; with {@code dst} of no remaining space, only its
   * size. {@value #LAYOUT_XATTR} is the layout, read-only, as text:
   * {@code chunk_size=262144 stripe_count=2 protection=raid6:4+2 pool=default across=none
   * targets=t1,t2}. Returns the size, -ENODATA when absent, -ERANGE when {@code dst} is short.
   */
  public int getxattr(Requester who, String path, String name, ByteBuffer dst) {
    return getxattr(() -> who, path, name, dst);
  }

  /**
   * {@link #getxattr(Requester, String, String, ByteBuffer)}, asking who only when it must:
   * {@value #CAPABILITY_XATTR}, which the kernel asks before every write request (to drop a
   * file's capabilities when it is written), is never stored here, so it is ENODATA at once,
   * without reading the requester's groups or the namespace.
   */
  public int getxattr(Supplier<Requester> who, String path, String name, ByteBuffer dst) {
    if (name.equals(CAPABILITY_XATTR)) {
      return -Errno.ENODATA;
    }
    return call("getxattr", path, () -> FuseXattrs.get(ns(who.get()), path, name, dst));
  }

  /** Flags: XATTR_CREATE (1), XATTR_REPLACE (2), else create or replace. */
  public int setxattr(Requester who, String path, String name, byte[] value, int flags) {
    return call("setxattr", path, () -> FuseXattrs.set(ns(who), path, name, value, flags));
  }

  /** The names (user-visible ones), each NUL-terminated, into {@code dst}; as getxattr. */
  public int listxattr(Requester who, String path, ByteBuffer dst) {
    return call("listxattr", path, () -> FuseXattrs.list(ns(who), path, dst));
  }

  public int removexattr(Requester who, String path, String name) {
    return call("removexattr", path, () -> FuseXattrs.remove(ns(who), path, name));
  }

  // ------------------------------------------------------------------ lifecycle

  /** Open files (those with at least one handle), for tests and the unmount's report. */
  public int openFiles() {
    return handles.openFiles();
  }

  /** The largest read request so far, in bytes (the kernel's request size, at most). */
  public long largestRead() {
    return largestRead.get();
  }

  /** The largest write request so far, in bytes ({@code max_write}, at most). */
  public long largestWrite() {
    return largestWrite.get();
  }

  /**
   * Closes every writer still open (committing its data), as at unmount. Handles stay
   * registered; a write through them reopens the file.
   */
  @Override
  public void close() {
    handles.closeAll();
  }

  // ------------------------------------------------------------------ internals

  private int call(String op, String path, Body body) {
    return call(op, path, body, 0);
  }

  /** Runs an operation; {@code denied}, when not 0, replaces EACCES (chmod, chown: EPERM). */
  private int call(String op, String path, Body body, int denied) {
    int tooLong = checkLength(path);
    if (tooLong != 0) {
      return tooLong;
    }
    try {
      return body.run();
    } catch (IOException | RuntimeException e) {
      int errno = Errno.of(e);
      if (errno == Errno.EIO) {
        LOG.warn("{} {}: EIO: {}", op, path, e.toString());
      }
      return -(errno == Errno.EACCES && denied != 0 ? denied : errno);
    }
  }

  /**
   * -ENAMETOOLONG for a path with a name over {@value #NAME_MAX} bytes, over {@value #PATH_MAX}
   * bytes or deeper than {@value #MAX_DEPTH} (the namespace's limits, which it reports as an
   * invalid path: EINVAL), else 0.
   */
  static int checkLength(String path) {
    if (path == null) {
      return 0;
    }
    int total = 0;
    int depth = 0;
    int name = 0;
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      int bytes = c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
      if (c == '/') {
        name = 0;
      } else {
        if (name == 0) {
          depth++;
        }
        name += bytes;
      }
      total += bytes;
      if (name > NAME_MAX || total > PATH_MAX || depth > MAX_DEPTH) {
        return -Errno.ENAMETOOLONG;
      }
    }
    return 0;
  }

  /** The namespace acting for {@code who}. */
  private Namespace ns(Requester who) {
    if (who == Requester.MOUNT) {
      return client.namespace();
    }
    return views.computeIfAbsent(who, k -> client.namespace().as(caller(who)));
  }

  /**
   * The caller of a requester: its user, and as groups its gid's (primary), its supplementary
   * groups as the kernel reports them, and its user's groups in the user database.
   */
  private Caller caller(Requester who) {
    String user = ids.userName(who.uid());
    List<String> groups = new ArrayList<>(ids.groups(user, who.gid()));
    for (long g : who.groups()) {
      String name = ids.groupName(g);
      if (!groups.contains(name)) {
        groups.add(name);
      }
    }
    return new Caller(user, groups, 0);
  }

  private FileAttributes attributes(FileStatus s) {
    long size = handles.length(s);
    int type = s.isDirectory() ? FileAttributes.S_IFDIR
        : s.isSymlink() ? FileAttributes.S_IFLNK : FileAttributes.S_IFREG;
    return new FileAttributes(s.id(), type | (s.permission() & 07777), 1, ids.uid(s.owner()),
        ids.gid(s.group()), size, BLOCK_SIZE, s.accessTime(), s.modificationTime(),
        s.length() - s.storedBytes());
  }

  private static boolean unset(long id) {
    return id < 0 || id == 0xffffffffL;
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
