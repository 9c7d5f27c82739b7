package io.parityfs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ClientException;
import io.parityfs.client.ClientStatus;
import io.parityfs.client.FileTooLargeException;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.Status;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The errno table: every client status maps; the namespace's errnos are those of before. */
class ErrnoTest {

  @Test
  void everyClientStatusHasAnErrno() {
    for (ClientStatus s : ClientStatus.values()) {
      int e = Errno.of(s);
      assertTrue(e > 0, s + " -> " + e);
    }
  }

  @Test
  void namespaceStatusesKeepTheirErrnos() {
    Map<NamespaceStatus, Integer> before = Map.ofEntries(
        Map.entry(NamespaceStatus.NOT_FOUND, Errno.ENOENT),
        Map.entry(NamespaceStatus.ALREADY_EXISTS, Errno.EEXIST),
        Map.entry(NamespaceStatus.PARENT_NOT_DIRECTORY, Errno.ENOTDIR),
        Map.entry(NamespaceStatus.NOT_A_DIRECTORY, Errno.ENOTDIR),
        Map.entry(NamespaceStatus.IS_A_DIRECTORY, Errno.EISDIR),
        Map.entry(NamespaceStatus.NOT_EMPTY, Errno.ENOTEMPTY),
        Map.entry(NamespaceStatus.INVALID_PATH, Errno.EINVAL),
        Map.entry(NamespaceStatus.INVALID_RENAME, Errno.EINVAL),
        Map.entry(NamespaceStatus.TOO_LARGE, Errno.E2BIG),
        Map.entry(NamespaceStatus.NO_SPACE, Errno.ENOSPC),
        Map.entry(NamespaceStatus.CONFLICT, Errno.EAGAIN),
        Map.entry(NamespaceStatus.PERMISSION_DENIED, Errno.EACCES),
        Map.entry(NamespaceStatus.LEASE_CONFLICT, Errno.EBUSY),
        Map.entry(NamespaceStatus.UNAVAILABLE, Errno.EIO),
        Map.entry(NamespaceStatus.CORRUPT, Errno.EIO),
        Map.entry(NamespaceStatus.LEASE_EXPIRED, Errno.EIO),
        Map.entry(NamespaceStatus.DATA_MISSING, Errno.EIO),
        Map.entry(NamespaceStatus.UNRESOLVED_LINK, Errno.ELOOP));
    assertEquals(NamespaceStatus.values().length, before.size());
    before.forEach((s, e) -> {
      assertEquals(e, Errno.of(s), s.name());
      assertEquals(e, Errno.of(new NamespaceException(s, "/p", "x")), s.name());
    });
  }

  @Test
  void dataPathFailures() {
    assertEquals(Errno.ENOSPC, Errno.of(new NodeException(Status.NO_SPACE, "full")));
    assertEquals(Errno.ENOSPC, Errno.of(new ClientException(ClientStatus.NO_SPACE, "/f", "x")));
    assertEquals(Errno.EIO, Errno.of(new NodeException(Status.DRIVE_IO, "x")));
    assertEquals(Errno.EIO, Errno.of(new NodeException(Status.STALE_GENERATION, "x")));
    assertEquals(Errno.EFBIG, Errno.of(new FileTooLargeException("/f", "x")));
    assertEquals(Errno.EINTR, Errno.of(new InterruptedIOException()));
    assertEquals(Errno.EINVAL, Errno.of(new IllegalArgumentException()));
    assertEquals(Errno.EIO, Errno.of(new IOException("x")));
    assertEquals(Errno.ENOENT, Errno.of(new IOException("wrapped",
        new NamespaceException(NamespaceStatus.NOT_FOUND, "/p", "x"))));
  }
}
