package io.parityfs.client.across;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.meta.Across;
import io.parityfs.raid.codec.CodecGeometry;
import io.parityfs.raid.codec.cpu.CpuParityCodec;
import io.parityfs.raid.codec.select.CodecBackend;
import io.parityfs.raid.codec.select.ParityCodecFactory;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The parity of an ec:K+M chunk group over chunks of unequal length, and its restores. */
class GroupCodecTest {
  private static ByteBuffer random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return ByteBuffer.wrap(b);
  }

  private static GroupCodec codec(Across a) {
    return new GroupCodec(a, CpuParityCodec.create(GroupCodec.geometry(a)));
  }

  /** Every member, and every pair, restored from the others equals what was encoded. */
  @Test
  void anyMMembersAreRestoredFromTheOthers() {
    Across a = Across.ec(4, 2);
    GroupCodec g = codec(a);
    int len = 70_001;
    ByteBuffer[] data = new ByteBuffer[4];
    for (int j = 0; j < 4; j++) {
      data[j] = random(len, j);
    }
    ByteBuffer[] parity = g.encode(data);
    assertEquals(2, parity.length);
    ByteBuffer[] all = {data[0], data[1], data[2], data[3], parity[0], parity[1]};
    for (int lost = 0; lost < 6; lost++) {
      for (int also = -1; also < 6; also++) {
        if (also == lost) {
          continue;
        }
        ByteBuffer[] members = all.clone();
        members[lost] = null;
        if (also >= 0) {
          members[also] = null;
        }
        assertEquals(all[lost], g.reconstruct(members, lost, len), "member " + lost
            + (also >= 0 ? " with " + also + " also missing" : ""));
      }
    }
    assertTrue(data[0].position() == 0 && parity[0].remaining() == len, "nothing consumed");
  }

  /**
   * The file's last group: a short chunk and one past the end. The parity is as long as the
   * longest data chunk; a short or absent chunk is restored to the length the file gives it.
   */
  @Test
  void aPartialGroupIsPaddedWithZerosAndCutBackOnRestore() {
    Across a = Across.ec(3, 1);
    GroupCodec g = codec(a);
    ByteBuffer full = random(8192, 1);
    ByteBuffer shorter = random(1000, 2);
    ByteBuffer[] parity = g.encode(new ByteBuffer[] {full, shorter, null});
    assertEquals(8192, parity[0].remaining());
    ByteBuffer past = ByteBuffer.allocate(0); // past the end: known to be empty
    assertEquals(shorter, g.reconstruct(new ByteBuffer[] {full, null, past, parity[0]}, 1,
        1000));
    assertEquals(full, g.reconstruct(new ByteBuffer[] {null, shorter, past, parity[0]}, 0,
        8192));
    assertEquals(0, g.reconstruct(new ByteBuffer[] {full, shorter, null, parity[0]}, 2, 0)
        .remaining());
    assertEquals(parity[0], g.reconstruct(new ByteBuffer[] {full, shorter, past, null}, 3,
        8192));
  }

  @Test
  void theFactorysCodecComputesTheSameParity() {
    Across a = Across.ec(2, 1);
    ByteBuffer[] data = {random(4096, 3), random(4096, 4)};
    ParityCodecFactory f = ParityCodecFactory.builder().backend(CodecBackend.CPU).build();
    try {
      GroupCodec viaFactory = new GroupCodec(a, f.codec(GroupCodec.geometry(a)));
      assertEquals(codec(a).encode(data)[0], viaFactory.encode(data)[0]);
    } finally {
      f.close();
    }
  }

  @Test
  void refusesWhatItCannotDo() {
    Across a = Across.ec(2, 1);
    GroupCodec g = codec(a);
    ByteBuffer d = random(100, 5);
    ByteBuffer[] parity = g.encode(new ByteBuffer[] {d, d});
    IllegalArgumentException few = assertThrows(IllegalArgumentException.class,
        () -> g.reconstruct(new ByteBuffer[] {null, null, parity[0]}, 0, 100));
    assertTrue(few.getMessage().contains("needs 2 others; 1 present"), few.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> g.reconstruct(new ByteBuffer[] {null, d, parity[0]}, 0, 101));
    assertThrows(IllegalArgumentException.class, () -> g.encode(new ByteBuffer[] {d}));
    assertThrows(IllegalArgumentException.class,
        () -> new GroupCodec(Across.mirror(2), CpuParityCodec.create(GroupCodec.geometry(a))));
    IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
        () -> new GroupCodec(a, CpuParityCodec.create(CodecGeometry.raid6(2))));
    assertTrue(wrong.getMessage().contains("does not compute ec:2+1"), wrong.getMessage());
  }
}
