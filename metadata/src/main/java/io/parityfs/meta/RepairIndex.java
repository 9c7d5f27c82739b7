package io.parityfs.meta;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;

/**
 * The index of the files whose repair record is not empty (docs/across-nodes.md §5): one znode
 * per such file, made, rewritten and deleted in the same {@code multi} as the inode write that
 * changes the record, so the index and the records never disagree.
 *
 * <pre>
 * R/repairs/SS/IIIIIIIIII    SS = low byte of the file id; IIIIIIIIII = the file id (10 hex)
 * data (UTF-8 JSON, schema 1; unknown fields ignored):
 * {"schema":1,"id":4097,"entry":"/parityfs/ns/dirs/01/0000000001/2a/model.bin",
 *  "path":"/ckpt/model.bin","targets":["8d0e...","c41b..."]}
 * </pre>
 *
 * {@code targets} are the targets the record names (whose members are to be stored again):
 * what makes a target {@code needs-resync}, and what tells catch-up which files to visit when a
 * target returns, without walking the namespace. {@code entry} is kept right as {@link Leases}
 * keeps an open record's (a rename of the file rewrites it; a removal deletes it); {@code path}
 * is the path at the last write of the record or rename of the file, so a rename of a directory
 * above leaves it stale: readers check the id they find there ({@link Namespace#filesToRepair}).
 */
final class RepairIndex {
  private static final int SCHEMA = 1;
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** An index record as stored. */
  @JsonPropertyOrder({"schema", "id", "entry", "path", "targets"})
  record Listed(int schema, long id, String entry, String path, List<String> targets) {}

  private final CuratorFramework client;
  private final Zk zk;
  private final ZNodes zn;

  RepairIndex(Zk zk, ZNodes zn) {
    this.client = zk.client();
    this.zk = zk;
    this.zn = zn;
  }

  /** Makes {@code R/repairs} and its shards if absent (namespaces formatted before it). */
  static void ensureFormatted(CuratorFramework client, ZNodes zn) throws Exception {
    List<String> paths = new ArrayList<>();
    paths.add(zn.repairs);
    for (int i = 0; i < ZNodes.SHARDS; i++) {
      paths.add(zn.repairShard(i));
    }
    Zk.ensureAll(client, paths);
  }

  /**
   * The ops that keep the index right when the inode at {@code entry} changes from {@code
   * before} to {@code after} (same file; files only): none while neither or both have a record
   * naming the same targets.
   */
  List<Op> onWrite(Inode before, Inode after, String entry, String path) {
    if (after.isDirectory()) {
      return List.of();
    }
    boolean had = !before.repairs().isEmpty();
    boolean has = !after.repairs().isEmpty();
    String z = zn.repairRecord(after.id());
    if (!had && has) {
      return List.of(zk.create(z, encode(after, entry, path)));
    }
    if (had && !has) {
      return List.of(zk.delete(z, -1));
    }
    if (has && !new Repairs(before.repairs()).targets()
        .equals(new Repairs(after.repairs()).targets())) {
      return List.of(zk.setData(z, encode(after, entry, path), -1));
    }
    return List.of();
  }

  /** The op for a removed file with a record: its index record goes; none without one. */
  List<Op> onRemove(Inode file) {
    return file.repairs().isEmpty() ? List.of() : List.of(zk.delete(zn.repairRecord(file.id()),
        -1));
  }

  /** The op for a renamed file with a record: its index record points at the new entry. */
  List<Op> onRename(Inode file, String entry, String path) {
    return file.repairs().isEmpty() ? List.of()
        : List.of(zk.setData(zn.repairRecord(file.id()), encode(file, entry, path), -1));
  }

  /** Every index record (256 {@code getChildren}, then one read per record), by file id. */
  List<Listed> list() throws NamespaceException {
    List<Listed> out = new ArrayList<>(Zk.readShards(client, zn::repairShard,
        RepairIndex::decode, "the repair index"));
    out.sort((a, b) -> Long.compare(a.id(), b.id()));
    return out;
  }

  private static byte[] encode(Inode file, String entry, String path) {
    try {
      return JSON.writeValueAsBytes(new Listed(SCHEMA, file.id(), Objects.requireNonNull(entry),
          path, List.copyOf(new TreeSet<>(new Repairs(file.repairs()).targets()))));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Listed decode(byte[] data, String znode) throws NamespaceException {
    Listed l;
    try {
      l = JSON.readValue(data, Listed.class);
    } catch (IOException e) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "undecodable repair index record: " + e.getMessage(), e);
    }
    if (l.schema() != SCHEMA || l.entry() == null || l.targets() == null) {
      throw new NamespaceException(NamespaceStatus.CORRUPT, znode,
          "repair index record of schema " + l.schema() + " (this code reads " + SCHEMA + ")");
    }
    return l;
  }
}
