package io.parityfs.node.protocol;

import static io.parityfs.node.protocol.FrameFormat.FLAG_END;
import static io.parityfs.node.protocol.FrameFormat.FLAG_MORE;
import static io.parityfs.node.protocol.FrameFormat.FLAG_RESPONSE;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The opcode-specific part of a frame: flags, header fields and payload of each message type, in
 * both directions. The layouts are listed in docs/protocol.md and in each record's Javadoc.
 */
final class HeaderCodec {
  private HeaderCodec() {}

  // ---------------------------------------------------------------- encoding

  static int flags(Message m) {
    int flags = m.isResponse() ? FLAG_RESPONSE : 0;
    if (m instanceof DataFrame d) {
      flags |= d.isEnd() ? FLAG_END : FLAG_MORE;
    } else if (m instanceof WriteRequest) {
      flags |= FLAG_MORE;
    } else if (m instanceof ErrorResponse) {
      flags |= FLAG_END;
    }
    return flags;
  }

  static int status(Message m) {
    return m instanceof Response r ? r.status().code() : 0;
  }

  /** Writes the header fields of {@code m} to {@code out}. */
  static void writeHeader(Message m, ByteBuf out) {
    if (m instanceof WriteRequest w) {
      writeTarget(out, w.target());
      writeChunk(out, w.chunk());
      out.writeByte(w.mode().code());
      out.writeByte(w.writeFlags());
      out.writeLong(w.offset());
      out.writeLong(w.totalLength());
      out.writeLong(w.generation());
      if (w.sequence() != 0) {
        out.writeLong(w.sequence()); // the 54-byte form stays the tagless one
        if (w.tagGeneration() != w.generation()) {
          out.writeLong(w.tagGeneration()); // the 62-byte form: the tag is the writer's
        }
      }
    } else if (m instanceof ReadRequest r) {
      writeTarget(out, r.target());
      writeChunk(out, r.chunk());
      out.writeLong(r.offset());
      out.writeLong(r.length());
      if (r.flags() != 0) {
        out.writeByte(r.flags()); // the 44-byte form stays the flagless one
      }
    } else if (m instanceof DataFrame d) {
      if (d.stat() != null) {
        writeStat(out, d.stat());
      }
    } else if (m instanceof DeleteRequest d) {
      writeTarget(out, d.target());
      writeChunk(out, d.chunk());
      out.writeLong(d.generation());
    } else if (m instanceof StatRequest s) {
      writeTarget(out, s.target());
      writeChunk(out, s.chunk());
    } else if (m instanceof ListRequest l) {
      writeTarget(out, l.target());
      out.writeLong(l.fileId());
      out.writeLong(l.cursor());
      out.writeInt(l.limit());
    } else if (m instanceof SyncRequest s) {
      writeTarget(out, s.target());
    } else if (m instanceof ArrayStatusRequest a) {
      writeTarget(out, a.target());
    } else if (m instanceof ProgressRequest p) {
      writeTarget(out, p.target());
    } else if (m instanceof FailDriveRequest f) {
      writeTarget(out, f.target());
      out.writeShort(f.slot());
      if (f.flags() != 0) {
        out.writeByte(f.flags()); // the 18-byte form stays the flagless one
      }
    } else if (m instanceof ReplaceDriveRequest r) {
      writeTarget(out, r.target());
      out.writeShort(r.slot());
      out.writeByte(r.flags());
      byte[] path = r.path().getBytes(StandardCharsets.UTF_8);
      out.writeShort(path.length);
      out.writeBytes(path);
    } else if (m instanceof ArrayTaskRequest t) {
      writeTarget(out, t.target());
      out.writeShort(t.slot());
    } else if (m instanceof RebuildMemberRequest r) {
      writeRebuild(out, r);
    } else if (m instanceof WriteResponse w) {
      writeStat(out, w.stat());
    } else if (m instanceof RebuildMemberResponse r) {
      writeStat(out, r.stat());
    } else if (m instanceof StatResponse s) {
      writeStat(out, s.stat());
    } else if (m instanceof DeleteResponse d) {
      out.writeByte(d.existed() ? 1 : 0);
    } else if (m instanceof ListResponse l) {
      out.writeInt(l.entries().size());
      out.writeLong(l.nextCursor());
    }
    // PING, NODE_INFO, DATA, Ack, Admin and Error responses have no header.
  }

  /**
   * The payload of {@code m}, or {@code null} for none. The caller owns the returned reference
   * (for a DataFrame, a new reference to its content).
   */
  static ByteBuf payload(Message m, ByteBufAllocator alloc) {
    if (m instanceof DataFrame d) {
      return d.content().isReadable() ? d.content().retainedSlice() : null;
    } else if (m instanceof ListResponse l) {
      if (l.entries().isEmpty()) {
        return null;
      }
      ByteBuf buf = alloc.ioBuffer(l.entries().size() * ListEntry.WIRE_SIZE);
      for (ListEntry e : l.entries()) {
        buf.writeLong(e.chunk().fileId());
        buf.writeInt(e.chunk().chunkIndex());
        buf.writeLong(e.length());
        buf.writeLong(e.version());
        buf.writeLong(e.modifiedMillis());
      }
      return buf;
    } else if (m instanceof AdminResponse a) {
      return utf8(a.json(), alloc, FrameFormat.MAX_PAYLOAD_LENGTH);
    } else if (m instanceof ErrorResponse e) {
      return utf8(e.message(), alloc, FrameFormat.MAX_ERROR_TEXT);
    }
    return null;
  }

  private static ByteBuf utf8(String s, ByteBufAllocator alloc, int max) {
    if (s.isEmpty()) {
      return null;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > max) {
      throw new IllegalArgumentException("text (" + bytes.length + " bytes) must be <= " + max);
    }
    return alloc.ioBuffer(bytes.length).writeBytes(bytes);
  }

  private static void writeRebuild(ByteBuf out, RebuildMemberRequest r) {
    writeTarget(out, r.target());
    writeChunk(out, r.chunk());
    out.writeLong(r.generation());
    out.writeLong(r.tagGeneration());
    out.writeLong(r.sequence());
    out.writeByte(r.k());
    out.writeByte(r.m());
    out.writeByte(r.member());
    out.writeByte(r.sources().size());
    out.writeLong(r.length());
    out.writeLong(r.groupLength());
    for (RebuildSource s : r.sources()) {
      out.writeByte(s.member());
      writeTarget(out, s.target());
      out.writeInt(s.chunkIndex());
      out.writeLong(s.generation());
      out.writeLong(s.sequence());
      out.writeLong(s.length());
      out.writeShort(s.port());
      byte[] host = s.host().getBytes(StandardCharsets.UTF_8);
      out.writeByte(host.length);
      out.writeBytes(host);
    }
  }

  private static void writeTarget(ByteBuf out, TargetId t) {
    out.writeLong(t.uuid().getMostSignificantBits());
    out.writeLong(t.uuid().getLeastSignificantBits());
  }

  private static void writeChunk(ByteBuf out, ChunkId c) {
    out.writeLong(c.fileId());
    out.writeInt(c.chunkIndex());
  }

  private static void writeStat(ByteBuf out, ChunkStat s) {
    out.writeLong(s.length());
    out.writeLong(s.version());
    out.writeLong(s.createdMillis());
    out.writeLong(s.modifiedMillis());
    if (s.tagged()) {
      out.writeLong(s.generation());
      out.writeLong(s.sequence());
    }
  }

  // ---------------------------------------------------------------- decoding

  /**
   * The message in a frame whose framing, CRCs and direction are already checked.
   *
   * @param header the header bytes (not retained)
   * @param payload the payload bytes (not retained; a DataFrame takes a retained slice)
   */
  static Message decode(
      Opcode op, int flags, long requestId, long status, ByteBuf header, ByteBuf payload)
      throws MalformedFrameException {
    boolean response = (flags & FLAG_RESPONSE) != 0;
    boolean more = (flags & FLAG_MORE) != 0;
    boolean end = (flags & FLAG_END) != 0;
    if (more && end) {
      throw invalid(op + ": flags MORE and END together");
    }
    // An error answer about a DATA frame (PROTOCOL_VIOLATION, CRC_MISMATCH...) is an error
    // response like any other, not data: its payload is the error text.
    if (op == Opcode.DATA && !(response && status != Status.OK.code())) {
      return decodeData(requestId, response, more, end, header, payload);
    }
    if (more != (op == Opcode.WRITE && !response)) {
      throw invalid(op + (more ? ": flag MORE not allowed" : ": flag MORE required"));
    }
    if (end && !response) {
      throw invalid(op + ": flag END not allowed in a request");
    }
    try {
      if (!response) {
        if (status != 0) {
          throw invalid(op + ": a request must carry status 0, not " + status);
        }
        return decodeRequest(op, requestId, header, payload);
      }
      if (status != Status.OK.code()) {
        expect(op, header, 0);
        if (payload.readableBytes() > FrameFormat.MAX_ERROR_TEXT) {
          throw invalid(op + ": error text of " + payload.readableBytes() + " bytes");
        }
        return new ErrorResponse(
            requestId, op, Status.fromCode(status), payload.toString(StandardCharsets.UTF_8));
      }
      return decodeResponse(op, requestId, header, payload);
    } catch (IllegalArgumentException e) {
      // A record refused a combination of fields the per-field checks let through.
      throw invalid(op + ": " + e.getMessage());
    }
  }

  private static DataFrame decodeData(
      long requestId, boolean response, boolean more, boolean end, ByteBuf header, ByteBuf payload)
      throws MalformedFrameException {
    if (!more && !end) {
      throw invalid("DATA: needs flag MORE or END");
    }
    ChunkStat stat = null;
    if (response && header.isReadable()) {
      stat = readStat(Opcode.DATA, header); // the first frame of a READ WITH_STAT answer
    } else {
      expect(Opcode.DATA, header, 0);
    }
    if (payload.readableBytes() > FrameFormat.MAX_DATA_PAYLOAD) {
      throw new MalformedFrameException(
          Status.FRAME_TOO_LARGE, "DATA: payload of " + payload.readableBytes() + " bytes > 1 MiB");
    }
    return new DataFrame(requestId, response, end, payload.retainedSlice(), stat);
  }

  private static Message decodeRequest(Opcode op, long id, ByteBuf h, ByteBuf payload)
      throws MalformedFrameException {
    if (payload.isReadable()) {
      throw invalid(op + ": a request carries no payload");
    }
    switch (op) {
      case PING:
        expect(op, h, 0);
        return new PingRequest(id);
      case NODE_INFO:
        expect(op, h, 0);
        return new NodeInfoRequest(id);
      case WRITE: {
        // 46: a client before fencing, generation 0; 54: no group tag, sequence 0
        boolean fenced = h.readableBytes() >= 54;
        boolean tagged = h.readableBytes() >= 62;
        boolean older = h.readableBytes() == 70;
        if (h.readableBytes() != 46 && h.readableBytes() != 54 && h.readableBytes() != 62
            && !older) {
          throw invalid(op + ": header of " + h.readableBytes() + " bytes, expected 70 (with the"
              + " tag's generation), 62, 54 (without a group sequence) or 46 (without a"
              + " generation)");
        }
        TargetId target = readTarget(h, false);
        ChunkId chunk = readChunk(h);
        int modeCode = h.readUnsignedByte();
        WriteMode mode = WriteMode.fromCode(modeCode);
        if (mode == null) {
          throw invalid("WRITE: unknown mode " + modeCode);
        }
        int writeFlags = h.readUnsignedByte();
        long offset = h.readLong();
        long total = h.readLong();
        long generation = fenced ? h.readLong() : 0;
        if (generation < 0) {
          throw invalid("WRITE: generation " + Long.toUnsignedString(generation) + " >= 2^63");
        }
        long sequence = tagged ? h.readLong() : 0;
        if (sequence < 0) {
          throw invalid("WRITE: sequence " + Long.toUnsignedString(sequence) + " >= 2^63");
        }
        long tagGeneration = older ? h.readLong() : generation;
        if (older && (sequence == 0 || tagGeneration < 0 || tagGeneration >= generation)) {
          throw invalid("WRITE: tag generation " + Long.toUnsignedString(tagGeneration)
              + " with sequence " + sequence + " and generation " + generation + " (must be"
              + " below the generation, with a sequence)");
        }
        return new WriteRequest(id, target, chunk, mode, writeFlags, offset, total, generation,
            sequence, tagGeneration);
      }
      case READ: {
        if (h.readableBytes() != 44 && h.readableBytes() != 45) {
          throw invalid(op + ": header of " + h.readableBytes() + " bytes, expected 44 or 45");
        }
        TargetId target = readTarget(h, false);
        ChunkId chunk = readChunk(h);
        long offset = h.readLong();
        long length = h.readLong();
        int readFlags = h.isReadable() ? h.readUnsignedByte() : 0;
        if ((readFlags & ~ReadRequest.KNOWN_FLAGS) != 0) {
          throw invalid("READ: unknown flags " + readFlags);
        }
        return new ReadRequest(id, target, chunk, offset, length, readFlags);
      }
      case DELETE: {
        boolean fenced = h.readableBytes() == 36; // 28: a client before fencing, generation 0
        if (!fenced && h.readableBytes() != 28) {
          throw invalid(op + ": header of " + h.readableBytes() + " bytes, expected 36 (or 28"
              + " without a generation)");
        }
        TargetId target = readTarget(h, false);
        ChunkId chunk = readChunk(h);
        long generation = fenced ? h.readLong() : 0;
        if (generation < DeleteRequest.ANY) {
          throw invalid("DELETE: generation " + Long.toUnsignedString(generation) + " >= 2^63");
        }
        return new DeleteRequest(id, target, chunk, generation);
      }
      case STAT:
        expect(op, h, 28);
        return new StatRequest(id, readTarget(h, false), readChunk(h));
      case LIST: {
        expect(op, h, 36);
        TargetId target = readTarget(h, false);
        long fileId = h.readLong();
        long cursor = h.readLong();
        long limit = h.readUnsignedInt();
        if (limit < 1 || limit > FrameFormat.MAX_LIST_LIMIT) {
          throw invalid("LIST: limit " + limit + " not in [1, 10000]");
        }
        return new ListRequest(id, target, fileId, cursor, (int) limit);
      }
      case SYNC:
        expect(op, h, 16);
        return new SyncRequest(id, readTarget(h, true));
      case ARRAY_STATUS:
        expect(op, h, 16);
        return new ArrayStatusRequest(id, readTarget(h, true));
      case PROGRESS:
        expect(op, h, 16);
        return new ProgressRequest(id, readTarget(h, true));
      case FAIL_DRIVE: {
        if (h.readableBytes() != 18 && h.readableBytes() != 19) {
          throw invalid("FAIL_DRIVE: header of " + h.readableBytes() + " bytes, need 18 or 19");
        }
        TargetId target = readTarget(h, false);
        int slot = h.readUnsignedShort();
        int flags = h.isReadable() ? h.readUnsignedByte() : 0;
        if ((flags & ~FailDriveRequest.FORCE) != 0) {
          throw invalid("FAIL_DRIVE: unknown flags " + flags);
        }
        return new FailDriveRequest(id, target, slot, flags);
      }
      case REPLACE_DRIVE: {
        if (h.readableBytes() < 21) {
          throw invalid("REPLACE_DRIVE: header of " + h.readableBytes() + " bytes, need >= 21");
        }
        TargetId target = readTarget(h, false);
        int slot = h.readUnsignedShort();
        int flags = h.readUnsignedByte();
        int n = h.readUnsignedShort();
        if (n != h.readableBytes()) {
          throw invalid("REPLACE_DRIVE: path length " + n + " but " + h.readableBytes() + " bytes");
        }
        return new ReplaceDriveRequest(id, target, slot, strictUtf8(op, h), flags);
      }
      case REBUILD_MEMBER:
        return readRebuild(id, h);
      case START_REBUILD:
      case STOP_REBUILD:
      case START_SCRUB:
      case STOP_SCRUB:
        expect(op, h, 18);
        return new ArrayTaskRequest(id, op, readTarget(h, false), h.readUnsignedShort());
      default:
        throw new MalformedFrameException(Status.UNKNOWN_OPCODE, op + " is not a request");
    }
  }

  private static Message decodeResponse(Opcode op, long id, ByteBuf h, ByteBuf payload)
      throws MalformedFrameException {
    if (op.isAdmin()) {
      expect(op, h, 0);
      return new AdminResponse(id, op, payload.toString(StandardCharsets.UTF_8));
    }
    if (op != Opcode.LIST && payload.isReadable()) {
      throw invalid(op + ": this response carries no payload");
    }
    switch (op) {
      case PING:
      case SYNC:
        expect(op, h, 0);
        return new AckResponse(id, op);
      case WRITE:
        return new WriteResponse(id, readStat(op, h));
      case REBUILD_MEMBER:
        return new RebuildMemberResponse(id, readStat(op, h));
      case STAT:
        return new StatResponse(id, readStat(op, h));
      case DELETE: {
        expect(op, h, 1);
        int existed = h.readUnsignedByte();
        if (existed > 1) {
          throw invalid("DELETE: existed must be 0 or 1, not " + existed);
        }
        return new DeleteResponse(id, existed == 1);
      }
      case LIST: {
        expect(op, h, 12);
        long count = h.readUnsignedInt();
        long next = h.readLong();
        if (count > FrameFormat.MAX_LIST_LIMIT
            || payload.readableBytes() != count * ListEntry.WIRE_SIZE) {
          throw invalid("LIST: " + count + " entries but " + payload.readableBytes() + " bytes");
        }
        List<ListEntry> entries = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
          ChunkId chunk = readChunk(payload);
          long length = payload.readLong();
          if (length < 0) {
            throw invalid("LIST: negative length " + length);
          }
          entries.add(new ListEntry(chunk, length, payload.readLong(), payload.readLong()));
        }
        return new ListResponse(id, entries, next);
      }
      default:
        throw invalid(op + " is not answered by a frame of its own opcode");
    }
  }

  private static RebuildMemberRequest readRebuild(long id, ByteBuf h)
      throws MalformedFrameException {
    Opcode op = Opcode.REBUILD_MEMBER;
    if (h.readableBytes() < RebuildMemberRequest.FIXED_WIRE_SIZE) {
      throw invalid(op + ": header of " + h.readableBytes() + " bytes, need >= "
          + RebuildMemberRequest.FIXED_WIRE_SIZE);
    }
    TargetId target = readTarget(h, false);
    ChunkId chunk = readChunk(h);
    long generation = h.readLong();
    long tagGeneration = h.readLong();
    long sequence = h.readLong();
    int k = h.readUnsignedByte();
    int m = h.readUnsignedByte();
    int member = h.readUnsignedByte();
    int count = h.readUnsignedByte();
    long length = h.readLong();
    long groupLength = h.readLong();
    List<RebuildSource> sources = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      if (h.readableBytes() < RebuildSource.FIXED_WIRE_SIZE) {
        throw invalid(op + ": source " + i + " of " + count + " cut short ("
            + h.readableBytes() + " bytes left)");
      }
      int sourceMember = h.readUnsignedByte();
      TargetId sourceTarget = new TargetId(new UUID(h.readLong(), h.readLong()));
      long index = h.readUnsignedInt();
      if (!ChunkId.validChunkIndex(index)) {
        throw invalid(op + ": source chunk index " + index + " outside [0, 2^24)");
      }
      long sourceGeneration = h.readLong();
      long sourceSequence = h.readLong();
      long sourceLength = h.readLong();
      int port = h.readUnsignedShort();
      int hostLength = h.readUnsignedByte();
      if (hostLength > h.readableBytes()) {
        throw invalid(op + ": source " + i + "'s host of " + hostLength + " bytes, "
            + h.readableBytes() + " left");
      }
      String host = strictUtf8(op, h.readSlice(hostLength));
      sources.add(new RebuildSource(sourceMember, sourceTarget, host, port, (int) index,
          sourceGeneration, sourceSequence, sourceLength));
    }
    if (h.isReadable()) {
      throw invalid(op + ": " + h.readableBytes() + " bytes after the " + count + " sources");
    }
    return new RebuildMemberRequest(id, target, chunk, generation, tagGeneration, sequence, k, m,
        member, length, groupLength, sources);
  }

  private static MalformedFrameException invalid(String message) {
    return new MalformedFrameException(Status.INVALID_ARGUMENT, message);
  }

  private static void expect(Opcode op, ByteBuf h, int length) throws MalformedFrameException {
    if (h.readableBytes() != length) {
      throw invalid(op + ": header of " + h.readableBytes() + " bytes, expected " + length);
    }
  }

  private static TargetId readTarget(ByteBuf h, boolean allowAll) throws MalformedFrameException {
    TargetId t = new TargetId(new UUID(h.readLong(), h.readLong()));
    if (t.isAll() && !allowAll) {
      throw invalid("target must name one array");
    }
    return t;
  }

  private static ChunkId readChunk(ByteBuf h) throws MalformedFrameException {
    long fileId = h.readLong();
    long index = h.readUnsignedInt();
    if (!ChunkId.validFileId(fileId) || !ChunkId.validChunkIndex(index)) {
      throw invalid("chunk id " + Long.toUnsignedString(fileId) + ":" + index
          + " outside [0, 2^40) x [0, 2^24)");
    }
    return new ChunkId(fileId, (int) index);
  }

  /** A chunk stat, the whole of {@code h}: 32 bytes, or 48 with a group tag. */
  private static ChunkStat readStat(Opcode op, ByteBuf h) throws MalformedFrameException {
    boolean tagged = h.readableBytes() == ChunkStat.TAGGED_WIRE_SIZE;
    if (!tagged) {
      expect(op, h, ChunkStat.WIRE_SIZE);
    }
    long length = h.readLong();
    if (length < 0) {
      throw invalid("negative chunk length " + length);
    }
    long version = h.readLong();
    long created = h.readLong();
    long modified = h.readLong();
    long generation = tagged ? h.readLong() : 0;
    long sequence = tagged ? h.readLong() : 0;
    if (tagged && (generation < 0 || sequence <= 0)) {
      throw invalid(op + ": impossible group tag (" + generation + ", " + sequence + ")");
    }
    return new ChunkStat(length, version, created, modified, generation, sequence);
  }

  private static String strictUtf8(Opcode op, ByteBuf h) throws MalformedFrameException {
    byte[] bytes = new byte[h.readableBytes()];
    h.readBytes(bytes);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw invalid(op + ": path is not valid UTF-8");
    }
  }
}
