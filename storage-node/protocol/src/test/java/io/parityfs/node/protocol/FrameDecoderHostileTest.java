package io.parityfs.node.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Malformed, truncated, oversized and hostile frames: each becomes the documented FrameError. */
class FrameDecoderHostileTest {
  private static final byte[] STAT_HEADER = RawFrame.targetAndChunk(0, 42, 3).array();

  private static FrameError onlyError(Role role, byte[] bytes) {
    List<Object> out = Frames.decode(role, bytes);
    try {
      assertEquals(1, out.size(), "outputs: " + out);
      return assertInstanceOf(FrameError.class, out.get(0));
    } finally {
      Frames.releaseAll(out);
    }
  }

  private static void assertError(FrameError e, Status status, boolean fatal, long requestId) {
    assertEquals(status, e.status(), e.message());
    assertEquals(fatal, e.fatal(), e.message());
    assertEquals(requestId, e.requestId());
  }

  @Test
  void badMagicIsFatalOnTheFirstBytes() {
    // An HTTP client: rejected after 4 bytes, without waiting for a whole fixed part.
    FrameError e = onlyError(Role.NODE, "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
    assertError(e, Status.BAD_FRAME, true, 0);
    assertError(onlyError(Role.NODE, new byte[] {'P', 'F', 'X'}), Status.BAD_FRAME, true, 0);
  }

  @Test
  void otherVersionIsFatal() {
    RawFrame f = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    f.version = 2;
    FrameError e = onlyError(Role.NODE, Arrays.copyOf(f.bytes(), 5));
    assertError(e, Status.UNSUPPORTED_VERSION, true, 0);
    assertEquals(new ErrorResponse(0, Opcode.NONE, Status.UNSUPPORTED_VERSION, e.message()),
        e.toResponse());
  }

  @Test
  void oversizedLengthsAreRejectedBeforeTheirBytesArrive() {
    for (long[] lengths : new long[][] {
        {FrameFormat.MAX_HEADER_LENGTH + 1L, 0},
        {0, FrameFormat.MAX_PAYLOAD_LENGTH + 1L},
        {0xFFFFFFFFL, 0xFFFFFFFFL}}) {
      RawFrame f = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[0]);
      f.declaredHeaderLength = lengths[0];
      f.declaredPayloadLength = lengths[1];
      assertError(onlyError(Role.NODE, f.fixedPart()), Status.FRAME_TOO_LARGE, true, 0);
    }
  }

  @Test
  void nothingIsDecodedAfterAFatalErrorAndInputIsDiscarded() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Role.NODE));
    ch.writeInbound(Frames.wrap("junk".getBytes(StandardCharsets.US_ASCII)));
    FrameError e = ch.readInbound();
    assertTrue(e.fatal());
    byte[] good = RawFrame.of(Opcode.STAT, 0, STAT_HEADER).bytes();
    ByteBuf buf = ch.alloc().directBuffer().writeBytes(good);
    ch.writeInbound(buf);
    assertEquals(0, buf.refCnt(), "input after a fatal error is consumed and released");
    assertNull(ch.readInbound());
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void headerCrcMismatchIsFatal() {
    RawFrame f = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    f.headerCrc = 0x12345678;
    assertError(onlyError(Role.NODE, f.bytes()), Status.BAD_FRAME, true, 0);
  }

  @Test
  void payloadCrcMismatchAnswersThatRequestAndTheConnectionGoesOn() {
    RawFrame bad = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[0]);
    bad.requestId = 5;
    bad.payload = "some data".getBytes(StandardCharsets.US_ASCII);
    bad.payloadCrc = 7;
    RawFrame next = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    next.requestId = 6;
    byte[] both = concat(bad.bytes(), next.bytes());
    List<Object> out = Frames.decode(Role.NODE, both);
    try {
      assertEquals(2, out.size());
      assertError((FrameError) out.get(0), Status.CRC_MISMATCH, false, 5);
      assertEquals(new StatRequest(6, GoldenFrames.T, GoldenFrames.C), out.get(1));
    } finally {
      Frames.releaseAll(out);
    }
  }

  @Test
  void aNodeDecoderThatHandsTheDataCheckOnPassesTheSendersCrcWithTheBytes() {
    byte[] data = "some data".getBytes(StandardCharsets.US_ASCII);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(data);
    RawFrame bad = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[0]);
    bad.requestId = 5;
    bad.payload = data;
    bad.payloadCrc = 7; // damaged in flight: the decoder does not look, the writer will
    RawFrame good = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[0]);
    good.requestId = 6;
    good.payload = data;
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Role.NODE, true));
    ch.writeInbound(Frames.wrap(concat(bad.bytes(), good.bytes())));
    DataFrame first = ch.readInbound();
    DataFrame second = ch.readInbound();
    try {
      assertFalse(first.crcChecked());
      assertEquals(7, first.payloadCrc());
      assertFalse(second.crcChecked());
      assertEquals((int) crc.getValue(), second.payloadCrc());
      assertEquals(first.payloadCrc(), first.retainedDuplicate().payloadCrc(),
          "a view of the frame keeps the CRC it still owes");
      first.release();
    } finally {
      first.release();
      second.release();
    }
    assertFalse(ch.finishAndReleaseAll());
    // Everything else is checked as before: a DATA answer on a client, a DATA request on a node
    // decoder that checks.
    List<Object> out = Frames.decode(Role.NODE, bad.bytes());
    try {
      assertError((FrameError) out.get(0), Status.CRC_MISMATCH, false, 5);
    } finally {
      Frames.releaseAll(out);
    }
    DataFrame checked = new DataFrame(1, false, true, Unpooled.wrappedBuffer(data));
    try {
      assertTrue(checked.crcChecked());
      assertThrows(IllegalStateException.class, checked::payloadCrc);
    } finally {
      checked.release();
    }
  }

  @Test
  void unknownOpcodeAnswersThatRequest() {
    RawFrame f = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    f.opcode = 0x7F;
    FrameError e = onlyError(Role.NODE, f.bytes());
    assertError(e, Status.UNKNOWN_OPCODE, false, 99);
    assertEquals(Opcode.NONE, e.opcode());
    f.opcode = 0; // NONE is not a request
    assertError(onlyError(Role.NODE, f.bytes()), Status.UNKNOWN_OPCODE, false, 99);
  }

  @Test
  void chunkIdsOutsideTheStoreAreInvalid() {
    long[][] bad = {{1L << 40, 0}, {-1, 0}, {Long.MIN_VALUE, 0}, {0, 1 << 24}, {0, -1}};
    for (long[] id : bad) {
      for (Opcode op : new Opcode[] {Opcode.STAT, Opcode.DELETE}) {
        byte[] h = RawFrame.targetAndChunk(0, id[0], (int) id[1]).array();
        FrameError e = onlyError(Role.NODE, RawFrame.of(op, 0, h).bytes());
        assertError(e, Status.INVALID_ARGUMENT, false, 99);
        assertTrue(e.message().contains("outside"), e.message());
      }
      ByteBuffer read = RawFrame.targetAndChunk(16, id[0], (int) id[1]);
      read.putLong(0).putLong(10);
      assertError(onlyError(Role.NODE, RawFrame.of(Opcode.READ, 0, read.array()).bytes()),
          Status.INVALID_ARGUMENT, false, 99);
    }
    // The largest valid id passes.
    byte[] h = RawFrame.targetAndChunk(0, ChunkId.MAX_FILE_ID, ChunkId.MAX_CHUNK_INDEX).array();
    List<Object> out = Frames.decode(Role.NODE, RawFrame.of(Opcode.STAT, 0, h).bytes());
    assertEquals(List.of(new StatRequest(99, GoldenFrames.T,
        new ChunkId(ChunkId.MAX_FILE_ID, ChunkId.MAX_CHUNK_INDEX))), out);
  }

  @Test
  void badFieldsAreInvalidArguments() {
    ByteBuffer write = RawFrame.targetAndChunk(18, 1, 1);
    write.put((byte) 9).put((byte) 0).putLong(0).putLong(-1); // mode 9
    assertInvalid(RawFrame.of(Opcode.WRITE, FrameFormat.FLAG_MORE, write.array()));
    write.put(28, (byte) WriteMode.CREATE.code()).putLong(30, 5); // CREATE at offset 5
    assertInvalid(RawFrame.of(Opcode.WRITE, FrameFormat.FLAG_MORE, write.array()));
    write.putLong(30, 0);
    assertInvalid(RawFrame.of(Opcode.WRITE, 0, write.array())); // WRITE without MORE
    assertInvalid(RawFrame.of(Opcode.STAT, 0, Arrays.copyOf(STAT_HEADER, 27))); // short header
    assertInvalid(RawFrame.of(Opcode.STAT, 0x80, STAT_HEADER)); // unknown flag bit
    assertInvalid(RawFrame.of(Opcode.STAT, FrameFormat.FLAG_MORE, STAT_HEADER));
    RawFrame withStatus = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    withStatus.status = 3;
    assertInvalid(withStatus);
    RawFrame withPayload = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    withPayload.payload = new byte[] {1};
    assertInvalid(withPayload);
    byte[] allTarget = STAT_HEADER.clone();
    Arrays.fill(allTarget, 0, 16, (byte) 0);
    assertInvalid(RawFrame.of(Opcode.STAT, 0, allTarget)); // nil target where one is needed
    ByteBuffer list = ByteBuffer.allocate(36);
    list.putLong(1).putLong(2).putLong(-1).putLong(0).putInt(10_001);
    assertInvalid(RawFrame.of(Opcode.LIST, 0, list.array()));
    ByteBuffer replace = ByteBuffer.allocate(23);
    replace.putLong(1).putLong(2).putShort((short) 1).put((byte) 0).putShort((short) 2)
        .put((byte) 0xC3).put((byte) 0x28); // invalid UTF-8
    assertInvalid(RawFrame.of(Opcode.REPLACE_DRIVE, 0, replace.array()));
    replace.putShort(19, (short) 3); // path length beyond the header
    assertInvalid(RawFrame.of(Opcode.REPLACE_DRIVE, 0, replace.array()));
    RawFrame data = RawFrame.of(Opcode.DATA, 0, new byte[0]); // neither MORE nor END
    assertInvalid(data);
  }

  @Test
  void badGroupTagsAndReadFlagsAreInvalidArguments() {
    ByteBuffer write = RawFrame.targetAndChunk(34, 1, 1); // the 62-byte form, with a sequence
    write.put((byte) WriteMode.REPLACE.code()).put((byte) 0).putLong(0).putLong(-1).putLong(7)
        .putLong(-1); // sequence >= 2^63
    assertInvalid(RawFrame.of(Opcode.WRITE, FrameFormat.FLAG_MORE, write.array()));
    assertInvalid(RawFrame.of(Opcode.WRITE, FrameFormat.FLAG_MORE,
        Arrays.copyOf(write.array(), 58))); // neither 46, 54 nor 62 bytes
    ByteBuffer read = RawFrame.targetAndChunk(17, 1, 1);
    read.putLong(0).putLong(-1).put((byte) 2); // an unknown READ flag
    assertInvalid(RawFrame.of(Opcode.READ, 0, read.array()));
    RawFrame dataWithHeader = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[32]);
    assertInvalid(dataWithHeader); // only a READ answer's frame carries a stat
    ByteBuffer stat = ByteBuffer.allocate(ChunkStat.TAGGED_WIRE_SIZE);
    stat.putLong(10).putLong(1).putLong(0).putLong(0).putLong(7).putLong(0); // tagged, sequence 0
    RawFrame answer = RawFrame.of(Opcode.STAT, FrameFormat.FLAG_RESPONSE, stat.array());
    FrameError e = onlyError(Role.CLIENT, answer.bytes());
    assertError(e, Status.INVALID_ARGUMENT, false, answer.requestId);
    answer = RawFrame.of(Opcode.STAT, FrameFormat.FLAG_RESPONSE, Arrays.copyOf(stat.array(), 40));
    assertError(onlyError(Role.CLIENT, answer.bytes()), Status.INVALID_ARGUMENT, false,
        answer.requestId);
  }

  @Test
  void dataFramesOverOneMebibyteAreRefused() {
    RawFrame f = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[0]);
    f.payload = new byte[FrameFormat.MAX_DATA_PAYLOAD + 1];
    assertError(onlyError(Role.NODE, f.bytes()), Status.FRAME_TOO_LARGE, false, 99);
  }

  @Test
  void framesInTheWrongDirectionAreFatal() {
    RawFrame request = RawFrame.of(Opcode.STAT, 0, STAT_HEADER);
    assertError(onlyError(Role.CLIENT, request.bytes()), Status.BAD_FRAME, true, 0);
    RawFrame response = RawFrame.of(Opcode.PING, FrameFormat.FLAG_RESPONSE, new byte[0]);
    assertError(onlyError(Role.NODE, response.bytes()), Status.BAD_FRAME, true, 0);
  }

  @Test
  void truncatedFramesYieldNothingAndLeakNothing() {
    RawFrame data = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_END, new byte[0]);
    data.payload = new byte[1000];
    byte[] dataBytes = data.bytes();
    for (int cut = 0; cut < dataBytes.length; cut += 37) {
      List<Object> out = Frames.decode(Role.NODE, Arrays.copyOf(dataBytes, cut), 13);
      assertEquals(List.of(), out, "cut at " + cut);
    }
  }

  @Test
  void responseWithErrorStatusDecodesAsErrorResponse() {
    RawFrame f = RawFrame.of(Opcode.STAT, FrameFormat.FLAG_RESPONSE | FrameFormat.FLAG_END,
        new byte[0]);
    f.status = Status.NOT_FOUND.code();
    f.payload = "gone".getBytes(StandardCharsets.UTF_8);
    List<Object> out = Frames.decode(Role.CLIENT, f.bytes());
    assertEquals(List.of(new ErrorResponse(99, Opcode.STAT, Status.NOT_FOUND, "gone")), out);
    f.status = 60_000; // unknown to this release
    out = Frames.decode(Role.CLIENT, f.bytes());
    assertEquals(Status.INTERNAL, ((ErrorResponse) out.get(0)).status());
  }

  private static void assertInvalid(RawFrame f) {
    FrameError e = onlyError(Role.NODE, f.bytes());
    assertError(e, Status.INVALID_ARGUMENT, false, f.requestId);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Test
  void anErrorResponseAboutADataFrameIsAnErrorNotData() {
    RawFrame f = RawFrame.of(Opcode.DATA, FrameFormat.FLAG_RESPONSE | FrameFormat.FLAG_END,
        new byte[0]);
    f.requestId = 5;
    f.status = Status.PROTOCOL_VIOLATION.code();
    f.payload = "no open WRITE".getBytes(StandardCharsets.UTF_8);
    List<Object> out = Frames.decode(Role.CLIENT, f.bytes());
    try {
      assertEquals(List.of(new ErrorResponse(5, Opcode.DATA, Status.PROTOCOL_VIOLATION,
          "no open WRITE")), out);
    } finally {
      Frames.releaseAll(out);
    }
    // and the encoder's error response for a DATA frame decodes back to itself
    ErrorResponse e = new ErrorResponse(6, Opcode.DATA, Status.CRC_MISMATCH, "bad CRC");
    List<Object> parts = new java.util.ArrayList<>();
    FrameEncoder.encode(e, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, parts);
    io.netty.buffer.ByteBuf all = io.netty.buffer.Unpooled.wrappedBuffer(
        parts.toArray(new io.netty.buffer.ByteBuf[0]));
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    List<Object> back = Frames.decode(Role.CLIENT, bytes);
    try {
      assertEquals(List.of(e), back);
    } finally {
      Frames.releaseAll(back);
    }
  }

  /**
   * Audit N1: a WRITE whose tag carries an older generation than the writer's is the 70-byte
   * header (the tag's generation after the sequence) and decodes back to itself; the 62-byte
   * form stays the one with the writer's own generation; a 70-byte header whose tag generation
   * is not below the writer generation, or has no sequence, is refused.
   */
  @Test
  void aWriteWithAnOlderTagGenerationRoundTripsAndBadOnesAreRefused() {
    TargetId t = GoldenFrames.T;
    WriteRequest older = new WriteRequest(3, t, new ChunkId(7, 1), WriteMode.REPLACE, 0, 0, 5,
        4, 9, 2);
    byte[] bytes = Frames.encode(older);
    List<Object> got = Frames.decode(Role.NODE, bytes);
    assertEquals(List.of(older), got);
    WriteRequest own = new WriteRequest(3, t, new ChunkId(7, 1), WriteMode.REPLACE, 0, 0, 5, 4,
        9);
    assertEquals(own.generation(), own.tagGeneration());
    assertEquals(bytes.length - 8, Frames.encode(own).length, "62 bytes: no tag generation");
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new WriteRequest(3, t, new ChunkId(7, 1), WriteMode.REPLACE, 0, 0, 5, 4, 9, 5));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new WriteRequest(3, t, new ChunkId(7, 1), WriteMode.REPLACE, 0, 0, 5, 4, 0, 2));
    // the same 70 header bytes with the tag generation raised to the writer's (4): refused
    byte[] header = Arrays.copyOfRange(bytes, FrameFormat.FIXED_LENGTH, bytes.length);
    assertEquals(70, header.length);
    header[69] = 4;
    RawFrame bad = RawFrame.of(Opcode.WRITE, FrameFormat.FLAG_MORE, header);
    FrameError e = onlyError(Role.NODE, bad.bytes());
    assertTrue(e.toString().contains("tag generation"), e.toString());
  }
}
