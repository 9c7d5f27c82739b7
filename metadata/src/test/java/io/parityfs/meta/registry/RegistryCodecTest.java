package io.parityfs.meta.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegistryCodecTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATH = ZkPaths.target("t1");

  private static TargetRecord target(String pool) {
    return new TargetRecord(RegistryCodec.SCHEMA, "t1", "n1", "t0", pool, "raid6:4+2", 65536,
        64L << 20, 6, 0, 1, "OPTIMAL", 1L << 40, 2, 0);
  }

  @Test
  void recordsRoundTripInTheirDocumentedFieldOrder() throws Exception {
    TargetRecord t = target("ssd");
    assertEquals("{\"schema\":1,\"targetId\":\"t1\",\"nodeId\":\"n1\",\"name\":\"t0\","
        + "\"pool\":\"ssd\",\"protection\":\"raid6:4+2\",\"cellSize\":65536,"
        + "\"maxChunkSize\":67108864,\"dataSlots\":6,\"hotSpares\":0,\"createdMillis\":1,"
        + "\"state\":\"OPTIMAL\",\"capacityBytes\":1099511627776,\"updatedMillis\":2,"
        + "\"maxFileId\":0}",
        RegistryCodec.toJson(t));
    assertEquals(t, RegistryCodec.decode(RegistryCodec.encode(t), TargetRecord.class, PATH));
    OnlineRecord o = new OnlineRecord(1, "n1", "node", "h", 7110, -1, 1, 2, 3, 4,
        List.of(new OnlineRecord.TargetStatus("t1", "t0", "DEGRADED", "raid6:4+2", 3, 4, "cpu",
            "x", List.of(new OnlineRecord.DriveStatus(0, "ONLINE", "/d0")),
            List.of(new OnlineRecord.RebuildStatus(1, "RUNNING", 5, 10, 2.5)))));
    assertEquals(o, RegistryCodec.decode(RegistryCodec.encode(o), OnlineRecord.class, PATH));
    OfflineRecord m = new OfflineRecord(1, "t1", "gone", 9);
    assertEquals(m, RegistryCodec.decode(RegistryCodec.encode(m), OfflineRecord.class, PATH));
  }

  /** Issue 15 item 7: the file systems of a target status, an additive field of schema 1. */
  @Test
  void aTargetStatusNamesItsFileSystemsAndOneFromBeforeNamesNone() throws Exception {
    OnlineRecord.TargetStatus s = new OnlineRecord.TargetStatus("t1", "t0", "OPTIMAL",
        "raid6:4+2", 3, 4, "cpu", "x", List.of(), List.of(),
        List.of(new OnlineRecord.FileSystemShare("boot:803", 6)));
    OnlineRecord o = new OnlineRecord(1, "n1", "node", "h", 7110, -1, 1, 2, 3, 4, List.of(s));
    String json = RegistryCodec.toJson(o);
    assertTrue(json.contains("\"fileSystems\":[{\"id\":\"boot:803\",\"drives\":6}]"), json);
    assertEquals(o, RegistryCodec.decode(RegistryCodec.encode(o), OnlineRecord.class, PATH));

    ObjectNode old = (ObjectNode) JSON.readTree(RegistryCodec.encode(o));
    ((ObjectNode) old.get("targets").get(0)).remove("fileSystems");
    OnlineRecord read = RegistryCodec.decode(JSON.writeValueAsBytes(old), OnlineRecord.class,
        PATH);
    assertEquals(List.of(), read.targets().get(0).fileSystems());
    assertEquals(new OnlineRecord.TargetStatus("t1", "t0", "OPTIMAL", "raid6:4+2", 3, 4, "cpu",
        "x", List.of(), List.of()), read.targets().get(0));
  }

  /**
   * Issue 39 item 4: the lost object ids of a target status, an additive field of schema 1
   * beside lostObjects; a record without it (an older node) reads as listing none.
   */
  @Test
  void aTargetStatusListsItsLostObjectIdsAndOneFromBeforeListsNone() throws Exception {
    long id = 0x0000000100000002L;
    assertEquals("0000000100000002", OnlineRecord.TargetStatus.objectIdHex(id));
    assertEquals("ffffffffffffffff", OnlineRecord.TargetStatus.objectIdHex(-1));
    OnlineRecord.TargetStatus s = new OnlineRecord.TargetStatus("t1", "t0", "OPTIMAL",
        "raid6:4+2", 3, 4, "cpu", "x", List.of(), List.of(), List.of(), 150,
        List.of(OnlineRecord.TargetStatus.objectIdHex(id), "00000000000000ff"));
    OnlineRecord o = new OnlineRecord(1, "n1", "node", "h", 7110, -1, 1, 2, 3, 4, List.of(s));
    String json = RegistryCodec.toJson(o);
    assertTrue(json.contains(
        "\"lostObjects\":150,\"lostIds\":[\"0000000100000002\",\"00000000000000ff\"]"), json);
    OnlineRecord back = RegistryCodec.decode(RegistryCodec.encode(o), OnlineRecord.class, PATH);
    assertEquals(o, back);
    assertEquals(List.of("0000000100000002", "00000000000000ff"),
        back.targets().get(0).lostIds());

    ObjectNode old = (ObjectNode) JSON.readTree(RegistryCodec.encode(o));
    ((ObjectNode) old.get("targets").get(0)).remove("lostIds");
    OnlineRecord read = RegistryCodec.decode(JSON.writeValueAsBytes(old), OnlineRecord.class,
        PATH);
    assertEquals(List.of(), read.targets().get(0).lostIds());
    assertEquals(150, read.targets().get(0).lostObjects());
    assertEquals(new OnlineRecord.TargetStatus("t1", "t0", "OPTIMAL", "raid6:4+2", 3, 4, "cpu",
        "x", List.of(), List.of(), List.of(), 150), read.targets().get(0));

    ((ObjectNode) old.get("targets").get(0)).remove("lostObjects"); // older still
    read = RegistryCodec.decode(JSON.writeValueAsBytes(old), OnlineRecord.class, PATH);
    assertEquals(0, read.targets().get(0).lostObjects());
    assertEquals(List.of(), read.targets().get(0).lostIds());

    ((ObjectNode) old.get("targets").get(0)).putNull("lostIds");
    read = RegistryCodec.decode(JSON.writeValueAsBytes(old), OnlineRecord.class, PATH);
    assertEquals(List.of(), read.targets().get(0).lostIds());
  }

  @Test
  void aTargetRecordFromBeforePoolsIsInTheDefaultPool() throws Exception {
    ObjectNode old = (ObjectNode) JSON.readTree(RegistryCodec.encode(target("ssd")));
    old.remove("pool");
    old.remove("maxFileId"); // nor the highest file id: 0, none known
    old.put("addedLater", true); // unknown fields are ignored within a schema
    assertEquals(target("default"),
        RegistryCodec.decode(JSON.writeValueAsBytes(old), TargetRecord.class, PATH));
  }

  @Test
  void aMissingOrOtherSchemaIsRefusedAsCorrupt() throws Exception {
    ObjectNode tree = (ObjectNode) JSON.readTree(RegistryCodec.encode(target("ssd")));
    tree.put("schema", 2);
    CorruptRecordException e = assertThrows(CorruptRecordException.class,
        () -> RegistryCodec.decode(JSON.writeValueAsBytes(tree), TargetRecord.class, PATH));
    assertEquals(PATH, e.path());
    assertTrue(e.getMessage().contains("TargetRecord of schema 2; this code reads schema 1"
        + " only (written by a newer ParityFS version: upgrade the readers first)"),
        e.getMessage());

    tree.remove("schema");
    e = assertThrows(CorruptRecordException.class,
        () -> RegistryCodec.decode(JSON.writeValueAsBytes(tree), TargetRecord.class, PATH));
    assertTrue(e.getMessage().contains("without a schema number"), e.getMessage());

    e = assertThrows(CorruptRecordException.class,
        () -> RegistryCodec.decode(new byte[] {'{', 'x'}, NodeRecord.class, PATH));
    assertTrue(e.reason().startsWith("undecodable NodeRecord"), e.reason());

    tree.put("schema", 1);
    tree.put("pool", "not a pool");
    e = assertThrows(CorruptRecordException.class,
        () -> RegistryCodec.decode(JSON.writeValueAsBytes(tree), TargetRecord.class, PATH));
    assertTrue(e.getMessage().contains("pool (not a pool)"), e.getMessage());

    assertThrows(IllegalArgumentException.class, () -> RegistryCodec.encode("a string"));
  }
}
