package io.parityfs.node.protocol.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parityfs.node.protocol.ArrayTaskRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The admin reply documents: their exact JSON, and what decoding refuses. */
class AdminCodecTest {
  private static final String T = "8d0e1a2b-0000-4000-8000-000000000001";
  private static final ArrayTask REBUILD = new ArrayTask(T, ArrayTask.REBUILD, 2, "RUNNING",
      1048576, 6291456, 5.2e7, 0.1, 4, 23, 0, 0.02);
  private static final ArrayTask SCRUB = new ArrayTask(T, ArrayTask.SCRUB,
      ArrayTaskRequest.ALL_SLOTS, "DONE", 1572864, 1572864, 0.0, null, 1, 1, 0, 0.5);
  private static final TargetStatus STATUS = new TargetStatus(T, "t0", "DEGRADED", "raid6:4+2",
      65536, 67108864, 15360000000L, 1024, "cpu-vector",
      List.of(new DriveSlot(0, "ONLINE", "/d/0"), new DriveSlot(1, "FAILED", "")),
      List.of(REBUILD, SCRUB));

  private static final String TASKS_JSON = "[{\"target\":\"" + T + "\",\"kind\":\"rebuild\","
      + "\"slot\":2,\"state\":\"RUNNING\",\"bytesDone\":1048576,\"bytesTotal\":6291456,"
      + "\"bytesPerSecond\":5.2E7,\"etaSeconds\":0.1,\"objectsDone\":4,\"objectsTotal\":23,"
      + "\"objectsLost\":0,\"elapsedSeconds\":0.02},{\"target\":\"" + T + "\",\"kind\":"
      + "\"scrub\",\"slot\":65535,\"state\":\"DONE\",\"bytesDone\":1572864,\"bytesTotal\":"
      + "1572864,\"bytesPerSecond\":0.0,\"etaSeconds\":null,\"objectsDone\":1,"
      + "\"objectsTotal\":1,\"objectsLost\":0,\"elapsedSeconds\":0.5}]";
  private static final String STATUS_FIELDS = "\"id\":\"" + T + "\",\"name\":\"t0\",\"state\":"
      + "\"DEGRADED\",\"protection\":\"raid6:4+2\",\"cellSize\":65536,\"maxChunkSize\":67108864,"
      + "\"capacityBytes\":15360000000,\"freeBytes\":1024,\"codec\":\"cpu-vector\",\"drives\":"
      + "[{\"slot\":0,\"state\":\"ONLINE\",\"path\":\"/d/0\"},{\"slot\":1,\"state\":\"FAILED\","
      + "\"path\":\"\"}],\"tasks\":" + TASKS_JSON;

  @Test
  void everyDocumentHasItsGoldenJsonAndReadsBack() throws Exception {
    golden(new NodeInfo("n1", "dev", List.of(new TargetSummary(T, "t0", "raid6:4+2",
        "OPTIMAL"))), "{\"schema\":1,\"nodeId\":\"n1\",\"version\":\"dev\",\"targets\":[{\"id\":\""
        + T + "\",\"name\":\"t0\",\"protection\":\"raid6:4+2\",\"state\":\"OPTIMAL\"}]}");
    golden(new ArrayStatus("n1", List.of(STATUS)),
        "{\"schema\":1,\"nodeId\":\"n1\",\"targets\":[{" + STATUS_FIELDS + "}]}");
    golden(STATUS, "{\"schema\":1," + STATUS_FIELDS + "}");
    golden(new Progress("n1", List.of(REBUILD, SCRUB)),
        "{\"schema\":1,\"nodeId\":\"n1\",\"tasks\":" + TASKS_JSON + "}");
    golden(new TaskReply(T, List.of()), "{\"schema\":1,\"target\":\"" + T + "\",\"tasks\":[]}");
  }

  private static void golden(Object document, String json) throws Exception {
    assertEquals(json, AdminCodec.encode(document));
    assertEquals(document, AdminCodec.decode(json, document.getClass()));
  }

  @Test
  void anotherSchemaOrNoneIsRefusedNamingBoth() {
    AdminPayloadException e = refused("{\"schema\":2,\"target\":\"x\",\"tasks\":[]}");
    assertTrue(e.getMessage().contains("TaskReply of schema 2; this code reads schema 1 only")
        && e.getMessage().contains("newer"), e.getMessage());
    e = refused("{\"target\":\"x\",\"tasks\":[]}");
    assertTrue(e.getMessage().contains("TaskReply without a schema number"), e.getMessage());
    for (String schema : List.of("\"1\"", "1.5", "null", "true", "99999999999", "[1]")) {
      e = refused("{\"schema\":" + schema + ",\"target\":\"x\",\"tasks\":[]}");
      assertTrue(e.getMessage().contains("without a schema number"), schema + ": " + e);
    }
    e = refused("{\"schema\":0,\"target\":\"x\",\"tasks\":[]}");
    assertTrue(e.getMessage().contains("of schema 0") && e.getMessage().contains("other"),
        e.getMessage());
  }

  /**
   * Issue 39: a finished scrub's task carries its result; a node before that field writes none,
   * and its document still reads (result null), as does one with the result to older code.
   */
  @Test
  void aFinishedScrubCarriesItsResultAndOlderDocumentsStillRead() throws Exception {
    ScrubResult result = new ScrubResult("2026-12-06T22:40:01.250Z", "2026-12-06T22:40:03.001Z",
        false, 23, 92, 552, 4, 0, 0, 1, 0, 0, 1, List.of("0123456789abcdef"));
    ArrayTask done = new ArrayTask(T, ArrayTask.SCRUB, ArrayTaskRequest.ALL_SLOTS, "DONE", 10,
        10, 0.0, null, 23, 23, 0, 1.75, result);
    String json = AdminCodec.encode(new TaskReply(T, List.of(done)));
    assertEquals("{\"schema\":1,\"target\":\"" + T + "\",\"tasks\":[{\"target\":\"" + T
        + "\",\"kind\":\"scrub\",\"slot\":65535,\"state\":\"DONE\",\"bytesDone\":10,"
        + "\"bytesTotal\":10,\"bytesPerSecond\":0.0,\"etaSeconds\":null,\"objectsDone\":23,"
        + "\"objectsTotal\":23,\"objectsLost\":0,\"elapsedSeconds\":1.75,\"result\":{"
        + "\"started\":\"2026-12-06T22:40:01.250Z\",\"ended\":\"2026-12-06T22:40:03.001Z\","
        + "\"cancelled\":false,\"objectsChecked\":23,\"stripesChecked\":92,"
        + "\"cellsChecked\":552,\"crcErrors\":4,\"parityMismatches\":0,\"missingShards\":0,"
        + "\"repaired\":1,\"unavailableShards\":0,\"driveErrors\":0,"
        + "\"unrecoverableObjects\":1,\"unrecoverableIds\":[\"0123456789abcdef\"]}}]}", json);
    ArrayTask back = decode(json).tasks().get(0);
    assertEquals(done, back);
    assertTrue(back.lostObjects());
    assertEquals("checked 23 objects, repaired 1, unrecoverable 1 (objects: 0123456789abcdef)",
        back.result().summary());
    ScrubResult stopped = new ScrubResult("a", "b", true, 7, 7, 42, 0, 0, 0, 0, 0, 0, 101,
        java.util.Collections.nCopies(ScrubResult.MAX_IDS, "0000000000000001"));
    assertTrue(stopped.summary().startsWith("checked 7 objects (cancelled), repaired 0,"
        + " unrecoverable 101 (objects: 0000000000000001, "), stopped.summary());
    assertTrue(stopped.summary().endsWith(", …)"), stopped.summary());
    // a node before the counts and the result: they read as 0 and null
    String older = json.substring(0, json.indexOf(",\"objectsDone\"")) + "}]}";
    ArrayTask old = decode(older).tasks().get(0);
    assertEquals(null, old.result(), older);
    assertTrue(!old.lostObjects());
    assertEquals(new ArrayTask(T, ArrayTask.SCRUB, ArrayTaskRequest.ALL_SLOTS, "DONE", 10, 10,
        0.0, null, 0, 0, 0, 0), old);
  }

  @Test
  void aMissingOrMistypedFieldIsRefused() {
    AdminPayloadException e = refused("{\"schema\":1,\"target\":\"x\"}");
    assertTrue(e.getMessage().startsWith("undecodable TaskReply: ")
        && e.getMessage().contains("tasks"), e.getMessage());
    e = refused("{\"schema\":1,\"tasks\":[]}");
    assertTrue(e.getMessage().contains("target"), e.getMessage());
    String task = "{\"target\":\"x\",\"kind\":\"scrub\",\"slot\":65535,\"state\":\"DONE\","
        + "\"bytesDone\":1,\"bytesTotal\":1,\"bytesPerSecond\":0.0,\"etaSeconds\":null,"
        + "\"objectsDone\":1,\"objectsTotal\":1,\"objectsLost\":0,\"elapsedSeconds\":0.5}";
    assertEquals(1, decode("{\"schema\":1,\"target\":\"x\",\"tasks\":[" + task + "]}").tasks()
        .size(), "etaSeconds may be null");
    for (String[] bad : new String[][] {
        {"\"slot\":65535,", ""}, // a missing primitive is not read as 0
        {"\"bytesDone\":1", "\"bytesDone\":null"},
        {"\"bytesDone\":1", "\"bytesDone\":\"lots\""},
        {"\"state\":\"DONE\"", "\"state\":null"},
        {"\"etaSeconds\":null", "\"etaSeconds\":{}"}}) {
      String t = task.replace(bad[0], bad[1]);
      e = refused("{\"schema\":1,\"target\":\"x\",\"tasks\":[" + t + "]}");
      assertTrue(e.getMessage().startsWith("undecodable TaskReply: "), t + ": " + e);
    }
    assertEquals(List.of(), decode("{\"schema\":1,\"target\":\"x\",\"tasks\":[],\"new\":7}")
        .tasks(), "a field added within schema 1 is ignored");
  }

  @Test
  void hostileInputIsRefusedNotThrownThrough() {
    String deep = "{\"schema\":1,\"target\":\"x\",\"tasks\":" + "[".repeat(5000)
        + "]".repeat(5000) + "}";
    for (String hostile : List.of("", " ", "null", "[]", "42", "\"text\"", "{", "{]",
        "{\"schema\":1,\"target\":\"x\",\"tasks\":[]} trailing",
        "{\"schema\":1,\"target\":\"x\",\"tasks\":[]}{}", "\u0000\u0001", deep,
        "{\"schema\":1,\"target\":\"x\",\"tasks\":[null]}",
        "{\"schema\":1,\"target\":\"x\",\"tasks\":{\"a\":1}}",
        "{\"schema\":1,\"target\":[\"x\"],\"tasks\":[]}")) {
      AdminPayloadException e = refused(hostile);
      assertTrue(e.getMessage().contains("TaskReply"), e.getMessage());
    }
    assertThrows(AdminPayloadException.class, () -> AdminCodec.decode(null, TaskReply.class));
  }

  @Test
  void onlyTheReplyDocumentsAreCoded() {
    assertThrows(IllegalArgumentException.class, () -> AdminCodec.encode(REBUILD));
    assertThrows(IllegalArgumentException.class, () -> AdminCodec.encode("{}"));
    assertThrows(IllegalArgumentException.class, () -> AdminCodec.decode("{}", DriveSlot.class));
  }

  private static TaskReply decode(String json) {
    try {
      return AdminCodec.decode(json, TaskReply.class);
    } catch (AdminPayloadException e) {
      throw new AssertionError(json, e);
    }
  }

  private static AdminPayloadException refused(String json) {
    return assertThrows(AdminPayloadException.class,
        () -> AdminCodec.decode(json, TaskReply.class), json);
  }
}
