package io.parityfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.parityfs.client.ClientException;
import io.parityfs.client.ClientStatus;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.Status;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exit-code table: every client status maps; the codes are distinct and stable. */
class ExitStatusTest {

  @Test
  void everyClientStatusHasAnExitStatus() {
    for (ClientStatus s : ClientStatus.values()) {
      assertNotNull(ExitStatus.of(s), s.name());
    }
  }

  @Test
  void codesAreDistinct() {
    Set<Integer> codes = new HashSet<>();
    for (ExitStatus s : ExitStatus.values()) {
      assertEquals(true, codes.add(s.code()), s.name());
    }
    assertEquals(8, ExitStatus.NO_SPACE.code());
  }

  @Test
  void failuresKeepTheirCodes() {
    assertEquals(ExitStatus.NO_SPACE, ExitStatus.of(new NodeException(Status.NO_SPACE, "x")));
    assertEquals(ExitStatus.NO_SPACE, ExitStatus.of(
        new ClientException(ClientStatus.NO_SPACE, "/f", "x")));
    assertEquals(ExitStatus.NOT_FOUND, ExitStatus.of(
        new NamespaceException(NamespaceStatus.NOT_FOUND, "/p", "x")));
    assertEquals(ExitStatus.CONFLICT, ExitStatus.of(
        new NamespaceException(NamespaceStatus.LEASE_EXPIRED, "/p", "x")));
    assertEquals(ExitStatus.USAGE, ExitStatus.of(
        new NamespaceException(NamespaceStatus.INVALID_PATH, "/p", "x")));
    assertEquals(ExitStatus.FAILED, ExitStatus.of(
        new NamespaceException(NamespaceStatus.NOT_EMPTY, "/p", "x")));
    assertEquals(ExitStatus.NOT_FOUND, ExitStatus.of(new NodeException(Status.UNKNOWN_TARGET,
        "x")));
    assertEquals(ExitStatus.CONFLICT, ExitStatus.of(new NodeException(Status.ILLEGAL_STATE,
        "x")));
    assertEquals(ExitStatus.USAGE, ExitStatus.of(new NodeException(Status.INVALID_ARGUMENT,
        "x")));
    assertEquals(ExitStatus.UNAVAILABLE, ExitStatus.of(new NodeException(Status.BUSY, "x")));
    assertEquals(ExitStatus.FAILED, ExitStatus.of(new NodeException(Status.DRIVE_IO, "x")));
    assertEquals(ExitStatus.UNAVAILABLE, ExitStatus.of(new InterruptedIOException()));
    assertEquals(ExitStatus.PERMISSION_DENIED, ExitStatus.of(new AccessDeniedException("/l")));
    assertEquals(ExitStatus.USAGE, ExitStatus.of(new IllegalArgumentException()));
    assertEquals(ExitStatus.USAGE, ExitStatus.of(
        new CliException(ExitStatus.USAGE, "x", "INVALID_ARGUMENT: x")));
  }
}
