package io.parityfs.hadoop;

import io.parityfs.meta.NamespaceException;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.InvalidPathException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsDirectoryException;
import org.apache.hadoop.fs.PathIsNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;

/**
 * {@link io.parityfs.meta.NamespaceStatus} to the exception Hadoop's {@code filesystem.md} (and
 * HDFS) uses: the table of {@code docs/metadata.md}, "Errors". The namespace's message (path,
 * reason) is kept (for the {@code PathIOException}s, which print only the path, in the cause),
 * and the {@link NamespaceException} is the cause.
 */
final class NamespaceErrors {
  private NamespaceErrors() {}

  /**
   * The Hadoop exception for {@code e}. INVALID_PATH is thrown, not returned: Hadoop's
   * {@link InvalidPathException} is unchecked.
   */
  static IOException toHadoop(NamespaceException e) {
    String msg = e.getMessage();
    IOException h = switch (e.status()) {
      case NOT_FOUND -> new FileNotFoundException(msg);
      case ALREADY_EXISTS -> new FileAlreadyExistsException(msg);
      case PARENT_NOT_DIRECTORY -> new ParentNotDirectoryException(msg);
      case NOT_EMPTY -> new PathIsNotEmptyDirectoryException(e.path());
      case NOT_A_DIRECTORY -> new PathIsNotDirectoryException(e.path());
      case IS_A_DIRECTORY -> new PathIsDirectoryException(e.path());
      case PERMISSION_DENIED -> new AccessControlException(msg);
      case LEASE_CONFLICT -> new FileAlreadyExistsException(
          "already being created/appended by another client (HDFS: AlreadyBeingCreatedException): "
              + msg);
      case INVALID_PATH -> {
        InvalidPathException ip = new InvalidPathException(String.valueOf(e.path()), msg);
        ip.initCause(e);
        throw ip;
      }
      default -> new IOException(msg);
    };
    h.initCause(e);
    return h;
  }
}
