package io.parityfs.client;

import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Namespace;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Symbolic links followed for the client that follows them, the Hadoop {@code FileSystem} (the
 * CLI shows links and does not follow them). The namespace never follows a link: it names the link it met ({@link
 * NamespaceStatus#UNRESOLVED_LINK}) and these helpers put the link's target in its place and ask
 * again, at most {@link #MAX_LINKS} times (Hadoop's bound; Linux's is 40). The mount needs none
 * of this: the kernel resolves links itself.
 *
 * <p>A relative target is taken from the link's directory; {@code .} and {@code ..} in the
 * result are resolved by name, as Hadoop's {@code Path} does, and {@code ..} at the root stays
 * there. An absolute target is a namespace path: a link made through a mount with an absolute
 * local path ({@code /mnt/pfs/...}) resolves on that mount only; relative links resolve
 * everywhere (docs/metadata.md, "Symbolic links").
 */
public final class Links {
  /** The most links one path may go through (Hadoop's {@code FsConstants.MAX_PATH_LINKS}). */
  public static final int MAX_LINKS = 32;
  /** What the message of the failure for a path through more links than that starts with. */
  public static final String TOO_MANY = "more than " + MAX_LINKS + " symbolic links";

  /**
   * The namespace path a target with a scheme or an authority ({@code pfs://cluster/a}, {@code
   * //cluster/a}) stands for, or a NamespaceException where it is not this file system's. Null
   * (the default): such targets are taken as paths.
   */
  @FunctionalInterface
  public interface QualifiedTargets {
    String pathOf(String link, String target) throws NamespaceException;
  }

  /** An operation on a namespace path. */
  @FunctionalInterface
  public interface PathOp<T, E extends Exception> {
    T apply(String path) throws E;
  }

  /** A path with its links followed, and what is there (null: nothing). */
  public record Resolved(String path, FileStatus status) {}

  private final Namespace ns;
  private final boolean follow;
  private final QualifiedTargets qualified;

  /**
   * @param follow false: a link on the way is an error (UNRESOLVED_LINK, Hadoop's {@code
   *     fs.client.resolve.remote.symlinks=false})
   * @param qualified how a target with a scheme or an authority is taken (null: as a path)
   */
  public Links(Namespace ns, boolean follow, QualifiedTargets qualified) {
    this.ns = ns;
    this.follow = follow;
    this.qualified = qualified;
  }

  /**
   * Runs {@code op} on {@code path}, following every link the namespace reports: those above
   * the path, and the path itself where the namespace refuses a link (open, append, an
   * overwriting create, a layout). A link on a path other than the one this call follows (the
   * other path of a rename) is passed on to the caller's own {@code follow}.
   */
  public <T, E extends Exception> T follow(String path, PathOp<T, E> op)
      throws E, NamespaceException {
    String p = path;
    for (int hops = 0; ; hops++) {
      try {
        return op.apply(p);
      } catch (Exception e) {
        if (!(e instanceof NamespaceException n) || n.status() != NamespaceStatus.UNRESOLVED_LINK
            || !on(n.path(), p)) {
          throw e; // E, or unchecked
        }
        p = through(path, p, n.path(), hops);
      }
    }
  }

  /**
   * {@code path} with every link on it followed, its last component included (what stat,
   * chmod, a listing or an xattr call act on), and its status there (null where nothing is).
   */
  public Resolved resolve(String path) throws NamespaceException {
    String p = path;
    for (int hops = 0; ; hops++) {
      FileStatus s;
      try {
        s = ns.statusOrNull(p);
      } catch (NamespaceException e) {
        if (e.status() != NamespaceStatus.UNRESOLVED_LINK || !on(e.path(), p)) {
          throw e;
        }
        p = through(path, p, e.path(), hops);
        continue;
      }
      if (s == null || !s.isSymlink()) {
        return new Resolved(p, s);
      }
      p = through(path, p, p, hops, s.linkTarget());
    }
  }

  private String through(String asked, String p, String link, int hops)
      throws NamespaceException {
    return through(asked, p, link, hops, null);
  }

  /** {@code p} with its prefix {@code link} replaced by the link's target. */
  private String through(String asked, String p, String link, int hops, String known)
      throws NamespaceException {
    if (!follow) {
      throw new NamespaceException(NamespaceStatus.UNRESOLVED_LINK, link, "is a symbolic link,"
          + " and links are not followed here (fs.client.resolve.remote.symlinks=false)");
    }
    if (hops >= MAX_LINKS) {
      throw new NamespaceException(NamespaceStatus.UNRESOLVED_LINK, asked, TOO_MANY
          + " on the way (a loop?); the last was " + link);
    }
    String target = known != null ? known : ns.readLink(link);
    if (qualified != null && isQualified(target)) {
      target = qualified.pathOf(link, target);
    }
    return substitute(link, target, p);
  }

  /** Whether a target names a scheme ({@code pfs:...}) or an authority ({@code //host/...}). */
  public static boolean isQualified(String target) {
    return target.startsWith("//") || target.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*");
  }

  /** Whether {@code link} is {@code p} or a directory above it. */
  private static boolean on(String link, String p) {
    return p.equals(link) || link.equals("/") || p.startsWith(link + "/");
  }

  /**
   * {@code path} with its prefix {@code link} (a link to {@code target}) replaced by the
   * target, taken from the link's directory when relative, and normalised.
   */
  static String substitute(String link, String target, String path) {
    String dir = link.substring(0, Math.max(0, link.lastIndexOf('/')));
    String base = target.startsWith("/") ? target : dir + "/" + target;
    return normalize(base + path.substring(link.length()));
  }

  /** Where a plain target of the link at {@code link} points, normalised. */
  public static String normalizeFrom(String link, String target) {
    return substitute(link, target, link);
  }

  /** An absolute path with empty, {@code .} and {@code ..} components resolved by name. */
  static String normalize(String path) {
    List<String> out = new ArrayList<>();
    for (String c : path.split("/")) {
      if (c.isEmpty() || c.equals(".")) {
        continue;
      }
      if (c.equals("..")) {
        if (!out.isEmpty()) {
          out.remove(out.size() - 1);
        }
        continue;
      }
      out.add(c);
    }
    return "/" + String.join("/", out);
  }
}
