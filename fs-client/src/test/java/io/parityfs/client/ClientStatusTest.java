package io.parityfs.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import io.parityfs.node.client.NodeException;
import io.parityfs.node.protocol.ChunkId;
import io.parityfs.node.protocol.Status;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** The two tables into ClientStatus (every constant of each source enum) and the classifier. */
class ClientStatusTest {

  @Test
  void everyNamespaceStatusMaps() {
    for (NamespaceStatus s : NamespaceStatus.values()) {
      ClientStatus c = ClientStatus.of(s);
      assertNotNull(c, s.name());
      if (s != NamespaceStatus.DATA_MISSING) {
        assertEquals(s.name(), c.name(), "the same name where the meaning is the same");
      }
    }
    assertEquals(ClientStatus.DATA_LOST, ClientStatus.of(NamespaceStatus.DATA_MISSING));
  }

  @Test
  void everyWireStatusButOkMaps() {
    for (Status s : Status.values()) {
      if (s == Status.OK) {
        assertThrows(IllegalArgumentException.class, () -> ClientStatus.of(s));
      } else {
        assertNotNull(ClientStatus.of(s), s.name());
      }
    }
    assertEquals(ClientStatus.NO_SPACE, ClientStatus.of(Status.NO_SPACE));
    assertEquals(ClientStatus.FENCED, ClientStatus.of(Status.STALE_GENERATION));
    assertEquals(ClientStatus.DATA_LOST, ClientStatus.of(Status.OBJECT_LOST));
    assertEquals(ClientStatus.DATA_LOST, ClientStatus.of(Status.NOT_FOUND));
    assertEquals(ClientStatus.TARGET_NOT_FOUND, ClientStatus.of(Status.UNKNOWN_TARGET));
    assertEquals(ClientStatus.CONFLICT, ClientStatus.of(Status.CONFLICT));
    assertEquals(ClientStatus.ILLEGAL_STATE, ClientStatus.of(Status.ILLEGAL_STATE));
    assertEquals(ClientStatus.INVALID_ARGUMENT, ClientStatus.of(Status.INVALID_ARGUMENT));
    for (Status s : new Status[] {Status.BUSY, Status.TIMEOUT, Status.SHUTTING_DOWN,
        Status.UNAVAILABLE}) {
      assertEquals(ClientStatus.UNAVAILABLE, ClientStatus.of(s), s.name());
    }
    assertEquals(ClientStatus.IO_ERROR, ClientStatus.of(Status.DRIVE_IO));
    assertEquals(ClientStatus.IO_ERROR, ClientStatus.of(Status.NOT_ENOUGH_DRIVES));
  }

  @Test
  void classifiesAnyFailure() {
    assertEquals(ClientStatus.NO_SPACE, ClientStatus.of(new ClientException(ClientStatus.NO_SPACE,
        "/f", "full")));
    assertEquals(ClientStatus.LEASE_CONFLICT, ClientStatus.of(
        new NamespaceException(NamespaceStatus.LEASE_CONFLICT, "/f", "held")));
    assertEquals(ClientStatus.NO_SPACE, ClientStatus.of(new NodeException(Status.NO_SPACE, "x")));
    assertEquals(ClientStatus.NOT_FOUND, ClientStatus.of(new IOException("wrapped",
        new NamespaceException(NamespaceStatus.NOT_FOUND, "/f", "gone"))));
    assertEquals(ClientStatus.INTERRUPTED, ClientStatus.of(new InterruptedIOException()));
    assertEquals(ClientStatus.INVALID_ARGUMENT, ClientStatus.of(new IllegalArgumentException()));
    assertEquals(ClientStatus.NOT_FOUND, ClientStatus.of(new NoSuchFileException("/local")));
    assertEquals(ClientStatus.IO_ERROR, ClientStatus.of(new IOException("x")));
    assertEquals(ClientStatus.IO_ERROR, ClientStatus.of(new IllegalStateException("x")));
  }

  @Test
  void aRethrownFailureKeepsItsStatusChunkAndTarget() {
    ChunkId chunk = new ChunkId(7, 3);
    ClientException first = ClientException.of(new NodeException(Status.NO_SPACE, "full"), chunk,
        "t-1", "writing chunk 3 of file 7 to target t-1: NO_SPACE: full");
    ClientException again = ClientException.rethrown("/f", "writing /f failed", first);
    assertEquals(ClientStatus.NO_SPACE, again.status());
    assertEquals("/f", again.path());
    assertEquals(chunk, again.chunk().orElseThrow());
    assertEquals("t-1", again.target().orElseThrow());
    assertSame(first, again.getCause());
    assertTrue(again.getMessage().startsWith("NO_SPACE: writing /f failed: NO_SPACE: writing"),
        again.getMessage());
    FencedException fenced = new FencedException(chunk, "t-1", "fenced", new NodeException(
        Status.STALE_GENERATION, "older"));
    assertEquals(ClientStatus.FENCED, ClientException.rethrown("/f", "x", fenced).status());
    assertEquals(ClientStatus.FILE_TOO_LARGE, new FileTooLargeException("/f", "big").status());
  }
}
