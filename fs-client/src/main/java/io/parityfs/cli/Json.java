package io.parityfs.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.parityfs.meta.FileStatus;
import io.parityfs.meta.Layout;
import io.parityfs.meta.Repairs;
import io.parityfs.meta.targets.TargetInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON shapes of {@code --json}: field names are part of the documented output. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static Map<String, Object> status(FileStatus f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("path", f.path());
    m.put("type", f.type().name());
    m.put("id", f.id());
    m.put("length", f.length());
    m.put("version", f.version());
    m.put("modificationTime", f.modificationTime());
    m.put("accessTime", f.accessTime());
    m.put("owner", f.owner());
    m.put("group", f.group());
    m.put("permission", Modes.octal(f.permission()));
    m.put("layout", layout(f.layout()));
    m.put("writer", f.writer());
    if (f.isSymlink()) {
      m.put("target", f.linkTarget());
    }
    List<Map<String, Object>> repairs = new ArrayList<>();
    for (Repairs.Range r : f.repairs().ranges()) {
      Map<String, Object> range = new LinkedHashMap<>();
      range.put("target", r.target());
      range.put("from", r.from());
      range.put("to", r.to());
      repairs.add(range);
    }
    m.put("repairs", repairs);
    if (!f.isDirectory()) {
      m.put("storedBytes", f.storedBytes());
      List<Map<String, Object>> holes = new ArrayList<>();
      for (io.parityfs.meta.Holes.Range r : f.holes().ranges()) {
        Map<String, Object> range = new LinkedHashMap<>();
        range.put("from", r.from());
        range.put("to", r.to());
        holes.add(range);
      }
      m.put("holes", holes);
    }
    return m;
  }

  static Map<String, Object> layout(Layout l) {
    if (l == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("chunkSize", l.chunkSize());
    m.put("stripeCount", l.stripeCount());
    m.put("protection", l.protection());
    m.put("pool", l.pool());
    m.put("across", l.across().toString());
    m.put("targets", l.targets());
    return m;
  }

  static Map<String, Object> target(TargetInfo t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", t.id());
    m.put("nodeId", t.nodeId());
    m.put("domain", t.domain());
    m.put("address", t.address());
    m.put("name", t.name());
    m.put("pool", t.pool());
    m.put("protection", t.protection());
    m.put("capacityBytes", t.capacityBytes());
    m.put("freeBytes", t.freeBytes());
    m.put("reachability", t.reachability().name());
    m.put("consistency", t.consistency().name());
    m.put("lostObjects", t.lostObjects());
    m.put("lostObjectIds", t.lostObjectIds().stream().map(id -> String.format("%016x", id))
        .toList());
    m.put("updated", t.updated() == null ? null : t.updated().toEpochMilli());
    m.put("offlineReason", t.offlineReason());
    return m;
  }
}
