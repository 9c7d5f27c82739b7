package io.parityfs.hadoop;

import io.parityfs.client.ClientException;
import io.parityfs.client.ClientStatus;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.ClusterStorageCapacityExceededException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.InvalidPathException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsDirectoryException;
import org.apache.hadoop.fs.PathIsNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.UnresolvedLinkException;
import org.apache.hadoop.security.AccessControlException;

/**
 * A client failure's {@link ClientStatus} to the exception Hadoop's {@code filesystem.md} (and
 * HDFS) uses: the table of {@code docs/metadata.md}, "Errors", and {@code docs/hadoop.md}. The
 * failure's message (path, reason) is kept (for the {@code PathIOException}s, which print only
 * the path, in the cause), and the failure is the cause. Also {@link PfsFileSystem}'s ways of
 * running a namespace call with its failure mapped ({@link #namespace}, {@link #fileExpected}).
 */
final class NamespaceErrors {
  private NamespaceErrors() {}

  /** A namespace call. */
  @FunctionalInterface
  interface NamespaceCall<T> {
    T call() throws NamespaceException;
  }

  /** A namespace call without a result. */
  @FunctionalInterface
  interface NamespaceRun {
    void run() throws NamespaceException;
  }

  /** Runs a namespace call, its failure mapped to Hadoop's exception. */
  static <T> T namespace(NamespaceCall<T> call) throws IOException {
    try {
      return call.call();
    } catch (NamespaceException e) {
      throw toHadoop(e);
    }
  }

  /** Runs a namespace call on a file, its failure mapped by {@link #fileExpected}. */
  static <T> T file(NamespaceCall<T> call) throws IOException {
    try {
      return call.call();
    } catch (NamespaceException e) {
      throw fileExpected(e);
    }
  }

  static void namespace(NamespaceRun run) throws IOException {
    namespace(() -> {
      run.run();
      return null;
    });
  }

  /**
   * Where a file is needed: HDFS's FileNotFoundException for a directory ("Path is not a
   * file") and its message for a missing file ("File does not exist").
   */
  static IOException fileExpected(NamespaceException e) {
    FileNotFoundException f;
    if (e.status() == NamespaceStatus.IS_A_DIRECTORY) {
      f = new FileNotFoundException("Path is not a file: " + e.path());
    } else if (e.status() == NamespaceStatus.NOT_FOUND) {
      f = new FileNotFoundException("File does not exist: " + e.path() + " (" + e.getMessage()
          + ")");
    } else {
      return toHadoop(e);
    }
    f.initCause(e);
    return f;
  }

  /**
   * The Hadoop exception for {@code e}, by its {@link ClientStatus#of(Throwable)}; one switch
   * over every status (no default). INVALID_PATH is thrown, not returned: Hadoop's {@link
   * InvalidPathException} is unchecked. NO_SPACE (a full storage target, or the namespace's id
   * space) is Hadoop's {@link ClusterStorageCapacityExceededException}, the type HDFS's quota
   * exceptions extend and that MapReduce fails a job fast on (no task retries into a full
   * cluster); the message names the target. A status with no Hadoop type of its own keeps
   * {@code e} (a client core exception, typed); a namespace failure becomes a plain
   * IOException.
   */
  static IOException toHadoop(IOException e) {
    String msg = e.getMessage();
    String path = pathOf(e);
    IOException h = switch (ClientStatus.of(e)) {
      case NOT_FOUND -> new FileNotFoundException(msg);
      case ALREADY_EXISTS -> new FileAlreadyExistsException(msg);
      case PARENT_NOT_DIRECTORY -> new ParentNotDirectoryException(msg);
      case UNRESOLVED_LINK -> msg != null && msg.contains(io.parityfs.client.Links.TOO_MANY)
          // Hadoop's own words for it (FileSystemLinkResolver), which its suite checks
          ? new IOException("Possible cyclic loop while following symbolic link " + path)
          : new UnresolvedLinkException(msg);
      case NOT_EMPTY -> new PathIsNotEmptyDirectoryException(path);
      case NOT_A_DIRECTORY -> new PathIsNotDirectoryException(path);
      case IS_A_DIRECTORY -> new PathIsDirectoryException(path);
      case PERMISSION_DENIED -> new AccessControlException(msg);
      case LEASE_CONFLICT -> new FileAlreadyExistsException(
          "already being created/appended by another client (HDFS: AlreadyBeingCreatedException): "
              + msg);
      case INVALID_PATH -> {
        InvalidPathException ip = new InvalidPathException(String.valueOf(path), msg);
        ip.initCause(e);
        throw ip;
      }
      case NO_SPACE -> new ClusterStorageCapacityExceededException(msg);
      case INVALID_RENAME, TOO_LARGE, FILE_TOO_LARGE, CONFLICT, ILLEGAL_STATE, UNAVAILABLE,
          TARGET_NOT_FOUND, CORRUPT, LEASE_EXPIRED, FENCED, DATA_LOST, INVALID_ARGUMENT,
          INTERRUPTED, IO_ERROR -> e instanceof NamespaceException ? new IOException(msg) : null;
    };
    if (h == null) {
      return e;
    }
    h.initCause(e);
    return h;
  }

  /** The path a failure names: a namespace or client exception's, else null. */
  private static String pathOf(IOException e) {
    if (e instanceof NamespaceException n) {
      return n.path();
    }
    if (e instanceof ClientException c) {
      return c.path();
    }
    return null;
  }
}
