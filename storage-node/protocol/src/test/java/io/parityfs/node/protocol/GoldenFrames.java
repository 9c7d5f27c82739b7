package io.parityfs.node.protocol;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The messages behind the golden files in src/test/resources/golden, one file per op family. */
final class GoldenFrames {
  static final TargetId T = TargetId.of("00112233-4455-6677-8899-aabbccddeeff");
  static final ChunkId C = new ChunkId(42, 3);
  static final long MS = 1_700_000_000_000L;

  private GoldenFrames() {}

  /** File name to its messages, in file order. DataFrames are fresh: the caller releases them. */
  static Map<String, List<Message>> all() {
    Map<String, List<Message>> files = new LinkedHashMap<>();
    files.put("write.hex", List.of(
        new WriteRequest(1, T, C, WriteMode.CREATE, WriteRequest.SYNC, 0, 10),
        data(1, false, false, "hello"),
        data(1, false, true, "world"),
        new WriteResponse(1, new ChunkStat(10, 1, MS, MS)),
        new WriteRequest(2, T, C, WriteMode.APPEND, 0, -1, -1),
        data(2, false, true, ""),
        new ErrorResponse(2, Opcode.WRITE, Status.CONFLICT, "chunk 42:3 has 10 bytes, not 12"),
        new WriteRequest(3, T, new ChunkId(ChunkId.MAX_FILE_ID, ChunkId.MAX_CHUNK_INDEX),
            WriteMode.OVERWRITE, 0, 4096, 65536),
        new WriteRequest(13, T, C, WriteMode.REPLACE, 0, 0, 5, 7),
        new ErrorResponse(13, Opcode.WRITE, Status.STALE_GENERATION,
            "file 42: generation 7 is older than 8")));
    files.put("read.hex", List.of(
        new ReadRequest(4, T, C, 2, 6),
        data(4, true, false, "llow"),
        data(4, true, true, "or"),
        new ReadRequest(5, T, new ChunkId(42, 4), 0, -1),
        new ErrorResponse(5, Opcode.READ, Status.NOT_FOUND, "chunk 42:4 not found")));
    // The group tag of protection across nodes (docs/across-nodes.md §3): WRITE with a sequence
    // (62-byte header), tagged chunk stats (48 bytes), READ WITH_STAT (45) and its first frame.
    ChunkStat tagged = new ChunkStat(10, 3, MS, MS, 7, 5);
    files.put("tags.hex", List.of(
        new WriteRequest(30, T, C, WriteMode.REPLACE, WriteRequest.SYNC, 0, 10, 7, 5),
        data(30, false, true, "helloworld"),
        new WriteResponse(30, tagged),
        new ReadRequest(31, T, C, 0, -1, ReadRequest.WITH_STAT),
        new DataFrame(31, true, false,
            Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII), tagged),
        data(31, true, true, "world"),
        new StatRequest(32, T, C),
        new StatResponse(32, tagged)));
    files.put("metadata.hex", List.of(
        new StatRequest(7, T, C),
        new StatResponse(7, new ChunkStat(10, 2, MS, MS + 1000)),
        new DeleteRequest(8, T, C),
        new DeleteResponse(8, true),
        new DeleteRequest(14, T, C, 8),
        new DeleteResponse(14, false),
        new ListRequest(9, T, 42, 0, 2),
        new ListResponse(9, List.of(
            new ListEntry(new ChunkId(42, 0), 1 << 20, 1, MS),
            new ListEntry(new ChunkId(42, 1), 12345, 3, MS + 5)), 42L << 24 | 2),
        new ListRequest(10, T, ListRequest.ALL_FILES, 42L << 24 | 2, 10_000),
        new ListResponse(10, List.of(), ListResponse.END),
        new SyncRequest(11, TargetId.ALL),
        new AckResponse(11, Opcode.SYNC),
        new PingRequest(12),
        new AckResponse(12, Opcode.PING)));
    files.put("admin.hex", List.of(
        new NodeInfoRequest(20),
        new AdminResponse(20, Opcode.NODE_INFO, "{\"nodeId\":\"node-1\",\"version\":\"0.1.0\"}"),
        new ArrayStatusRequest(21, TargetId.ALL),
        new AdminResponse(21, Opcode.ARRAY_STATUS, "{\"arrays\":[{\"state\":\"DEGRADED\"}]}"),
        new FailDriveRequest(22, T, 3),
        new ReplaceDriveRequest(23, T, 3, "/srv/parityfs/d7", ReplaceDriveRequest.FORCE),
        new ArrayTaskRequest(24, Opcode.START_REBUILD, T, 3),
        new ArrayTaskRequest(25, Opcode.STOP_REBUILD, T, ArrayTaskRequest.ALL_SLOTS),
        new ArrayTaskRequest(26, Opcode.START_SCRUB, T, ArrayTaskRequest.ALL_SLOTS),
        new ArrayTaskRequest(27, Opcode.STOP_SCRUB, T, ArrayTaskRequest.ALL_SLOTS),
        new ProgressRequest(28, T),
        new AdminResponse(28, Opcode.PROGRESS, "{\"tasks\":[{\"bytesDone\":1,\"bytesTotal\":2}]}"),
        new ErrorResponse(23, Opcode.REPLACE_DRIVE, Status.ILLEGAL_STATE, "slot 3 is not failed"),
        new ErrorResponse(0, Opcode.NONE, Status.UNSUPPORTED_VERSION,
            "protocol version 2, expected 1")));
    return files;
  }

  static DataFrame data(long id, boolean response, boolean end, String text) {
    return new DataFrame(id, response, end,
        Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
  }
}
