package io.parityfs.hadoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.client.ClientException;
import io.parityfs.client.ClientStatus;
import io.parityfs.meta.NamespaceException;
import io.parityfs.meta.NamespaceStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.ClusterStorageCapacityExceededException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.InvalidPathException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;
import org.junit.jupiter.api.Test;

/** The Hadoop exception table: every client status maps; the namespace's types are kept. */
class NamespaceErrorsTest {

  @Test
  void everyClientStatusMaps() {
    for (ClientStatus s : ClientStatus.values()) {
      ClientException e = new ClientException(s, "/p", "why");
      if (s == ClientStatus.INVALID_PATH) {
        assertThrows(InvalidPathException.class, () -> NamespaceErrors.toHadoop(e));
        continue;
      }
      IOException h = NamespaceErrors.toHadoop(e);
      assertTrue(h == e || h.getCause() == e, s + ": the failure is kept: " + h);
      assertTrue(h.getMessage().contains("why") || h.getMessage().contains("/p"),
          s + ": " + h.getMessage());
    }
  }

  @Test
  void noSpaceIsClusterStorageCapacityExceeded() {
    ClientException full = new ClientException(ClientStatus.NO_SPACE, "/f",
        "writing chunk 0 of file 3 to target t-1: NO_SPACE: full");
    IOException h = NamespaceErrors.toHadoop(full);
    assertEquals(ClusterStorageCapacityExceededException.class, h.getClass());
    assertTrue(h.getMessage().contains("t-1"), h.getMessage());
    assertSame(full, h.getCause());
    assertEquals(ClusterStorageCapacityExceededException.class, NamespaceErrors.toHadoop(
        new NamespaceException(NamespaceStatus.NO_SPACE, "/f", "ids used up")).getClass());
  }

  @Test
  void namespaceFailuresKeepTheirTypes() {
    assertEquals(FileNotFoundException.class, NamespaceErrors.toHadoop(
        new NamespaceException(NamespaceStatus.NOT_FOUND, "/p", "x")).getClass());
    assertEquals(FileAlreadyExistsException.class, NamespaceErrors.toHadoop(
        new NamespaceException(NamespaceStatus.LEASE_CONFLICT, "/p", "x")).getClass());
    assertEquals(PathIsNotEmptyDirectoryException.class, NamespaceErrors.toHadoop(
        new NamespaceException(NamespaceStatus.NOT_EMPTY, "/p", "x")).getClass());
    assertEquals(AccessControlException.class, NamespaceErrors.toHadoop(
        new NamespaceException(NamespaceStatus.PERMISSION_DENIED, "/p", "x")).getClass());
    NamespaceException corrupt = new NamespaceException(NamespaceStatus.CORRUPT, "/p", "x");
    IOException h = NamespaceErrors.toHadoop(corrupt);
    assertEquals(IOException.class, h.getClass());
    assertSame(corrupt, h.getCause());
    IOException plain = new IOException("x");
    assertSame(plain, NamespaceErrors.toHadoop(plain));
  }
}
