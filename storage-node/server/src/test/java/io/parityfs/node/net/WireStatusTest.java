package io.parityfs.node.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parityfs.node.chunk.ChunkStoreException;
import io.parityfs.node.protocol.Status;
import io.parityfs.raid.array.format.ArrayError;
import io.parityfs.raid.array.format.ArrayException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Every kind of failure on the node gets a wire status, array errors by the one table. */
class WireStatusTest {

  @Test
  void mapsEveryKindOfFailure() {
    assertEquals(Status.ALREADY_EXISTS,
        WireStatus.of(new ChunkStoreException(Status.ALREADY_EXISTS, "chunk 1:2 exists")));
    assertEquals(Status.INVALID_ARGUMENT, WireStatus.of(new IllegalArgumentException("x")));
    assertEquals(Status.ILLEGAL_STATE, WireStatus.of(new IllegalStateException("x")));
    assertEquals(Status.DRIVE_IO, WireStatus.of(new IOException("x")));
    assertEquals(Status.INTERNAL, WireStatus.of(new NullPointerException()));
    assertEquals(Status.NO_SPACE,
        WireStatus.of(new ArrayException(ArrayError.NO_SPACE, null, "full")));
    assertEquals(Status.OBJECT_LOST,
        WireStatus.of(new ArrayException(ArrayError.OBJECT_LOST, null, "lost")));
    assertEquals(Status.NOT_ENOUGH_DRIVES,
        WireStatus.of(new ArrayException(ArrayError.NOT_ENOUGH_DRIVES, null, "2 of 6")));
  }

  @Test
  void anArrayErrorHasTheSameStatusOnEveryPath() {
    for (ArrayError e : ArrayError.values()) {
      assertEquals(ChunkStoreException.statusOf(e),
          WireStatus.of(new ArrayException(e, null, "x")), e.name());
    }
  }
}
