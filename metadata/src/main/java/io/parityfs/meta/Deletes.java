package io.parityfs.meta;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletes of one {@link Namespace} view: {@link Namespace#delete} (a file or an empty
 * directory in one {@code multi}; a non-empty directory detached, then purged by the {@link
 * SubtreePurger}) and {@link Namespace#purgeTrash}. Thread-safe.
 */
final class Deletes {
  private static final Logger LOG = LoggerFactory.getLogger(Namespace.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final NamespaceCore core;
  private final EntryWalker walker;
  private final AccessChecker access;

  Deletes(NamespaceCore core, EntryWalker walker) {
    this.core = core;
    this.walker = walker;
    this.access = walker.access();
  }

  /** {@link Namespace#delete}. */
  boolean delete(String path, boolean recursive) throws NamespaceException {
    List<String> comps = Names.split(path);
    String p = Names.join(comps);
    if (comps.isEmpty()) {
      return false;
    }
    for (int attempt = 0; attempt < core.config.maxRetries(); attempt++) {
      List<Entry> walk = walker.walk(comps);
      access.traverse(walker.rootForChecks(), walk, comps.size() - 1);
      if (walk.size() < comps.size()) {
        return false;
      }
      Entry e = walk.get(walk.size() - 1);
      long id = e.inode().id();
      if (access.active()) {
        access.removeFrom(walker.parentOf(walk), e);
        if (e.isDirectory() && recursive) {
          // HDFS wants rwx on every directory of the subtree; we check the top one only
          access.check(e, AccessChecker.READ | AccessChecker.WRITE | AccessChecker.EXECUTE);
        }
      }
      Zk.Applied gone = () -> {
        Entry now = walker.read(e.parentId(), parentBuckets(walk), comps.get(comps.size() - 1), p);
        return now == null || now.inode().id() != id;
      };
      if (!e.isDirectory()) {
        List<Op> ops = new ArrayList<>();
        ops.add(core.zk.check(core.zn.container(e.parentId()), 0));
        ops.add(core.zk.delete(e.znode(), e.zkVersion()));
        ops.addAll(core.removals.opsFor(e.inode()));
        if (core.zk.multi(ops, gone, p) == null) {
          return true;
        }
        continue;
      }
      String container = core.zn.container(id);
      List<String> bucketNames = walker.children(container);
      List<Op> ops = new ArrayList<>();
      ops.add(core.zk.delete(e.znode(), e.zkVersion()));
      for (String b : bucketNames) {
        ops.add(core.zk.delete(container + "/" + b, -1));
      }
      ops.add(core.zk.delete(container, 0));
      Zk.Failure f = core.zk.multi(ops, gone, p);
      if (f == null) {
        return true;
      }
      boolean bucketNotEmpty = f.code() == KeeperException.Code.NOTEMPTY
          && f.index() > 0 && f.index() < ops.size() - 1;
      if (!bucketNotEmpty) {
        continue; // changed under us (or a new bucket appeared): look again
      }
      if (!recursive) {
        throw new NamespaceException(NamespaceStatus.NOT_EMPTY, p, "directory is not empty");
      }
      byte[] marker = marker(id, p);
      if (core.zk.multi(List.of(core.zk.delete(e.znode(), e.zkVersion()),
          core.zk.setData(container, marker, 0),
          core.zk.create(core.zn.trashMarker(id), marker)), gone, p) != null) {
        continue;
      }
      LOG.info("deleting {} (directory {}): detached",
          p, ZNodes.hexId(id));
      core.purger.purge(id);
      return true;
    }
    throw core.conflict(p);
  }

  /** {@link Namespace#purgeTrash}. */
  int purgeTrash() throws NamespaceException {
    int done = 0;
    for (String hex : walker.children(core.zn.trash)) {
      core.purger.purge(Long.parseLong(hex, 16));
      done++;
    }
    return done;
  }

  private int parentBuckets(List<Entry> walk) throws NamespaceException {
    return walk.size() == 1 ? core.rootBuckets : walk.get(walk.size() - 2).inode().buckets();
  }

  private static byte[] marker(long id, String path) {
    try {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("schema", 1);
      m.put("id", id);
      m.put("path", path);
      m.put("detachedMillis", System.currentTimeMillis());
      return JSON.writeValueAsBytes(m);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
