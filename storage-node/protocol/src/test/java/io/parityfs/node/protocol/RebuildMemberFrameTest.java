package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** REBUILD_MEMBER and its answer through the frame encoder and decoder, and what is refused. */
class RebuildMemberFrameTest {
  private static final TargetId ONTO = new TargetId(UUID.fromString(
      "7f1c5a2e-0000-4000-8000-000000000001"));
  private static final TargetId PEER = new TargetId(UUID.fromString(
      "7f1c5a2e-0000-4000-8000-000000000002"));

  private static RebuildMemberRequest request(long id) {
    return new RebuildMemberRequest(id, ONTO, new ChunkId(42, 0x100002), 9, 7, 1234, 4, 1, 4,
        1 << 20, 1 << 20, List.of(
            new RebuildSource(0, PEER, "node-a.example", 7000, 8, 7, 1234, 1 << 20),
            new RebuildSource(1, PEER, "10.0.0.2", 7001, 9, 7, 1234, 1 << 20),
            new RebuildSource(2, PEER, "127.0.0.1", 7002, 10, 7, 1234, 700_001),
            RebuildSource.zeros(3, 11)));
  }

  @Test
  void aRequestAndItsAnswerRoundTrip() {
    RebuildMemberRequest r = request(77);
    List<Object> out = Frames.decode(Role.NODE, Frames.encode(r), 7);
    assertEquals(List.of(r), out);
    RebuildMemberResponse a = new RebuildMemberResponse(77,
        new ChunkStat(1 << 20, 3, 1000, 1000, 7, 1234));
    assertEquals(List.of(a), Frames.decode(Role.CLIENT, Frames.encode(a)));
  }

  @Test
  void malformedRequestsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new RebuildMemberRequest(1, ONTO,
        new ChunkId(42, 1), 9, 7, 1234, 4, 1, 4, 10, 10, request(1).sources().subList(0, 3)),
        "K sources, not fewer");
    assertThrows(IllegalArgumentException.class, () -> new RebuildMemberRequest(1, ONTO,
        new ChunkId(42, 1), 9, 10, 1234, 4, 1, 4, 10, 10, request(1).sources()),
        "a tag generation past the fence's");
    assertThrows(IllegalArgumentException.class, () -> new RebuildMemberRequest(1, ONTO,
        new ChunkId(42, 1), 9, 7, 1234, 4, 1, 0, 10, 10, request(1).sources()),
        "the wanted member among the sources");
    assertThrows(IllegalArgumentException.class, () -> new RebuildMemberRequest(1, ONTO,
        new ChunkId(42, 1), 9, 7, 1234, 3, 2, 0, 10, 10, List.of(RebuildSource.zeros(4, 1),
            RebuildSource.zeros(1, 2), RebuildSource.zeros(2, 3))),
        "parity cannot be known zeros");
    // the sources, hosts and all, fit one header
    byte[] good = Frames.encode(request(5));
    assertInstanceOf(RebuildMemberRequest.class, Frames.decode(Role.NODE, good).get(0));
  }
}
