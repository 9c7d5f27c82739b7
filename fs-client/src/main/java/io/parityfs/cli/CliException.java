package io.parityfs.cli;

import io.parityfs.client.ClientException;
import io.parityfs.meta.NamespaceException;
import io.parityfs.node.client.NodeException;
import java.nio.file.FileSystemException;

/**
 * A command failed on one subject (a path, a target): what {@code parityfs: <command>:
 * <subject>: <message>} prints, and the {@link ExitStatus} it exits with. The message starts with
 * a word in capitals naming the kind of failure ({@code NOT_FOUND}, {@code ALREADY_EXISTS}, the
 * namespace's, the node's or the client's status name), so scripts can match it.
 */
final class CliException extends Exception {
  private static final long serialVersionUID = 1L;

  private final ExitStatus status;
  private final String subject;

  CliException(ExitStatus status, String subject, String message) {
    super(message);
    this.status = status;
    this.subject = subject;
  }

  ExitStatus status() {
    return status;
  }

  /** The path or target the failure is about, or null. */
  String subject() {
    return subject;
  }

  /** A failure of {@code subject} from any exception a command meets. */
  static CliException of(String subject, Throwable e) {
    if (e instanceof CliException c) {
      return c.subject == null && subject != null ? new CliException(c.status, subject,
          c.getMessage()) : c;
    }
    return new CliException(ExitStatus.of(e), subject, describe(e, subject));
  }

  /** One line, starting with the status name where the exception has one. */
  static String describe(Throwable e, String subject) {
    if (e instanceof NamespaceException n) {
      // "STATUS: path: detail"; keep the path only when it is not the subject's own
      String prefix = n.status() + ": " + n.path() + ": ";
      String m = String.valueOf(n.getMessage());
      return m.startsWith(prefix)
          ? n.status() + ": " + m.substring(prefix.length())
              + (n.path().equals(subject) ? "" : " (" + n.path() + ")")
          : m;
    }
    if (e instanceof NodeException || e instanceof ClientException) {
      return String.valueOf(e.getMessage()).replace('\n', ' '); // "STATUS: detail"
    }
    if (e instanceof FileSystemException f) {
      String kind = ExitStatus.of(e) == ExitStatus.NOT_FOUND ? "NOT_FOUND"
          : ExitStatus.of(e) == ExitStatus.EXISTS ? "ALREADY_EXISTS"
          : ExitStatus.of(e) == ExitStatus.PERMISSION_DENIED ? "PERMISSION_DENIED" : "LOCAL_IO";
      return kind + ": local file " + f.getFile()
          + (f.getReason() == null ? "" : ": " + f.getReason());
    }
    if (e instanceof IllegalArgumentException) {
      return "INVALID_ARGUMENT: " + e.getMessage();
    }
    String m = e.getMessage();
    return "IO_ERROR: " + (m == null ? e.getClass().getSimpleName() : m.replace('\n', ' '));
  }
}
