package io.parityfs.raid.array.drive;

import com.sun.nio.file.ExtendedOpenOption;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * A {@link Drive} over a directory, with {@link FileChannel}s.
 *
 * <p><b>O_DIRECT.</b> When asked for {@link IoMode#DIRECT}, {@link #open} probes the file system
 * once by writing and reading back one block of a scratch file ({@value #PROBE_NAME}) opened with
 * {@link ExtendedOpenOption#DIRECT}; if that fails the drive is {@link IoMode#BUFFERED} and one log
 * line says why. A DIRECT drive opens every file twice, both at once when the file is created or
 * opened (never again later by path: once the name is unlinked or re-created by someone else, a
 * late open would fail or reach another file): aligned requests (see {@link
 * Drive#alignment}) go to the O_DIRECT channel, zero-copy when the buffer is an aligned direct
 * buffer, through a per-thread aligned bounce buffer otherwise; unaligned requests (a file tail, a
 * label) go to a buffered channel on the same file. Linux keeps the two coherent (a direct read
 * writes back dirty cached pages of its range first; a direct write invalidates them), and fsync
 * flushes the file whichever channel wrote it.
 *
 * <p><b>Listing.</b> {@link #list} with a prefix answers from an index of the directory's file
 * names, not from the directory: the array asks for one object's files on every write, delete
 * and look-up, and a directory of a million entries must not be read for each (issue 19; a node
 * with 1,500 objects per drive took 75 s to start when every look-up listed its drives). The
 * index is built by the first listing (one scan of the directory) and kept by this drive's own
 * {@link #create}, {@link #rename} and {@link #delete}; a mutation that fails drops it, and so
 * does an absent file the index lists (another process changed the directory, such as a second
 * store over the same drives), so the next listing scans again. {@link #list} of every name ({@code ""}, the garbage collector's and
 * a whole-target listing's) always scans the directory and builds the index afresh from it:
 * files another process put in or took out of a running drive's directory are seen from the next
 * full listing on, and a drive's directory is scanned once per garbage-collection pass, not once
 * per operation. Mutations wait while a scan builds the index (once per open and per full
 * listing).
 */
public final class FileDrive implements Drive {
  private static final System.Logger LOG = System.getLogger(FileDrive.class.getName());

  /** Scratch file of the O_DIRECT probe; never left behind by a completed open. */
  static final String PROBE_NAME = ".direct-io-probe";

  /** Bounce buffers up to this size are kept per thread; larger ones are allocated per call. */
  private static final int MAX_CACHED_BOUNCE = 4 << 20;

  private static final Set<OpenOption> CREATE =
      Set.of(
          StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING,
          StandardOpenOption.READ,
          StandardOpenOption.WRITE);

  private final Path root;
  private final FileStore store;
  private final IoMode mode;
  private final int alignment;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ThreadLocal<ByteBuffer> bounce = new ThreadLocal<>();
  /** The names of the directory's regular files; null until the first listing or after a drop. */
  private volatile NavigableSet<String> index;
  /** Mutations hold it shared while they change the directory and the index; a scan, exclusive. */
  private final ReadWriteLock indexLock = new ReentrantReadWriteLock();

  private FileDrive(Path root, FileStore store, IoMode mode, int alignment) {
    this.root = root;
    this.store = store;
    this.mode = mode;
    this.alignment = alignment;
  }

  /**
   * Opens the drive directory {@code root}, using O_DIRECT if {@code preferred} is DIRECT and the
   * file system supports it.
   *
   * @throws ArrayException DRIVE_IO when root is not a directory or its file store is unreadable
   */
  public static FileDrive open(Path root, IoMode preferred) throws IOException {
    if (!Files.isDirectory(root)) {
      throw new ArrayException(
          ArrayError.DRIVE_IO, root, "drive " + root + " does not exist or is not a directory");
    }
    FileStore store;
    int alignment;
    try {
      store = Files.getFileStore(root);
      long block = store.getBlockSize();
      alignment = block > 0 && block <= (1 << 20) && Long.bitCount(block) == 1 ? (int) block : 4096;
    } catch (IOException | UnsupportedOperationException e) {
      throw new ArrayException(
          ArrayError.DRIVE_IO, root, "drive " + root + ": cannot read its file store: " + e, e);
    }
    IoMode mode = IoMode.BUFFERED;
    if (preferred == IoMode.DIRECT) {
      String refusal = probeDirect(root, alignment);
      if (refusal == null) {
        mode = IoMode.DIRECT;
      } else {
        LOG.log(
            System.Logger.Level.INFO,
            "drive {0}: O_DIRECT not supported by {1} ({2}), using buffered I/O",
            root,
            store.type(),
            refusal);
      }
    }
    return new FileDrive(root, store, mode, alignment);
  }

  /** Null if one aligned block round-trips through an O_DIRECT channel, else why not. */
  private static String probeDirect(Path root, int alignment) {
    Path probe = root.resolve(PROBE_NAME);
    try {
      try (FileChannel ch =
          FileChannel.open(
              probe,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE,
              ExtendedOpenOption.DIRECT)) {
        ByteBuffer block = ByteBuffer.allocateDirect(2 * alignment).alignedSlice(alignment);
        block.limit(alignment);
        block.put(0, (byte) 0x5a);
        while (block.hasRemaining()) {
          ch.write(block, block.position());
        }
        block.clear().limit(alignment);
        block.put(0, (byte) 0);
        while (block.hasRemaining() && ch.read(block, block.position()) > 0) {
          // keep reading
        }
        if (block.get(0) != 0x5a) {
          return "probe block read back wrong";
        }
      }
      return null;
    } catch (IOException | UnsupportedOperationException e) {
      return e.toString();
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "drive {0}: cannot delete {1}: {2}", root, probe, e);
      }
    }
  }

  @Override
  public Path root() {
    return root;
  }

  @Override
  public IoMode ioMode() {
    return mode;
  }

  @Override
  public int alignment() {
    return alignment;
  }

  @Override
  public DriveFile create(String name) throws IOException {
    Path file = resolve(name);
    indexLock.readLock().lock();
    try {
      DriveFile f = withDirect(name, file, FileChannel.open(file, CREATE), true);
      NavigableSet<String> i = index;
      if (i != null) {
        i.add(name);
      }
      return f;
    } catch (IOException e) {
      index = null; // the directory may or may not have changed: the next listing scans
      throw failure("create", name, e);
    } catch (RuntimeException e) {
      index = null;
      throw e;
    } finally {
      indexLock.readLock().unlock();
    }
  }

  @Override
  public DriveFile open(String name) throws IOException {
    Path file = resolve(name);
    try {
      return withDirect(name, file, FileChannel.open(file, StandardOpenOption.READ), false);
    } catch (IOException e) {
      throw failure("open", name, e);
    }
  }

  @Override
  public DriveFile openForWrite(String name) throws IOException {
    Path file = resolve(name);
    try {
      return withDirect(
          name,
          file,
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE),
          true);
    } catch (IOException e) {
      throw failure("open for write", name, e);
    }
  }

  @Override
  public void rename(String from, String to) throws IOException {
    Path source = resolve(from);
    Path target = resolve(to);
    indexLock.readLock().lock();
    try {
      // On POSIX file systems an atomic move is rename(2), which replaces the target.
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
      NavigableSet<String> i = index;
      if (i != null) {
        i.add(to);
        i.remove(from);
      }
    } catch (IOException e) {
      index = null; // the directory may or may not have changed: the next listing scans
      throw failure("rename to " + to, from, e);
    } catch (RuntimeException e) {
      index = null;
      throw e;
    } finally {
      indexLock.readLock().unlock();
    }
  }

  @Override
  public void syncDirectory() throws IOException {
    checkOpen();
    try (FileChannel dir = FileChannel.open(root, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      throw failure("sync directory", ".", e);
    }
  }

  @Override
  public boolean delete(String name) throws IOException {
    Path file = resolve(name);
    indexLock.readLock().lock();
    try {
      boolean deleted = Files.deleteIfExists(file);
      NavigableSet<String> i = index;
      if (i != null) {
        i.remove(name);
      }
      return deleted;
    } catch (IOException e) {
      index = null; // the directory may or may not have changed: the next listing scans
      throw failure("delete", name, e);
    } catch (RuntimeException e) {
      index = null;
      throw e;
    } finally {
      indexLock.readLock().unlock();
    }
  }

  @Override
  public List<String> list(String prefix) throws IOException {
    checkOpen();
    NavigableSet<String> i = index;
    if (i == null || prefix.isEmpty()) {
      i = scan(prefix);
    }
    // a prefix's names are the ones from prefix (inclusive) up to prefix + the last char
    return new ArrayList<>(prefix.isEmpty() ? i
        : i.subSet(prefix, true, prefix + Character.MAX_VALUE, false));
  }

  /** Reads the directory into a new index, with no mutation in flight, and publishes it. */
  private NavigableSet<String> scan(String prefix) throws IOException {
    indexLock.writeLock().lock();
    try {
      NavigableSet<String> built = index;
      if (built != null && !prefix.isEmpty()) {
        return built; // another thread's scan got here first
      }
      NavigableSet<String> names = new ConcurrentSkipListSet<>();
      try (Stream<Path> entries = Files.list(root)) {
        entries.forEach(
            p -> {
              if (Files.isRegularFile(p)) {
                names.add(p.getFileName().toString());
              }
            });
      } catch (IOException | UncheckedIOException e) {
        IOException cause =
            e instanceof IOException ? (IOException) e : (IOException) e.getCause();
        index = null;
        throw failure("list", prefix + "*", cause);
      }
      index = names;
      return names;
    } finally {
      indexLock.writeLock().unlock();
    }
  }

  @Override
  public long size(String name) throws IOException {
    Path file = resolve(name);
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw failure("size of", name, e);
    }
  }

  @Override
  public long totalSpace() throws IOException {
    checkOpen();
    try {
      return store.getTotalSpace();
    } catch (IOException e) {
      throw failure("total space of", ".", e);
    }
  }

  @Override
  public long usableSpace() throws IOException {
    checkOpen();
    try {
      return store.getUsableSpace();
    } catch (IOException e) {
      throw failure("usable space of", ".", e);
    }
  }

  /** Closes the drive; files already open stay usable until closed themselves. */
  @Override
  public void close() {
    closed.set(true);
  }

  @Override
  public String toString() {
    return "FileDrive[" + root + ", " + mode + ", alignment " + alignment + "]";
  }

  /**
   * The open file over {@code buffered}, with its O_DIRECT channel opened now on a DIRECT drive,
   * right after the buffered one and by the same name, so both reach the file just created or
   * opened; a later request never opens anything by path again.
   */
  private OpenFile withDirect(String name, Path file, FileChannel buffered, boolean writable)
      throws IOException {
    if (mode != IoMode.DIRECT) {
      return new OpenFile(name, file, buffered, null);
    }
    FileChannel direct = null;
    try {
      direct = writable
          ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
              ExtendedOpenOption.DIRECT)
          : FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
      return new OpenFile(name, file, buffered, direct);
    } catch (IOException | RuntimeException e) {
      try (FileChannel b = buffered; FileChannel d = direct) {
        // closed
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private Path resolve(String name) throws IOException {
    if (name == null
        || name.isEmpty()
        || name.equals(".")
        || name.equals("..")
        || name.indexOf('/') >= 0
        || name.indexOf('\\') >= 0
        || name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("drive file name (" + name + ") must be a single name");
    }
    checkOpen();
    return root.resolve(name);
  }

  private void checkOpen() throws ClosedChannelException {
    if (closed.get()) {
      throw new ClosedChannelException();
    }
  }

  /** Expected conditions pass through; anything else is the drive failing. */
  private IOException failure(String op, String name, IOException e) {
    NavigableSet<String> i = index;
    if (e instanceof NoSuchFileException && i != null && i.contains(name)) {
      index = null; // it listed a file that is gone: someone else changed the directory
    }
    if (e instanceof NoSuchFileException && !Files.isDirectory(root)) {
      return new ArrayException(ArrayError.DRIVE_IO, root.resolve(name),
          "drive " + root + " vanished: " + op + " " + name + " failed: " + e, e);
    }
    if (e instanceof NoSuchFileException
        || e instanceof FileAlreadyExistsException
        || e instanceof ClosedChannelException
        || e instanceof EOFException
        || e instanceof ArrayException) {
      return e;
    }
    if (noSpace(e)) {
      return new ArrayException(ArrayError.NO_SPACE, root.resolve(name),
          "drive " + root + " is full: " + op + " " + name + " failed: " + e.getMessage(), e);
    }
    return new ArrayException(
        ArrayError.DRIVE_IO,
        root.resolve(name),
        "drive " + root + ": " + op + " " + name + " failed: " + e,
        e);
  }

  /** ENOSPC or EDQUOT, which the JDK reports only through the message. */
  public static boolean noSpace(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
        return true;
      }
    }
    return false;
  }

  private boolean aligned(ByteBuffer buf, long position) {
    return mode == IoMode.DIRECT
        && position % alignment == 0
        && buf.remaining() % alignment == 0
        && buf.remaining() > 0;
  }

  private boolean alignedAddress(ByteBuffer buf) {
    return buf.isDirect() && buf.alignmentOffset(buf.position(), alignment) == 0;
  }

  /** An aligned direct buffer of at least {@code length} bytes, cleared and limited to length. */
  private ByteBuffer bounce(int length) {
    ByteBuffer b = bounce.get();
    if (b == null || b.capacity() < length) {
      b = allocateAligned(length);
      if (length <= MAX_CACHED_BOUNCE) {
        bounce.set(b);
      }
    }
    b.clear().limit(length);
    return b;
  }

  /** One open file: a buffered channel, plus (DIRECT drives) an O_DIRECT one on the same file. */
  private final class OpenFile implements DriveFile {
    private final String name;
    private final Path file;
    private final FileChannel buffered;
    private final FileChannel direct;

    OpenFile(String name, Path file, FileChannel buffered, FileChannel direct) {
      this.name = name;
      this.file = file;
      this.buffered = buffered;
      this.direct = direct;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
      checkPosition(position);
      try {
        if (aligned(src, position)) {
          FileChannel ch = direct();
          if (alignedAddress(src)) {
            writeFully(ch, src, position);
          } else {
            ByteBuffer b = bounce(src.remaining());
            b.put(src.duplicate()).flip();
            writeFully(ch, b, position);
            src.position(src.limit());
          }
        } else {
          writeFully(buffered, src, position);
        }
      } catch (IOException e) {
        throw failure("write", name, e);
      }
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      checkPosition(position);
      try {
        if (!aligned(dst, position)) {
          return readAll(buffered, dst, position);
        }
        FileChannel ch = direct();
        if (alignedAddress(dst)) {
          return readAll(ch, dst, position);
        }
        ByteBuffer b = bounce(dst.remaining());
        int n = readAll(ch, b, position);
        b.flip();
        dst.put(b);
        return n;
      } catch (IOException e) {
        throw failure("read", name, e);
      }
    }

    @Override
    public void sync() throws IOException {
      try {
        // fsync flushes the inode whichever descriptor wrote it.
        buffered.force(true);
      } catch (IOException e) {
        throw failure("sync", name, e);
      }
    }

    @Override
    public long size() throws IOException {
      try {
        return buffered.size();
      } catch (IOException e) {
        throw failure("size of", name, e);
      }
    }

    @Override
    public void close() throws IOException {
      try (FileChannel b = buffered; FileChannel d = direct) {
        // both closed
      }
    }

    private FileChannel direct() throws IOException {
      if (direct == null) {
        throw new IllegalStateException("file " + file + " has no O_DIRECT channel"); // BUFFERED
      }
      return direct;
    }

    private void checkPosition(long position) {
      if (position < 0) {
        throw new IllegalArgumentException("file position (" + position + ") must be >= 0");
      }
    }

    @Override
    public String toString() {
      return file.toString();
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer src, long position) throws IOException {
    long p = position;
    while (src.hasRemaining()) {
      p += ch.write(src, p);
    }
  }

  private static int readAll(FileChannel ch, ByteBuffer dst, long position) throws IOException {
    int total = 0;
    while (dst.hasRemaining()) {
      int n = ch.read(dst, position + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }
}
