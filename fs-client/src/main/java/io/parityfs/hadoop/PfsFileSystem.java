package io.parityfs.hadoop;

import static io.parityfs.hadoop.NamespaceErrors.fileExpected;
import static io.parityfs.hadoop.NamespaceErrors.namespace;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_STANDARD_OPTIONS;

import io.parityfs.client.Links;
import io.parityfs.client.ParityClient;
import io.parityfs.client.PfsInputStream;
import io.parityfs.client.PfsOutputStream;
import io.parityfs.meta.Caller;
import io.parityfs.meta.CreateOptions;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.meta.XAttrMode;
import io.parityfs.meta.targets.SpaceTotal;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.HadoopIllegalArgumentException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.fs.impl.AbstractFSBuilderImpl;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.impl.PathCapabilitiesSupport;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.DataChecksum;
import org.apache.hadoop.util.Progressable;
import org.apache.hadoop.util.functional.RemoteIterators;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hadoop {@code FileSystem} of {@code pfs://<cluster>/path}: the namespace on the cluster's
 * ZooKeeper, file data striped over its storage nodes. One {@link ParityClient} (one ZooKeeper
 * session, one pool of transfer threads) per instance, acting for the Hadoop user that created
 * the instance ({@code FileSystem.get} caches one per user and URI) with the umask of {@code
 * fs.permissions.umask-mode}. Semantics are HDFS's where {@code filesystem.md} allows a choice;
 * the differences are in {@code docs/hadoop.md}. Thread-safe.
 *
 * <p><b>Symbolic links</b> (docs/hadoop.md): every call follows the links on its path
 * ({@link Links}), as HDFS's client does, unless {@code fs.client.resolve.remote.symlinks} is
 * false; as HDFS, {@code getFileStatus} of a link is its target's status and path, a listing
 * shows links as links ({@code isSymlink}), {@code rename} and {@code delete} act on a link
 * itself; Hadoop's own symlink suite passes ({@code TestPfsSymlinkFileSystem}). {@code createSymlink} needs {@value #SYMLINKS_KEY}=true (as HDFS needs symlinks
 * enabled), since tools that copy trees treat links in their own ways.
 *
 * <p>What is not supported: {@code concat}, ACLs, snapshots, path
 * handles, storage policies, safe mode, delegation tokens. {@code create}'s replication and block
 * size are ignored: redundancy is parity inside each storage node, and the chunk size comes from
 * the directory's layout.
 *
 * <p>Failures become Hadoop's exception types in {@link NamespaceErrors}; the extended
 * attributes' HDFS rules are {@link HadoopXAttrs}', the settings' checks {@link ClientSettings}'.
 */
public class PfsFileSystem extends FileSystem implements LeaseRecoverable {
  /** The URI scheme. */
  public static final String SCHEME = "pfs";
  /** Whether {@code createSymlink} is allowed (default false; links are followed either way). */
  public static final String SYMLINKS_KEY = "fs.pfs.symlinks";

  private static final Logger LOG = LoggerFactory.getLogger(PfsFileSystem.class);

  private URI uri;
  private Path workingDir;
  private ParityClient client;
  private Namespace ns;
  private int pageSize;
  private long blockSize;
  private boolean checksums;
  private long readAhead;
  private Links links;
  private boolean symlinks;

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    if (!SCHEME.equalsIgnoreCase(name.getScheme())) {
      throw new IllegalArgumentException("not a pfs URI: " + name);
    }
    uri = URI.create(SCHEME + "://" + (name.getAuthority() == null ? "" : name.getAuthority()));
    pageSize = ClientSettings.listPageSize(conf);
    blockSize = ClientSettings.blockSize(conf);
    checksums = ClientSettings.checksums(conf);
    Caller caller = ClientSettings.caller(conf);
    var config = ClientSettings.clientConfig(uri, conf);
    readAhead = config.readAheadBytes();
    client = ParityClient.connect(config, caller);
    ns = client.namespace();
    links = new Links(ns, conf.getBoolean(
        CommonConfigurationKeysPublic.FS_CLIENT_RESOLVE_REMOTE_SYMLINKS_KEY,
        CommonConfigurationKeysPublic.FS_CLIENT_RESOLVE_REMOTE_SYMLINKS_DEFAULT),
        this::qualifiedTarget);
    symlinks = conf.getBoolean(SYMLINKS_KEY, false);
    workingDir = new Path("/user", caller.user()).makeQualified(uri, null);
  }

  @Override
  public URI getUri() {
    return uri;
  }

  /** The authority names a cluster, not a host: no DNS canonicalisation. */
  @Override
  protected URI canonicalizeUri(URI u) {
    return u;
  }

  /** No delegation tokens: ZooKeeper and the storage nodes authenticate otherwise. */
  @Override
  public String getCanonicalServiceName() {
    return null;
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDir;
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    workingDir = makeQualified(dir);
  }

  /** The client core behind this file system (for tools that need more than Hadoop's API). */
  public ParityClient client() {
    return client;
  }

  // ---------------------------------------------------------------- paths and conversions

  /** The namespace path of a Hadoop path of this file system ("Wrong FS" for another's). */
  /**
   * The namespace path of {@code p}. A path holding U+FFFD is refused (InvalidPathException):
   * it is what a name that was not UTF-8 becomes once decoded (a local file listed by {@code
   * hadoop fs -put}), so two such names would be one file here; the mount and the CLI refuse
   * those bytes too (docs/hadoop.md).
   */
  private String pathOf(Path p) {
    String s = makeQualified(p).toUri().getPath();
    if (s != null && s.indexOf('\uFFFD') >= 0) {
      throw new org.apache.hadoop.fs.InvalidPathException(s, "it holds U+FFFD, the mark of a"
          + " name that was not UTF-8 before it was decoded: ParityFS names are UTF-8");
    }
    return s == null || s.isEmpty() ? "/" : s;
  }

  private Path qualified(String path) {
    return new Path(uri.getScheme(), uri.getAuthority(), path);
  }

  private PfsFileStatus toHadoop(io.parityfs.meta.FileStatus f) {
    return new PfsFileStatus(f, qualified(f.path()));
  }

  /**
   * The namespace path of a link target that names a scheme or an authority: this file
   * system's path for {@code pfs://<this cluster>/a} and {@code pfs:///a}; a target elsewhere is
   * not followed (UNRESOLVED_LINK; HDFS's client would hand it to the other file system).
   */
  private String qualifiedTarget(String link, String target) throws NamespaceException {
    URI t;
    try {
      t = new URI(target);
    } catch (java.net.URISyntaxException e) {
      throw new NamespaceException(NamespaceStatus.UNRESOLVED_LINK, link, "its target " + target
          + " is not a URI: " + e.getMessage());
    }
    boolean here = SCHEME.equalsIgnoreCase(t.getScheme()) && (t.getAuthority() == null
        || t.getAuthority().equals(uri.getAuthority()));
    if (!here || t.getPath() == null || !t.getPath().startsWith("/")) {
      throw new NamespaceException(NamespaceStatus.UNRESOLVED_LINK, link, "its target " + target
          + " is not in this file system (" + uri + "): links to other file systems are not"
          + " followed");
    }
    return t.getPath();
  }

  /**
   * The status at {@code f} with every link on its path followed, the last one included (one
   * read per link); NOT_FOUND, naming a dangling link's target, where nothing is.
   */
  private io.parityfs.meta.FileStatus followedStatus(Path f) throws NamespaceException {
    String p = pathOf(f);
    Links.Resolved r = links.resolve(p);
    if (r.status() == null) {
      throw new NamespaceException(NamespaceStatus.NOT_FOUND, p, "no such file or directory"
          + (r.path().equals(p) ? "" : " (a symbolic link to the missing " + r.path() + ")"));
    }
    return r.status();
  }

  /** The namespace path of {@code f} with every link on it followed, the last one included. */
  private String followed(Path f) throws IOException {
    String p = pathOf(f);
    return namespace(() -> links.resolve(p).path());
  }

  private static int mode(FsPermission permission, int defaultMode) {
    return permission == null ? defaultMode : permission.toShort() & 07777;
  }

  // ---------------------------------------------------------------- reads

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    return open(f, readAhead);
  }

  private FSDataInputStream open(Path f, long readAheadBytes) throws IOException {
    statistics.incrementReadOps(1);
    String p = pathOf(f);
    PfsInputStream in;
    try {
      // close-to-open: what another client closed before this open is seen, not a stale
      // cached entry or a lagging follower's (one ZooKeeper round trip per open)
      client.namespace().sync();
      in = links.follow(p, q -> client.open(q, readAheadBytes));
    } catch (NamespaceException e) {
      throw fileExpected(e);
    }
    return new FSDataInputStream(new HadoopInputStream(in, p, statistics));
  }

  /**
   * {@code openFile()}: the standard options are accepted; a read policy of {@code random},
   * {@code vector} or a columnar format turns the read-ahead off, {@code sequential} and {@code
   * whole-file} keep it; the length and split options are hints this file system does not need
   * (the open reads the inode anyway, for the layout). The open is done at once; its failure is
   * the future's.
   */
  @Override
  protected CompletableFuture<FSDataInputStream> openFileWithOptions(Path path,
      OpenFileParameters parameters) throws IOException {
    AbstractFSBuilderImpl.rejectUnknownMandatoryKeys(parameters.getMandatoryKeys(),
        FS_OPTION_OPENFILE_STANDARD_OPTIONS, "for " + path);
    long ahead = ReadPolicies.readAhead(parameters.getOptions().getTrimmedStrings(
        FS_OPTION_OPENFILE_READ_POLICY), readAhead);
    CompletableFuture<FSDataInputStream> result = new CompletableFuture<>();
    try {
      result.complete(open(path, ahead));
    } catch (IOException | RuntimeException e) {
      result.completeExceptionally(e);
    }
    return result;
  }


  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    statistics.incrementReadOps(1);
    return namespace(() -> toHadoop(followedStatus(f))); // the target's, as HDFS gives
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    List<FileStatus> all = new ArrayList<>();
    RemoteIterator<FileStatus> it = listStatusIterator(f);
    while (it.hasNext()) {
      all.add(it.next());
    }
    return all.toArray(new FileStatus[0]);
  }

  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
    statistics.incrementReadOps(1);
    DirectoryListing listing = new DirectoryListing(ns, followed(f), pageSize);
    return RemoteIterators.mappingRemoteIterator(listing, this::toHadoop);
  }

  @Override
  protected RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f, PathFilter filter)
      throws IOException {
    statistics.incrementReadOps(1);
    DirectoryListing listing = new DirectoryListing(ns, followed(f), pageSize);
    RemoteIterator<LocatedFileStatus> located = RemoteIterators.mappingRemoteIterator(listing,
        s -> new PfsLocatedFileStatus(toHadoop(s), s.isFile()
            ? ChunkLocations.of(client, s, 0, s.length()) : null));
    return RemoteIterators.filteringRemoteIterator(located, s -> filter.accept(s.getPath()));
  }

  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len)
      throws IOException {
    if (file == null) {
      return null;
    }
    return getFileBlockLocations(file.getPath(), start, len);
  }

  /** One location per chunk, on its target's node. */
  @Override
  public BlockLocation[] getFileBlockLocations(Path p, long start, long len)
      throws IOException {
    if (start < 0 || len < 0) {
      throw new IllegalArgumentException("Invalid start (" + start + ") or len (" + len + ")");
    }
    statistics.incrementReadOps(1);
    return namespace(() -> ChunkLocations.of(client, followedStatus(p), start, len));
  }

  /**
   * COMPOSITE-CRC32C of the file's bytes, comparable with HDFS's {@code COMPOSITE_CRC} mode;
   * reads the whole file. Null when {@code fs.pfs.checksum.algorithm} is NONE.
   */
  @Override
  public FileChecksum getFileChecksum(Path f, long length) throws IOException {
    if (!checksums) {
      return null;
    }
    statistics.incrementReadOps(1);
    String p = pathOf(f);
    try (PfsInputStream in = links.follow(p, client::open)) {
      return CompositeCrc.of(in, length);
    } catch (NamespaceException e) {
      throw fileExpected(e);
    }
  }

  @Override
  public FileChecksum getFileChecksum(Path f) throws IOException {
    return getFileChecksum(f, Long.MAX_VALUE);
  }

  /**
   * Capacity and free space of every storage target the registry knows, a file system that
   * several targets share counted once ({@link SpaceTotal}).
   */
  @Override
  public FsStatus getStatus(Path p) throws IOException {
    statistics.incrementReadOps(1);
    SpaceTotal space = SpaceTotal.of(client.registry().targets());
    return new FsStatus(space.capacityBytes(), space.capacityBytes() - space.freeBytes(),
        space.freeBytes());
  }

  // ---------------------------------------------------------------- writes

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite,
      int bufferSize, short replication, long blockSize, Progressable progress)
      throws IOException {
    return create(f, permission, overwrite, true);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
      EnumSet<CreateFlag> flags, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    if (flags.contains(CreateFlag.APPEND) && !flags.contains(CreateFlag.OVERWRITE)
        && exists(f)) {
      return append(f, bufferSize, progress);
    }
    return create(f, permission, flags.contains(CreateFlag.OVERWRITE), false);
  }

  private FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite,
      boolean parents) throws IOException {
    statistics.incrementWriteOps(1);
    String p = pathOf(f);
    CreateOptions options = CreateOptions.file().withOverwrite(overwrite)
        .withCreateParents(parents).withPermission(mode(permission, 0666));
    PfsOutputStream out;
    try {
      // parents are made on the path as named, not past a link (POSIX: a dangling link's
      // missing target directory is ENOENT, not made)
      out = links.follow(p, q -> client.create(q, q.equals(p) ? options
          : options.withCreateParents(false)));
    } catch (NamespaceException e) {
      throw NamespaceErrors.toHadoop(e);
    }
    return new FSDataOutputStream(new HadoopOutputStream(out, p), statistics);
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress)
      throws IOException {
    statistics.incrementWriteOps(1);
    String p = pathOf(f);
    PfsOutputStream out;
    try {
      out = links.follow(p, client::append);
    } catch (NamespaceException e) {
      throw fileExpected(e);
    }
    return new FSDataOutputStream(new HadoopOutputStream(out, p), statistics, out.position());
  }

  /**
   * Shortens a closed file to {@code newLength} (filesystem.md's {@code truncate}: longer is an
   * error). Done when it returns: always true (no block recovery to wait for). Takes the file's
   * lease for the time of the call, so a file open for writing is refused (LEASE_CONFLICT).
   */
  @Override
  public boolean truncate(Path f, long newLength) throws IOException {
    statistics.incrementWriteOps(1);
    String p = pathOf(f);
    FileStatus status = getFileStatus(f);
    if (status.isDirectory()) {
      throw new FileNotFoundException(p + ": is a directory, not a file");
    }
    if (newLength < 0 || newLength > status.getLen()) {
      throw new HadoopIllegalArgumentException(p + ": cannot truncate a file of "
          + status.getLen() + " bytes to " + newLength);
    }
    try {
      links.follow(p, q -> {
        client.truncate(q, newLength);
        return null;
      });
    } catch (NamespaceException e) {
      throw fileExpected(e);
    }
    return true;
  }

  /**
   * HDFS's rename: false when the source is missing, the destination exists as a file (or the
   * name is taken inside a destination directory), the destination's parent is missing or a
   * file, or the destination is inside the source; an existing destination directory receives
   * the source under its own name.
   */
  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    statistics.incrementWriteOps(1);
    try {
      links.follow(pathOf(src), s -> links.follow(pathOf(dst), d -> ns.rename(s, d)));
      return true;
    } catch (NamespaceException e) {
      switch (e.status()) {
        case NOT_FOUND:
        case ALREADY_EXISTS:
        case PARENT_NOT_DIRECTORY:
        case INVALID_RENAME:
          LOG.debug("rename {} to {}: false ({})", src, dst, e.getMessage());
          return false;
        default:
          throw NamespaceErrors.toHadoop(e);
      }
    }
  }

  /**
   * As HDFS: false when missing; the root is never deleted (false), but a non-recursive delete
   * of a non-empty root fails as for any non-empty directory.
   */
  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    statistics.incrementWriteOps(1);
    String p = pathOf(f);
    try {
      if (p.equals("/") && !recursive && !ns.list(p, null, 1).entries().isEmpty()) {
        throw new PathIsNotEmptyDirectoryException(p);
      }
      return links.follow(p, q -> ns.delete(q, recursive));
    } catch (NamespaceException e) {
      throw NamespaceErrors.toHadoop(e);
    }
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    statistics.incrementWriteOps(1);
    return namespace(() -> links.follow(pathOf(f), q -> ns.mkdirs(q, CreateOptions.directory()
        .withPermission(mode(permission, 0777)))));
  }

  @Override
  public void setTimes(Path p, long mtime, long atime) throws IOException {
    statistics.incrementWriteOps(1);
    String target = followed(p);
    namespace(() -> ns.setTimes(target, mtime, atime));
  }

  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    statistics.incrementWriteOps(1);
    String target = followed(p);
    namespace(() -> ns.setPermission(target, permission.toShort() & 07777));
  }

  @Override
  public void setOwner(Path p, String username, String groupname) throws IOException {
    statistics.incrementWriteOps(1);
    String target = followed(p);
    namespace(() -> ns.setOwner(target, username, groupname));
  }

  /**
   * Accepted and ignored (redundancy is parity inside each storage node; files report
   * replication 1): true for a file, false for a directory, FileNotFoundException when missing.
   */
  @Override
  public boolean setReplication(Path p, short replication) throws IOException {
    statistics.incrementReadOps(1);
    return namespace(() -> followedStatus(p).isFile());
  }

  /**
   * Hadoop's {@code msync}: later reads see every namespace write committed before this call,
   * also other clients' (a ZooKeeper {@code sync}).
   */
  @Override
  public void msync() throws IOException {
    namespace(() -> ns.sync());
  }

  // ---------------------------------------------------------------- symbolic links

  /** Whether {@code createSymlink} is allowed here ({@value #SYMLINKS_KEY}). */
  @Override
  public boolean supportsSymlinks() {
    return symlinks;
  }

  /**
   * A link at {@code link} to {@code target}, kept as given ({@code target.toString()}, as
   * HDFS keeps it): a relative target is followed from the link's directory, an absolute path
   * in this file system, and a qualified one ({@code pfs://cluster/a}) only when it names this
   * file system. Needs {@value #SYMLINKS_KEY}=true.
   */
  @Override
  public void createSymlink(Path target, Path link, boolean createParent) throws IOException {
    if (!symlinks) {
      throw new UnsupportedOperationException("symbolic links are off for this client: set "
          + SYMLINKS_KEY + "=true to create them (links are followed either way)");
    }
    statistics.incrementWriteOps(1);
    String to = target.toString();
    if (to.isEmpty()) {
      throw new IOException("cannot link " + link + " to an empty path (" + target + ")");
    }
    String p = pathOf(link);
    namespace(() -> links.follow(p, q -> ns.createSymlink(to, q, CreateOptions.file()
        .withCreateParents(createParent))));
  }

  /**
   * The link's own status ({@code isSymlink}, its {@code getSymlink()} the target qualified
   * from the link's directory, as HDFS gives it); anything else's as {@link #getFileStatus}.
   */
  @Override
  public FileStatus getFileLinkStatus(Path f) throws IOException {
    statistics.incrementReadOps(1);
    String p = pathOf(f);
    return namespace(() -> {
      io.parityfs.meta.FileStatus s = links.follow(p, ns::getStatus);
      PfsFileStatus h = toHadoop(s);
      if (s.isSymlink()) {
        h.setSymlink(qualifiedLinkTarget(s.path(), s.linkTarget()));
      }
      return h;
    });
  }

  /**
   * Hadoop's qualification of a link target ({@code FSLinkResolver.qualifySymlinkTarget}): a
   * plain path is made qualified in this file system from the link's directory; a target with a
   * scheme or an authority stays as it is.
   */
  private Path qualifiedLinkTarget(String link, String target) {
    Path t = PfsFileStatus.linkPath(target);
    if (t.toUri().getScheme() != null || t.toUri().getAuthority() != null) {
      return t;
    }
    return t.makeQualified(uri, qualified(link).getParent());
  }

  /**
   * The target of the link at {@code f}, as it was given; an IOException naming the path when
   * it is not a link.
   */
  @Override
  public Path getLinkTarget(Path f) throws IOException {
    String p = pathOf(f);
    io.parityfs.meta.FileStatus s = namespace(() -> links.follow(p, ns::getStatus));
    if (!s.isSymlink()) {
      throw new IOException("Path " + qualified(s.path()) + " is not a symbolic link");
    }
    return PfsFileStatus.linkPath(s.linkTarget());
  }

  @Override
  protected Path resolveLink(Path f) throws IOException {
    return getLinkTarget(f);
  }

  /**
   * HDFS's {@code rename(src, dst, OVERWRITE?)} (what {@code FileContext} and Hadoop's symlink
   * suite call), in one namespace transaction: links above both paths followed, the source and
   * the destination themselves never; the same entry, or a link renamed onto its own target, is
   * {@code FileAlreadyExistsException}; an existing destination needs OVERWRITE, and then must be
   * of the source's kind (a link counts as a file), a directory empty.
   */
  @Override
  @SuppressWarnings("deprecation")
  protected void rename(Path src, Path dst, Options.Rename... options) throws IOException {
    statistics.incrementWriteOps(1);
    boolean overwrite = java.util.Arrays.asList(options).contains(Options.Rename.OVERWRITE);
    String sp = pathOf(src);
    String dp = pathOf(dst);
    namespace(() -> links.follow(sp, s -> links.follow(dp, d -> {
      io.parityfs.meta.FileStatus from = ns.getStatus(s);
      if (s.equals(d) || (from.isSymlink() && !Links.isQualified(from.linkTarget())
          && Links.normalizeFrom(s, from.linkTarget()).equals(d))) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, d, s.equals(d)
            ? "the source and the destination are the same"
            : "cannot rename a symbolic link to its own target");
      }
      if (!overwrite && ns.statusOrNull(d) != null) {
        throw new NamespaceException(NamespaceStatus.ALREADY_EXISTS, d,
            "rename destination exists (no OVERWRITE)");
      }
      return ns.renameReplacing(s, d);
    })));
  }

  // ---------------------------------------------------------------- extended attributes

  @Override
  public void setXAttr(Path path, String name, byte[] value, EnumSet<XAttrSetFlag> flag)
      throws IOException {
    XAttrMode mode = HadoopXAttrs.mode(name, flag);
    statistics.incrementWriteOps(1);
    HadoopXAttrs.set(ns, followed(path), path, name, value, mode);
  }

  /** As HDFS: a missing attribute is an IOException, a missing path a FileNotFoundException. */
  @Override
  public byte[] getXAttr(Path path, String name) throws IOException {
    return HadoopXAttrs.select(getXAttrs(path), Collections.singletonList(name), path)
        .get(name);
  }

  @Override
  public Map<String, byte[]> getXAttrs(Path path) throws IOException {
    statistics.incrementReadOps(1);
    String target = followed(path);
    return namespace(() -> ns.getXAttrs(target));
  }

  /** The named attributes; as HDFS, an IOException if any of them is missing. */
  @Override
  public Map<String, byte[]> getXAttrs(Path path, List<String> names) throws IOException {
    return HadoopXAttrs.select(getXAttrs(path), names, path);
  }

  @Override
  public List<String> listXAttrs(Path path) throws IOException {
    return new ArrayList<>(getXAttrs(path).keySet());
  }

  /** As HDFS: a missing attribute is an IOException, a missing path a FileNotFoundException. */
  @Override
  public void removeXAttr(Path path, String name) throws IOException {
    statistics.incrementWriteOps(1);
    HadoopXAttrs.remove(ns, followed(path), path, name);
  }

  // ---------------------------------------------------------------- leases

  /** Closes a file whose writer died, or revokes a live writer (as HDFS). */
  @Override
  public boolean recoverLease(Path file) throws IOException {
    statistics.incrementWriteOps(1);
    String target = followed(file);
    return NamespaceErrors.file(() -> client.recoverLease(target));
  }

  @Override
  public boolean isFileClosed(Path file) throws IOException {
    statistics.incrementReadOps(1);
    String target = followed(file);
    return NamespaceErrors.file(() -> ns.isFileClosed(target));
  }

  // ---------------------------------------------------------------- what Hadoop is told

  @Override
  public boolean hasPathCapability(Path path, String capability) throws IOException {
    switch (PathCapabilitiesSupport.validatePathCapabilityArgs(makeQualified(path),
        capability)) {
      case CommonPathCapabilities.FS_APPEND:
      case CommonPathCapabilities.FS_PERMISSIONS:
      case CommonPathCapabilities.FS_XATTRS:
      case CommonPathCapabilities.ETAGS_AVAILABLE:
      case CommonPathCapabilities.ETAGS_PRESERVED_IN_RENAME:
      case CommonPathCapabilities.LEASE_RECOVERABLE:
      case CommonPathCapabilities.BULK_DELETE:
      case CommonPathCapabilities.FS_TRUNCATE:
        return true;
      case CommonPathCapabilities.FS_CHECKSUMS:
        return checksums;
      case CommonPathCapabilities.FS_SYMLINKS:
        return symlinks;
      case CommonPathCapabilities.FS_CONCAT:
      case CommonPathCapabilities.FS_ACLS:
      case CommonPathCapabilities.FS_SNAPSHOTS:
      case CommonPathCapabilities.FS_PATHHANDLES:
      case CommonPathCapabilities.FS_STORAGEPOLICY:
      case CommonPathCapabilities.FS_MULTIPART_UPLOADER:
        return false;
      default:
        return super.hasPathCapability(path, capability);
    }
  }

  @SuppressWarnings("deprecation") // what the Path variants call
  @Override
  public long getDefaultBlockSize() {
    return blockSize;
  }

  @SuppressWarnings("deprecation") // what the Path variants call
  @Override
  public short getDefaultReplication() {
    return 1;
  }

  @SuppressWarnings("deprecation") // what the Path variants call
  @Override
  public FsServerDefaults getServerDefaults() throws IOException {
    Configuration conf = getConf();
    return new FsServerDefaults(blockSize, CompositeCrc.BYTES_PER_CRC, 64 * 1024, (short) 1,
        conf.getInt("io.file.buffer.size", 4096), false, conf.getLong("fs.trash.interval", 0),
        DataChecksum.Type.CRC32C);
  }

  @Override
  public void close() throws IOException {
    try {
      super.close(); // deletes deleteOnExit paths: needs the client
    } finally {
      if (client != null) {
        client.close();
      }
    }
  }

  @Override
  public String toString() {
    return "PfsFileSystem{" + uri + ", " + (ns == null ? "not initialized" : ns.caller()) + "}";
  }
}
